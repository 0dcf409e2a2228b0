#include "swigflow/framework/status.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace swigflow {
namespace error {

std::string CodeName(Code code) {
  switch (code) {
    case OK:
      return "OK";
    case CANCELLED:
      return "CANCELLED";
    case UNKNOWN:
      return "UNKNOWN";
    case INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case NOT_FOUND:
      return "NOT_FOUND";
    case ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case ABORTED:
      return "ABORTED";
    case OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case INTERNAL:
      return "INTERNAL";
    case UNAVAILABLE:
      return "UNAVAILABLE";
    case DATA_LOSS:
      return "DATA_LOSS";
    case UNAUTHENTICATED:
      return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE(" + std::to_string(static_cast<int>(code)) + ")";
}

}  // namespace error

namespace {
const std::string& EmptyString() {
  static const std::string* const empty = new std::string;
  return *empty;
}
}  // namespace

Status::Status(error::Code code, std::string message) {
  if (code != error::OK) state_.reset(new State{code, std::move(message)});
}

Status::Status(const Status& other) : state_(other.ok() ? nullptr : new State(*other.state_)) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) state_.reset(other.ok() ? nullptr : new State(*other.state_));
  return *this;
}

const std::string& Status::message() const { return ok() ? EmptyString() : state_->message; }

void Status::Update(const Status& other) {
  if (ok() && !other.ok()) *this = other;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return error::CodeName(state_->code) + ": " + state_->message;
}

bool Status::operator==(const Status& other) const {
  return code() == other.code() && message() == other.message();
}

std::ostream& operator<<(std::ostream& os, const Status& status) { return os << status.ToString(); }

Status StatusFromCurrentException() noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return errors::ResourceExhausted("out of memory (std::bad_alloc)");
  } catch (const std::length_error& e) {
    return errors::ResourceExhausted("out of memory (std::length_error: ", e.what(), ")");
  } catch (const std::system_error& e) {
    return errors::ResourceExhausted("cannot start a thread or take a lock: ", e.what());
  } catch (const std::exception& e) {
    return errors::Internal("C++ exception: ", e.what());
  } catch (...) {
    return errors::Internal("unknown C++ exception");
  }
}

}  // namespace swigflow
