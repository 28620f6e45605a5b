// Test helpers for the canary runner tests: script the fake GPU stacks
// (tests/fakes/gpu/) through their config files and load them through the
// real GpuRuntime loading code.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

#include "canary/gpu_runtime.h"
#include "core/file_util.h"

namespace gpufleet::canary {

inline std::string FakeGpuDir(GpuVendor v, bool partial = false) {
  return std::string(FAKE_GPU_DIR) + (v == GpuVendor::kAmd ? "/hip" : "/cuda") +
         (partial ? "/partial" : "");
}

// Writes `config` to a new file and points the vendor's fake at it (a new
// path makes the fake reload and reset its clocks).
inline void ScriptFakeGpu(GpuVendor v, const std::string& config) {
  static std::atomic<int> n{0};
  std::string path = ::testing::TempDir() + "/fake_gpu_" + std::to_string(::getpid()) + "_" +
                     std::to_string(n++) + ".conf";
  ASSERT_TRUE(WriteStringToFile(path, config).ok());
  ::setenv(v == GpuVendor::kAmd ? "GPUFLEET_FAKE_HIP_CONFIG" : "GPUFLEET_FAKE_CUDA_CONFIG",
           path.c_str(), 1);
}

// A kernel image the fake driver accepts (tests/fakes/gpu/fake_gpu_control.h):
// tests cannot build the real fatbin, and must not depend on whether this
// build found nvcc.
inline constexpr char kFakeKernelImage[] =
    "gpufleet-fake-module:gpufleet_stream_copy,gpufleet_stream_triad";

inline std::unique_ptr<GpuRuntime> LoadFake(GpuVendor v, bool partial = false,
                                            const std::string& kernel_image = kFakeKernelImage) {
  StatusOr<std::unique_ptr<GpuRuntime>> rt =
      LoadGpuRuntime({v, FakeGpuDir(v, partial)}, kernel_image);
  EXPECT_TRUE(rt.ok()) << rt.status().ToString();
  return rt.ok() ? std::move(rt).value() : nullptr;
}

}  // namespace gpufleet::canary
