// Fake GPU stacks for the canary runners: libcudart.so.12 + libcublas.so.12 +
// libnccl.so.2 (built with FAKE_GPU_CUDA) and libamdhip64.so.6 +
// libhipblas.so.2 + librccl.so.1 (FAKE_GPU_HIP), from the same sources. They
// export the vendor C symbols that src/canary/gpu_vendor_api.h declares, with
// the vendors' enum values, so the real dlopen/dlsym code loads them.
//
// No memory is copied and no math is done: each device has a virtual clock
// that every queued operation advances by (work / scripted rate), and events
// read that clock. So a test scripts "this GPU copies at 4000 GB/s" and gets
// exactly that figure back (times a deterministic jitter), with no sleeping
// and no timing flakiness. Allocation is the exception: cudaMalloc/hipMalloc
// really sleep `alloc_us`, because the runner times them with the host clock.
//
// Scripting: a file named by GPUFLEET_FAKE_CUDA_CONFIG / GPUFLEET_FAKE_HIP_CONFIG
// (tests/fakes/common/fake_config.h), re-read when it changes; each (re)load
// resets the clocks. Keys and defaults (an H200-like / MI300X-like GPU):
//   device_count = 2
//   name = NVIDIA H200                  # AMD: AMD Instinct MI300X OAM
//   memory_gbps = 4000                  # device memory, bytes moved per second / 1e9
//   h2d_gbps = 55
//   d2h_gbps = 55
//   gemm_tflops.bf16 = 750              # also .fp16, .fp32 (fp32 default 50)
//   allreduce_busbw_gbps = 350
//   alloc_us = 0                        # each malloc sleeps this long
//   slowdown = 1.0                      # every device duration is multiplied by it
//   slowdown.<d> = 1.0                  # and device d's by this too
//   jitter = 0.002                      # relative, deterministic (seeded per load)
//   runtime_version = 12040             # AMD: 60241134 (6.2)
//   fail = cudaMemcpyAsync              # these entry points return an error
//   cc_major = 9, cc_minor = 0          # compute capability (AMD: 9.4 = gfx942)
//   gemm_tflops.fp8 = 1500              # cublasLtMatmul / hipblasLtMatmul with fp8
//   fp8_no_algorithm = 0                # 1: the BLASLt heuristic finds nothing
//   stream_kernel_gbps = memory_gbps    # gpufleet's copy/triad kernels
//
// Kernel modules (fake libcuda.so.1; HIP: in libamdhip64): an image is either
// a real fatbin (magic 0xBA55ED50, sized by its header) or the text
// "gpufleet-fake-module:" + comma-separated kernel names + NUL; a kernel is
// found when its name occurs in the image. Launches of gpufleet_stream_copy
// (a, c, n) and gpufleet_stream_triad (a, b, c, scalar, n) advance the clock
// by 2 or 3 * n * 8 bytes / stream_kernel_gbps. A module belongs to the device
// current when it was loaded; launching it elsewhere is an invalid handle.
//
// Variants (build options of the same sources):
//   FAKE_GPU_NO_GEMM: the BLAS library lacks cublasGemmEx / hipblasGemmEx_v2.
// partial/ has no BLASLt and no libcuda.so.1.
//
// Thread safety: every entry point takes one lock.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// Exported by the fake runtime for its BLAS and collective libraries (and for
// tests, through dlsym). `Fake` + Cuda / Hip + `_` + name.
// Adds `seconds` (before slowdown and jitter) to the clock of the device
// that owns `stream` (null: the current device).
void FakeCuda_Advance(void* stream, double seconds);
void FakeHip_Advance(void* stream, double seconds);
// A collective over devices 0..n-1: every clock moves to the latest one plus
// `seconds` (before slowdown and jitter).
void FakeCuda_Collective(int n, double seconds);
void FakeHip_Collective(int n, double seconds);
// A scripted number (see the keys above); `fallback` when absent.
double FakeCuda_Number(const char* key, double fallback);
double FakeHip_Number(const char* key, double fallback);
// The runtime's current device.
int FakeCuda_CurrentDevice(void);
int FakeHip_CurrentDevice(void);
// Whether `entry_point` is listed under `fail`.
int FakeCuda_ShouldFail(const char* entry_point);
int FakeHip_ShouldFail(const char* entry_point);

#ifdef __cplusplus
}
#endif
