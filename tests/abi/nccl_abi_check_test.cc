// Our NCCL declarations (canary/gpu_vendor_api.h) against the real nccl.h.
// Its own translation unit: nccl.h pulls in cuda_runtime.h, whose C++
// template overloads (cudaMalloc<T> ...) would make the runtime checks
// ambiguous. Built only when CMake finds nccl.h.
#include <nccl.h>

#include <gtest/gtest.h>

#include "canary/gpu_vendor_api.h"
#include "tests/abi/abi_compat.h"

namespace gpufleet::canary::vendor {
namespace {

GPUFLEET_ABI_CHECK_FN(ncclGetVersion, CclGetVersionFn);
GPUFLEET_ABI_CHECK_FN(ncclCommInitAll, CclCommInitAllFn);
GPUFLEET_ABI_CHECK_FN(ncclCommDestroy, CclCommDestroyFn);
GPUFLEET_ABI_CHECK_FN(ncclAllReduce, CclAllReduceFn);
GPUFLEET_ABI_CHECK_FN(ncclGroupStart, CclGroupFn);
GPUFLEET_ABI_CHECK_FN(ncclGroupEnd, CclGroupFn);
GPUFLEET_ABI_CHECK_FN(ncclGetErrorString, CclGetErrorStringFn);

TEST(NcclAbiCheckTest, SpecMatchesNcclHeader) {
  const VendorSpec& s = SpecFor(GpuVendor::kNvidia);
  EXPECT_EQ(s.ccl_float32, ncclFloat32);
  EXPECT_EQ(s.ccl_sum, ncclSum);
  RecordProperty("nccl_header", NCCL_VERSION_CODE);
}

}  // namespace
}  // namespace gpufleet::canary::vendor
