#include "canary/gpu_runtime.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "canary/fake_gpu_test_util.h"
#include "canary/gpu_vendor_api.h"

namespace gpufleet::canary {
namespace {

TEST(GpuRuntimeTest, LoadsFakeCudaStackAndReportsTarget) {
  ScriptFakeGpu(GpuVendor::kNvidia, "device_count = 3\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->vendor(), GpuVendor::kNvidia);
  EXPECT_EQ(rt->device_count(), 3);
  StatusOr<std::string> name = rt->DeviceName(1);
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  EXPECT_EQ(*name, "NVIDIA H200");
  StatusOr<HardwareTarget> t = rt->Target(0);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->model, "NVIDIA H200");
  EXPECT_EQ(t->runtime, "cuda-12.4");
  EXPECT_EQ(t->driver, "cuda-driver-12040");
  EXPECT_EQ(t->libraries, "cublas-12.4.3+nccl-2.21.5");
  EXPECT_TRUE(rt->BlasStatus().ok());
  EXPECT_TRUE(rt->CollectiveStatus().ok());
  EXPECT_FALSE(rt->DeviceName(7).ok());
}

TEST(GpuRuntimeTest, LoadsFakeHipStack) {
  ScriptFakeGpu(GpuVendor::kAmd, "device_count = 2\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kAmd);
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->device_count(), 2);
  StatusOr<HardwareTarget> t = rt->Target(0);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->model, "AMD Instinct MI300X OAM");
  EXPECT_EQ(t->runtime, "rocm-6.2");
  // hipBLAS has no version query; RCCL reports 2.19.3.
  EXPECT_EQ(t->libraries, "rccl-2.19.3");
}

TEST(GpuRuntimeTest, MissingRuntimeIsUnavailableNamingTheLibrary) {
  StatusOr<std::unique_ptr<GpuRuntime>> rt =
      LoadGpuRuntime({GpuVendor::kNvidia, ::testing::TempDir() + "/no-such-dir"});
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(rt.status().message().find("libcudart.so.12"), std::string::npos)
      << rt.status().message();
}

TEST(GpuRuntimeTest, PartialStackReportsMissingSymbolAndLibrary) {
  ScriptFakeGpu(GpuVendor::kNvidia, "device_count = 2\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia, /*partial=*/true);
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->BlasStatus().code(), StatusCode::kUnavailable);
  EXPECT_NE(rt->BlasStatus().message().find("cublasGemmEx"), std::string::npos)
      << rt->BlasStatus().message();
  EXPECT_EQ(rt->CollectiveStatus().code(), StatusCode::kUnavailable);
  EXPECT_NE(rt->CollectiveStatus().message().find("libnccl.so.2"), std::string::npos)
      << rt->CollectiveStatus().message();
}

// hipBLAS 3 (ROCm 7) removed hipblasGemmEx_v2; plain hipblasGemmEx has its
// signature there.
TEST(GpuRuntimeTest, HipBlas3UsesPlainGemmEx) {
  ScriptFakeGpu(GpuVendor::kAmd, "device_count = 1\n");
  StatusOr<std::unique_ptr<GpuRuntime>> rt =
      LoadGpuRuntime({GpuVendor::kAmd, std::string(FAKE_GPU_DIR) + "/hip/rocm7"});
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_TRUE((*rt)->BlasStatus().ok()) << (*rt)->BlasStatus().ToString();
  ASSERT_TRUE((*rt)->SetDevice(0).ok());
  StatusOr<void*> a = (*rt)->DeviceAlloc(64 * 64 * 2);
  ASSERT_TRUE(a.ok());
  StatusOr<void*> s = (*rt)->CreateStream();
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE((*rt)->Gemm(GemmPrecision::kBf16, 64, *a, *a, *a, *s).ok());
  EXPECT_TRUE((*rt)->DestroyStream(*s).ok());
  EXPECT_TRUE((*rt)->DeviceFree(*a).ok());
}

// Before hipBLAS 3 the plain name takes hipblasDatatype_t: never bound.
TEST(GpuRuntimeTest, OldHipBlasWithoutGemmExV2IsUnavailable) {
  ScriptFakeGpu(GpuVendor::kAmd, "device_count = 1\n");
  StatusOr<std::unique_ptr<GpuRuntime>> rt =
      LoadGpuRuntime({GpuVendor::kAmd, std::string(FAKE_GPU_DIR) + "/hip/legacy"});
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ((*rt)->BlasStatus().code(), StatusCode::kUnavailable);
  EXPECT_NE((*rt)->BlasStatus().message().find("hipblasGemmEx_v2"), std::string::npos)
      << (*rt)->BlasStatus().message();
}

TEST(GpuRuntimeTest, FakeChecksVendorEnumValues) {
  // The fake BLAS rejects anything but the documented OP_N / COMPUTE_32F /
  // default algorithm of its vendor, so a GEMM going through means the
  // VendorSpec table matches what the fake was written to.
  for (GpuVendor v : {GpuVendor::kNvidia, GpuVendor::kAmd}) {
    ScriptFakeGpu(v, "device_count = 1\n");
    std::unique_ptr<GpuRuntime> rt = LoadFake(v);
    ASSERT_NE(rt, nullptr);
    ASSERT_TRUE(rt->SetDevice(0).ok());
    StatusOr<void*> a = rt->DeviceAlloc(64 * 64 * 2);
    ASSERT_TRUE(a.ok());
    StatusOr<void*> s = rt->CreateStream();
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(rt->Gemm(GemmPrecision::kBf16, 64, *a, *a, *a, *s).ok()) << GpuVendorName(v);
    // fp8 through the fake BLASLt, which checks the Lt enum values, the
    // fp8 data type for the architecture (sm_90 / gfx942 by default) and
    // the TN layout.
    Status fp8 = rt->Gemm(GemmPrecision::kFp8, 64, *a, *a, *a, *s);
    EXPECT_TRUE(fp8.ok()) << GpuVendorName(v) << ": " << fp8.ToString();
    EXPECT_TRUE(rt->DestroyStream(*s).ok());
    EXPECT_TRUE(rt->DeviceFree(*a).ok());
    // Freeing twice is an error the runtime reports with the call's name.
    Status again = rt->DeviceFree(*a);
    EXPECT_FALSE(again.ok());
    EXPECT_NE(again.message().find(v == GpuVendor::kAmd ? "hipFree" : "cudaFree"),
              std::string::npos)
        << again.message();
  }
}

TEST(GpuVendorApiTest, VersionNames) {
  EXPECT_EQ(vendor::RuntimeVersionName(GpuVendor::kNvidia, 12040), "cuda-12.4");
  EXPECT_EQ(vendor::RuntimeVersionName(GpuVendor::kNvidia, 11080), "cuda-11.8");
  EXPECT_EQ(vendor::RuntimeVersionName(GpuVendor::kAmd, 60241134), "rocm-6.2");
  EXPECT_EQ(vendor::CclVersionName(22105), "2.21.5");
  EXPECT_EQ(vendor::CclVersionName(2708), "2.7.8");
  EXPECT_EQ(vendor::BlasVersionName(120403), "12.4.3");
}

}  // namespace
}  // namespace gpufleet::canary
