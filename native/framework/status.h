// Status: the result of an operation that can fail, carrying one of TensorFlow's error codes.
//
// Native code never throws across the library boundary; it returns Status, and the SWIG layer
// turns a non-OK Status into the matching swigflow.errors exception. An OK Status is a single
// null pointer, so returning it costs nothing on the success path.
#ifndef SWIGFLOW_FRAMEWORK_STATUS_H_
#define SWIGFLOW_FRAMEWORK_STATUS_H_

#include <charconv>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace swigflow {
namespace error {

// The numeric values are TensorFlow's (tensorflow/core/protobuf/error_codes.proto); Python relies
// on them being identical to tf.errors' codes.
enum Code : int {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
};

// "INVALID_ARGUMENT" for INVALID_ARGUMENT; "UNKNOWN_CODE(<n>)" for values outside the enum.
std::string CodeName(Code code);

}  // namespace error

class Status {
 public:
  // OK.
  Status() = default;
  // A non-OK status; `code` must not be OK (an OK code yields an OK status, message dropped).
  Status(error::Code code, std::string message);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  error::Code code() const { return ok() ? error::OK : state_->code; }
  const std::string& message() const;

  // Keeps the first error: if this is OK, becomes `other`.
  void Update(const Status& other);

  // "OK", or "<CODE_NAME>: <message>".
  std::string ToString() const;

  bool operator==(const Status& other) const;
  bool operator!=(const Status& other) const { return !(*this == other); }

 private:
  struct State {
    error::Code code;
    std::string message;
  };
  std::unique_ptr<State> state_;  // null means OK
};

std::ostream& operator<<(std::ostream& os, const Status& status);

namespace errors {
namespace internal {
// Strings and integers are appended directly (an error on a hot path, such as the end of every
// file, then costs no stream); anything else goes through its operator<<.
template <typename T>
void AppendPiece(std::string* out, const T& piece) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out->append(std::string_view(piece));
  } else if constexpr (std::is_same_v<T, char>) {
    out->push_back(piece);
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), piece).ptr;
    out->append(digits, end);
  } else {
    std::ostringstream stream;
    stream << piece;
    out->append(stream.str());
  }
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (AppendPiece(&out, args), ...);
  return out;
}
}  // namespace internal

// errors::InvalidArgument("bad shape ", shape, " at ", offset) and so on, like TensorFlow's.
#define SWIGFLOW_DECLARE_ERROR(FUNC, CODE)                 \
  template <typename... Args>                              \
  Status FUNC(const Args&... args) {                       \
    return Status(error::CODE, internal::StrCat(args...)); \
  }                                                        \
  inline bool Is##FUNC(const Status& status) { return status.code() == error::CODE; }

SWIGFLOW_DECLARE_ERROR(Cancelled, CANCELLED)
SWIGFLOW_DECLARE_ERROR(Unknown, UNKNOWN)
SWIGFLOW_DECLARE_ERROR(InvalidArgument, INVALID_ARGUMENT)
SWIGFLOW_DECLARE_ERROR(DeadlineExceeded, DEADLINE_EXCEEDED)
SWIGFLOW_DECLARE_ERROR(NotFound, NOT_FOUND)
SWIGFLOW_DECLARE_ERROR(AlreadyExists, ALREADY_EXISTS)
SWIGFLOW_DECLARE_ERROR(PermissionDenied, PERMISSION_DENIED)
SWIGFLOW_DECLARE_ERROR(ResourceExhausted, RESOURCE_EXHAUSTED)
SWIGFLOW_DECLARE_ERROR(FailedPrecondition, FAILED_PRECONDITION)
SWIGFLOW_DECLARE_ERROR(Aborted, ABORTED)
SWIGFLOW_DECLARE_ERROR(OutOfRange, OUT_OF_RANGE)
SWIGFLOW_DECLARE_ERROR(Unimplemented, UNIMPLEMENTED)
SWIGFLOW_DECLARE_ERROR(Internal, INTERNAL)
SWIGFLOW_DECLARE_ERROR(Unavailable, UNAVAILABLE)
SWIGFLOW_DECLARE_ERROR(DataLoss, DATA_LOSS)
SWIGFLOW_DECLARE_ERROR(Unauthenticated, UNAUTHENTICATED)

#undef SWIGFLOW_DECLARE_ERROR

}  // namespace errors

// The Status for the C++ exception being handled; call only inside a catch block. Out of memory
// (std::bad_alloc, std::length_error) and a thread that cannot start (std::system_error) are
// RESOURCE_EXHAUSTED, anything else INTERNAL.
Status StatusFromCurrentException() noexcept;

// Runs fn (returning Status), turning a C++ exception that escapes it into a Status. Used where
// exceptions must not cross: into Python's frames and out of thread bodies (std::terminate).
template <typename F>
Status CatchExceptions(F&& fn) noexcept {
  try {
    return fn();
  } catch (...) {
    return StatusFromCurrentException();
  }
}

}  // namespace swigflow

// Returns from the enclosing function if `expr` yields a non-OK Status.
#define SWIGFLOW_RETURN_IF_ERROR(expr)                   \
  do {                                                   \
    ::swigflow::Status swigflow_status_ = (expr);        \
    if (!swigflow_status_.ok()) return swigflow_status_; \
  } while (0)

#endif  // SWIGFLOW_FRAMEWORK_STATUS_H_
