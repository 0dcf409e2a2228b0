// Fuzz target for the Example / SequenceExample codec. Invariants: no crash or wild allocation,
// malformed input is INVALID_ARGUMENT, and whatever parses survives a round trip: serializing,
// parsing again and serializing again gives an equal message and identical bytes.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>

#include "swigflow/example/example.h"

namespace {

namespace ex = swigflow::example;

void Require(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
  }
}

template <typename Message, typename ParseFn, typename SerializeFn>
void RoundTrip(const char* data, size_t size, ParseFn parse, SerializeFn serialize) {
  Message message;
  swigflow::Status s = parse(data, size, &message);
  Require(s.ok() || swigflow::errors::IsInvalidArgument(s), "parse status");
  if (!s.ok()) return;
  std::string once, twice;
  serialize(message, &once);
  Message back;
  Require(parse(once.data(), once.size(), &back).ok(), "re-parse of our own bytes");
  Require(back == message, "round trip changed the message");
  serialize(back, &twice);
  Require(once == twice, "serialization is not canonical");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  RoundTrip<ex::Example>(bytes, size, ex::ParseExample, ex::SerializeExample);
  RoundTrip<ex::SequenceExample>(bytes, size, ex::ParseSequenceExample,
                                 ex::SerializeSequenceExample);
  return 0;
}
