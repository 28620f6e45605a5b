#include "core/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

namespace gpufleet {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd: " + std::to_string(x));
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int h, Half(x));
  ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckPositive(int x) {
  if (x <= 0) return OutOfRangeError("not positive");
  return OkStatus();
}

Status Both(int a, int b) {
  RETURN_IF_ERROR(CheckPositive(a));
  RETURN_IF_ERROR(CheckPositive(b));
  return OkStatus();
}

TEST(StatusTest, OkAndErrorCarryCodeAndMessage) {
  EXPECT_TRUE(OkStatus().ok());
  Status s = NotFoundError("libnvidia-ml.so.1");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "NOT_FOUND: libnvidia-ml.so.1");
  EXPECT_EQ(s.WithContext("nvml").message(), "nvml: libnvidia-ml.so.1");
}

TEST(StatusTest, ErrnoErrorCodesWhatTheCallMeans) {
  Status gone = ErrnoError("/dev/kfd: open", ENOENT);
  EXPECT_EQ(gone.code(), StatusCode::kNotFound);
  EXPECT_EQ(gone.message(), std::string("/dev/kfd: open: ") + std::strerror(ENOENT));
  EXPECT_EQ(ErrnoError("x", ENODEV).code(), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoError("x", EACCES).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoError("x", EPERM).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoError("x", EIO).code(), StatusCode::kUnavailable);
}

TEST(StatusTest, AssignOrReturnPropagatesFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  StatusOr<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd: 3");
}

TEST(StatusTest, ReturnIfErrorStopsAtFirstFailure) {
  EXPECT_TRUE(Both(1, 2).ok());
  EXPECT_EQ(Both(1, -1).code(), StatusCode::kOutOfRange);
}

TEST(StatusTest, StatusOrFromOkStatusIsInternalError) {
  StatusOr<int> r{OkStatus()};
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(StatusDeathTest, ValueOfErrorAborts) {
  StatusOr<int> r = InternalError("x");
  EXPECT_DEATH((void)r.value(), "StatusOr");
}

}  // namespace
}  // namespace gpufleet
