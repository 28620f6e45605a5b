// Status and StatusOr<T>: the error type of every gpufleet API.
//
// A Status is OK or carries a code and a message that names the place of the
// problem (file, line, offset, field). Functions that can fail return Status
// or StatusOr<T>; exceptions never cross component boundaries.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace gpufleet {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // bad input from the user or a file
  kNotFound,          // file, library, symbol, device or key absent
  kUnavailable,       // transient: device lost, endpoint down; may recover
  kDeadlineExceeded,  // a call did not finish in time
  kPermissionDenied,
  kFailedPrecondition,  // e.g. driver/library version mismatch
  kUnimplemented,       // e.g. a vendor function not supported on this device
  kDataLoss,            // truncated or corrupt input
  kOutOfRange,
  kInternal,  // a bug
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "INVALID_ARGUMENT: file.prom:3:17: expected '='".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>".
  Status WithContext(std::string_view prefix) const;

  void IgnoreError() const {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status UnavailableError(std::string message);
Status DeadlineExceededError(std::string message);
Status PermissionDeniedError(std::string message);
Status FailedPreconditionError(std::string message);
Status UnimplementedError(std::string message);
Status DataLossError(std::string message);
Status OutOfRangeError(std::string message);
Status InternalError(std::string message);
// "message: strerror(err)", coded by what a failed system call means to a
// caller: NotFound (ENOENT, ENODEV: nothing there), PermissionDenied
// (EACCES, EPERM), Unavailable otherwise. Save errno before building the
// message: an allocation may change it.
Status ErrnoError(std::string message, int err);

// Holds a T or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const T& value) : value_(value) {}                 // NOLINT: implicit by design
  StatusOr(T&& value) : value_(std::move(value)) {}           // NOLINT
  StatusOr(Status status) : status_(std::move(status)) {      // NOLINT
    if (status_.ok()) status_ = InternalError("StatusOr constructed from an OK Status");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok().
  T& value() & { return Checked(); }
  const T& value() const& { return const_cast<StatusOr*>(this)->Checked(); }
  T&& value() && { return std::move(Checked()); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return const_cast<StatusOr*>(this)->Checked(); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &const_cast<StatusOr*>(this)->Checked(); }

 private:
  T& Checked();

  Status status_;
  std::optional<T> value_;
};

[[noreturn]] void CheckFailed(const char* file, int line, const char* expr, std::string_view msg);

template <typename T>
T& StatusOr<T>::Checked() {
  if (!value_.has_value()) CheckFailed(__FILE__, __LINE__, "StatusOr::value()", status_.ToString());
  return *value_;
}

}  // namespace gpufleet

// CHECK for invariants whose failure means a bug in gpufleet.
#define GPUFLEET_CHECK(expr)                                                     \
  do {                                                                           \
    if (!(expr)) ::gpufleet::CheckFailed(__FILE__, __LINE__, #expr, "");         \
  } while (0)

#define GPUFLEET_CONCAT_INNER(a, b) a##b
#define GPUFLEET_CONCAT(a, b) GPUFLEET_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::gpufleet::Status _st = (expr);           \
    if (!_st.ok()) return _st;                 \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(GPUFLEET_CONCAT(_status_or_, __LINE__), lhs, expr)
