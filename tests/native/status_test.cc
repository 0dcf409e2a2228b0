#include "swigflow/framework/status.h"

#include <gtest/gtest.h>

#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "swigflow/framework/check.h"

namespace swigflow {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), error::OK);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s, Status::OK());
}

TEST(StatusTest, CodesHaveTensorFlowValues) {
  // Python relies on these exact numbers (they are tf.errors' codes).
  EXPECT_EQ(error::CANCELLED, 1);
  EXPECT_EQ(error::INVALID_ARGUMENT, 3);
  EXPECT_EQ(error::NOT_FOUND, 5);
  EXPECT_EQ(error::OUT_OF_RANGE, 11);
  EXPECT_EQ(error::INTERNAL, 13);
  EXPECT_EQ(error::DATA_LOSS, 15);
  EXPECT_EQ(error::UNAUTHENTICATED, 16);
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = errors::DataLoss("corrupted record at ", 16, " in ", "/tmp/x.tfrecord");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), error::DATA_LOSS);
  EXPECT_EQ(s.message(), "corrupted record at 16 in /tmp/x.tfrecord");
  EXPECT_EQ(s.ToString(), "DATA_LOSS: corrupted record at 16 in /tmp/x.tfrecord");
  EXPECT_TRUE(errors::IsDataLoss(s));
  EXPECT_FALSE(errors::IsNotFound(s));
}

TEST(StatusTest, OkCodeDropsMessage) {
  Status s(error::OK, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, CopyAndMoveKeepValue) {
  Status a = errors::NotFound("no such file: a");
  Status b = a;
  EXPECT_EQ(a, b);
  Status c = std::move(b);
  EXPECT_EQ(c, a);
  Status d;
  d = c;
  EXPECT_EQ(d, a);
  d = Status::OK();
  EXPECT_TRUE(d.ok());
  d = d;  // self-assignment keeps the value
  EXPECT_TRUE(d.ok());
}

TEST(StatusTest, UpdateKeepsFirstError) {
  Status s;
  s.Update(Status::OK());
  EXPECT_TRUE(s.ok());
  s.Update(errors::InvalidArgument("first"));
  s.Update(errors::Internal("second"));
  EXPECT_EQ(s, errors::InvalidArgument("first"));
}

TEST(StatusTest, EqualityComparesCodeAndMessage) {
  EXPECT_NE(errors::Internal("x"), errors::Internal("y"));
  EXPECT_NE(errors::Internal("x"), errors::Unknown("x"));
  EXPECT_NE(errors::Internal(""), Status::OK());
}

TEST(StatusTest, CodeNames) {
  EXPECT_EQ(error::CodeName(error::INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_EQ(error::CodeName(error::UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_EQ(error::CodeName(static_cast<error::Code>(42)), "UNKNOWN_CODE(42)");
}

TEST(StatusTest, StreamsAsToString) {
  std::ostringstream out;
  out << errors::OutOfRange("end of file");
  EXPECT_EQ(out.str(), "OUT_OF_RANGE: end of file");
}

Status FailsAt(int step, int* reached) {
  for (int i = 0; i < 3; ++i) {
    *reached = i;
    SWIGFLOW_RETURN_IF_ERROR(i == step ? errors::Aborted("step ", i) : Status::OK());
  }
  return Status::OK();
}

TEST(StatusTest, ReturnIfErrorStopsAtFirstError) {
  int reached = -1;
  EXPECT_EQ(FailsAt(1, &reached), errors::Aborted("step 1"));
  EXPECT_EQ(reached, 1);
  EXPECT_TRUE(FailsAt(7, &reached).ok());
  EXPECT_EQ(reached, 2);
}

TEST(StatusTest, CatchExceptionsTurnsExceptionsIntoStatuses) {
  EXPECT_TRUE(CatchExceptions([] { return Status::OK(); }).ok());
  EXPECT_EQ(CatchExceptions([] { return errors::NotFound("x"); }), errors::NotFound("x"));
  const Status oom = CatchExceptions([]() -> Status { throw std::bad_alloc(); });
  EXPECT_TRUE(errors::IsResourceExhausted(oom)) << oom;
  const Status big = CatchExceptions([]() -> Status { throw std::length_error("vector"); });
  EXPECT_TRUE(errors::IsResourceExhausted(big)) << big;
  const Status thread = CatchExceptions([]() -> Status {
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
  });
  EXPECT_TRUE(errors::IsResourceExhausted(thread)) << thread;
  const Status other = CatchExceptions([]() -> Status { throw std::runtime_error("boom"); });
  EXPECT_EQ(other.code(), error::INTERNAL);
  EXPECT_NE(other.message().find("boom"), std::string::npos);
  EXPECT_EQ(CatchExceptions([]() -> Status { throw 7; }).code(), error::INTERNAL);
}

// SWIGFLOW_DCHECK: on in the sanitizer configs (CI runs this test under ASan), where a failed
// invariant aborts naming itself; elsewhere its condition is not evaluated.
TEST(CheckTest, InvariantsAreCheckedWhereChecksAreOn) {
  int evaluated = 0;
  SWIGFLOW_DCHECK(++evaluated > 0);
#if SWIGFLOW_DCHECKS_ON
  EXPECT_EQ(evaluated, 1);
  EXPECT_DEATH(SWIGFLOW_DCHECK(evaluated == 2), "swigflow invariant failed: evaluated == 2");
#else
  EXPECT_EQ(evaluated, 0);
#endif
}

}  // namespace
}  // namespace swigflow
