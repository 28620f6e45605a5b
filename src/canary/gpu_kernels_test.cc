// fp8 GEMM through BLASLt and gpufleet's own STREAM kernels, against the fake
// GPU stacks (tests/fakes/gpu/): the figures, and every skip path with its
// reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "canary/fake_gpu_test_util.h"
#include "canary/gpu_vendor_api.h"
#include "canary/kernel_module.h"
#include "canary/runner.h"

namespace gpufleet::canary {
namespace {

RunOptions Small(std::vector<std::string> groups) {
  RunOptions o;
  o.groups = std::move(groups);
  o.repetitions = 3;
  o.iters = 4;
  o.warmup = 1;
  o.gemm_n = 512;
  o.gemm_precisions = {GemmPrecision::kFp8};
  o.stream_bytes = size_t{32} << 20;
  return o;
}

const BenchmarkResult* Find(const RunReport& r, const std::string& id) {
  for (const BenchmarkResult& b : r.results) {
    if (b.benchmark_id == id) return &b;
  }
  return nullptr;
}

std::string SkipReason(const RunReport& r, const std::string& id) {
  for (const SkippedBenchmark& s : r.skipped) {
    if (s.benchmark == id) return s.reason;
  }
  return "<not skipped>";
}

StatusOr<RunReport> RunFake(GpuVendor v, const std::string& script, const RunOptions& o,
                            bool partial = false,
                            const std::string& image = kFakeKernelImage) {
  ScriptFakeGpu(v, script);
  std::unique_ptr<GpuRuntime> rt = LoadFake(v, partial, image);
  if (rt == nullptr) return InternalError("fake did not load");
  return RunBenchmarks(*rt, o);
}

void ExpectEveryValueNear(const RunReport& r, const std::string& id, double expected) {
  const BenchmarkResult* b = Find(r, id);
  ASSERT_NE(b, nullptr) << id << " missing; skipped because: " << SkipReason(r, id);
  ASSERT_EQ(b->values.size(), 3u);
  for (double v : b->values) EXPECT_NEAR(v, expected, expected * 0.005) << id;
}

TEST(Fp8GemmTest, FigureEqualsScriptedRateOnHopperAndMi300AndMi350) {
  struct Case {
    GpuVendor vendor;
    const char* arch;
  } cases[] = {{GpuVendor::kNvidia, "cc_major = 9\ncc_minor = 0\n"},
               {GpuVendor::kNvidia, "cc_major = 8\ncc_minor = 9\n"},   // Ada
               {GpuVendor::kNvidia, "cc_major = 10\ncc_minor = 0\n"},  // Blackwell
               {GpuVendor::kAmd, "cc_major = 9\ncc_minor = 4\n"},      // gfx942: FNUZ
               {GpuVendor::kAmd, "cc_major = 9\ncc_minor = 5\n"}};     // gfx950: OCP
  for (const Case& c : cases) {
    StatusOr<RunReport> r =
        RunFake(c.vendor, std::string("gemm_tflops.fp8 = 1800\n") + c.arch, Small({"gemm"}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    SCOPED_TRACE(c.arch);
    ExpectEveryValueNear(*r, "gemm.fp8@512", 1800e12);
  }
}

TEST(Fp8GemmTest, OlderArchitectureIsSkippedNamingIt) {
  StatusOr<RunReport> r =
      RunFake(GpuVendor::kNvidia, "cc_major = 8\ncc_minor = 0\n", Small({"gemm"}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Find(*r, "gemm.fp8@512"), nullptr);
  std::string why = SkipReason(*r, "gemm.fp8@512");
  EXPECT_NE(why.find("8.9"), std::string::npos) << why;
  EXPECT_NE(why.find("sm_80"), std::string::npos) << why;

  r = RunFake(GpuVendor::kAmd, "cc_major = 9\ncc_minor = 0\n", Small({"gemm"}));  // MI200
  ASSERT_TRUE(r.ok());
  why = SkipReason(*r, "gemm.fp8@512");
  EXPECT_NE(why.find("gfx942"), std::string::npos) << why;
  EXPECT_NE(why.find("gfx9.0"), std::string::npos) << why;
}

TEST(Fp8GemmTest, MissingBlasLtLibraryIsSkippedNamingIt) {
  // partial/ has cuBLAS (without GemmEx) but no cuBLASLt.
  StatusOr<RunReport> r = RunFake(GpuVendor::kNvidia, "", Small({"gemm"}), /*partial=*/true);
  ASSERT_TRUE(r.ok());
  std::string why = SkipReason(*r, "gemm.fp8@512");
  EXPECT_NE(why.find("libcublasLt.so.12"), std::string::npos) << why;
}

TEST(Fp8GemmTest, NoHeuristicAlgorithmAndFailingMatmulAreSkipped) {
  StatusOr<RunReport> r = RunFake(GpuVendor::kAmd, "fp8_no_algorithm = 1\n", Small({"gemm"}));
  ASSERT_TRUE(r.ok());
  std::string why = SkipReason(*r, "gemm.fp8@512");
  EXPECT_NE(why.find("hipblasLtMatmulAlgoGetHeuristic found no fp8 algorithm"), std::string::npos)
      << why;

  r = RunFake(GpuVendor::kNvidia, "fail = cublasLtMatmul\n", Small({"gemm"}));
  ASSERT_TRUE(r.ok());
  why = SkipReason(*r, "gemm.fp8@512");
  EXPECT_NE(why.find("cublasLtMatmul failed with status 7"), std::string::npos) << why;
}

TEST(Fp8GemmTest, ArchitectureTable) {
  const vendor::VendorSpec& cuda = vendor::SpecFor(GpuVendor::kNvidia);
  const vendor::VendorSpec& hip = vendor::SpecFor(GpuVendor::kAmd);
  StatusOr<vendor::Fp8Support> s = vendor::Fp8SupportFor(cuda, 9, 0);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->data_type, 28);  // CUDA_R_8F_E4M3
  EXPECT_EQ(s->arch, "sm_90");
  EXPECT_TRUE(vendor::Fp8SupportFor(cuda, 8, 9).ok());
  EXPECT_EQ(vendor::Fp8SupportFor(cuda, 8, 6).status().code(), StatusCode::kUnimplemented);
  s = vendor::Fp8SupportFor(hip, 9, 4);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->data_type, 1000);  // HIP_R_8F_E4M3_FNUZ
  s = vendor::Fp8SupportFor(hip, 9, 5);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->data_type, 28);  // HIP_R_8F_E4M3
  EXPECT_FALSE(vendor::Fp8SupportFor(hip, 11, 0).ok());
}

TEST(StreamKernelTest, FiguresEqualScriptedRateForBothStacks) {
  for (GpuVendor v : {GpuVendor::kNvidia, GpuVendor::kAmd}) {
    StatusOr<RunReport> r = RunFake(v, "stream_kernel_gbps = 4200\n", Small({"stream"}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    SCOPED_TRACE(std::string(GpuVendorName(v)));
    ExpectEveryValueNear(*r, "stream.copy@33554432", 4200e9);
    ExpectEveryValueNear(*r, "stream.triad@33554432", 4200e9);
  }
}

TEST(StreamKernelTest, BuiltWithoutCompilerIsSkippedSayingSo) {
  StatusOr<RunReport> r =
      RunFake(GpuVendor::kNvidia, "", Small({"stream"}), false, /*image=*/"");
  ASSERT_TRUE(r.ok());
  EXPECT_NE(SkipReason(*r, "stream.copy@33554432").find("built without nvcc"), std::string::npos);
  EXPECT_NE(SkipReason(*r, "stream.triad@33554432").find("built without nvcc"),
            std::string::npos);
  // The library-only benchmarks still ran.
  EXPECT_NE(Find(*r, "stream.memcpy@33554432"), nullptr);
  r = RunFake(GpuVendor::kAmd, "", Small({"stream"}), false, "");
  ASSERT_TRUE(r.ok());
  EXPECT_NE(SkipReason(*r, "stream.copy@33554432").find("built without hipcc"),
            std::string::npos);
}

TEST(StreamKernelTest, BadImageMissingKernelAndNoContextNameTheCall) {
  StatusOr<RunReport> r =
      RunFake(GpuVendor::kNvidia, "", Small({"stream"}), false, "not a module");
  ASSERT_TRUE(r.ok());
  std::string why = SkipReason(*r, "stream.copy@33554432");
  EXPECT_NE(why.find("cuModuleLoadData failed with error 200 (device kernel image is invalid)"),
            std::string::npos)
      << why;

  r = RunFake(GpuVendor::kAmd, "", Small({"stream"}), false,
              "gpufleet-fake-module:gpufleet_stream_copy");
  ASSERT_TRUE(r.ok());
  why = SkipReason(*r, "stream.triad@33554432");
  EXPECT_NE(why.find("hipModuleGetFunction(gpufleet_stream_triad) failed with error 500"),
            std::string::npos)
      << why;

  r = RunFake(GpuVendor::kNvidia, "fail = cuCtxGetCurrent\n", Small({"stream"}));
  ASSERT_TRUE(r.ok());
  why = SkipReason(*r, "stream.copy@33554432");
  EXPECT_NE(why.find("no current context on device 0"), std::string::npos) << why;

  r = RunFake(GpuVendor::kNvidia, "fail = cuLaunchKernel\n", Small({"stream"}));
  ASSERT_TRUE(r.ok());
  why = SkipReason(*r, "stream.triad@33554432");
  EXPECT_NE(why.find("cuLaunchKernel(triad) failed with error 1 (invalid argument)"),
            std::string::npos)
      << why;
}

TEST(StreamKernelTest, MissingDriverLibraryIsUnavailableNamingIt) {
  // Through KernelModule with a driver soname nothing provides: a bare
  // "libcuda.so.1" would match the fake already loaded in this process.
  vendor::VendorSpec spec = vendor::SpecFor(GpuVendor::kNvidia);
  spec.module_libraries = {"libgpufleet-no-such-driver.so.1"};
  StatusOr<std::unique_ptr<DynamicLibrary>> runtime =
      DynamicLibrary::OpenIn(FakeGpuDir(GpuVendor::kNvidia), spec.runtime_libraries);
  ASSERT_TRUE(runtime.ok()) << runtime.status().ToString();
  std::unique_ptr<KernelModule> m =
      KernelModule::Load(spec, FakeGpuDir(GpuVendor::kNvidia), **runtime, nullptr,
                         kFakeKernelImage);
  EXPECT_EQ(m->status().code(), StatusCode::kUnavailable);
  EXPECT_NE(m->status().message().find("libgpufleet-no-such-driver.so.1"), std::string::npos)
      << m->status().message();
  Status launch = m->Launch(0, StreamKernel::kCopy, 16, 0, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(launch.code(), StatusCode::kUnavailable);
}

TEST(StreamKernelTest, ModulesAreLoadedPerDevice) {
  // The fake rejects a launch of a module loaded on another device.
  ScriptFakeGpu(GpuVendor::kNvidia, "device_count = 2\nstream_kernel_gbps = 1000\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  for (int d : {0, 1, 0}) {
    ASSERT_TRUE(rt->SetDevice(d).ok());
    StatusOr<void*> buf = rt->DeviceAlloc(3 * 1024 * sizeof(double));
    ASSERT_TRUE(buf.ok());
    StatusOr<void*> s = rt->CreateStream();
    ASSERT_TRUE(s.ok());
    char* p = static_cast<char*>(*buf);
    Status st = rt->LaunchStreamKernel(StreamKernel::kTriad, 1024, 0.4, p, p + 8192, p + 16384, *s);
    EXPECT_TRUE(st.ok()) << "device " << d << ": " << st.ToString();
    EXPECT_TRUE(rt->DestroyStream(*s).ok());
    EXPECT_TRUE(rt->DeviceFree(*buf).ok());
  }
}

TEST(StreamKernelTest, EmbeddedImageIsAFatbinTheDriverLoadsWhenBuiltWithNvcc) {
  std::string_view image = EmbeddedStreamKernels(GpuVendor::kNvidia);
  if (image.empty()) {
    // Built without nvcc (CI): the runtime says so.
    ScriptFakeGpu(GpuVendor::kNvidia, "");
    StatusOr<std::unique_ptr<GpuRuntime>> rt =
        LoadGpuRuntime({GpuVendor::kNvidia, FakeGpuDir(GpuVendor::kNvidia)});
    ASSERT_TRUE(rt.ok());
    EXPECT_NE((*rt)->KernelStatus().message().find("built without nvcc"), std::string::npos);
    return;
  }
  // nvcc build: a fatbin (magic 0xBA55ED50) whose header size matches what
  // was embedded, with both kernels in it; the fake driver loads it and
  // finds them.
  ASSERT_GE(image.size(), 16u);
  uint32_t magic = 0;
  uint64_t payload = 0;
  uint16_t header = 0;
  std::memcpy(&magic, image.data(), 4);
  std::memcpy(&header, image.data() + 6, 2);
  std::memcpy(&payload, image.data() + 8, 8);
  EXPECT_EQ(magic, 0xBA55ED50u);
  EXPECT_EQ(header + payload, image.size());
  ScriptFakeGpu(GpuVendor::kNvidia, "stream_kernel_gbps = 2000\n");
  StatusOr<std::unique_ptr<GpuRuntime>> rt =
      LoadGpuRuntime({GpuVendor::kNvidia, FakeGpuDir(GpuVendor::kNvidia)});
  ASSERT_TRUE(rt.ok());
  ASSERT_TRUE((*rt)->KernelStatus().ok()) << (*rt)->KernelStatus().ToString();
  StatusOr<RunReport> r = RunBenchmarks(**rt, Small({"stream"}));
  ASSERT_TRUE(r.ok());
  ExpectEveryValueNear(*r, "stream.copy@33554432", 2000e9);
  ExpectEveryValueNear(*r, "stream.triad@33554432", 2000e9);
}

}  // namespace
}  // namespace gpufleet::canary
