// Scripting interface of the fake libnvidia-ml (tests/fakes/nvml/). The fake
// exports NVML's C symbols with the ABI of src/collect/nvml_types.h and these
// control functions, all with C linkage.
//
// Default state: two "NVIDIA H100 80GB HBM3" GPUs; GPU 1 is in MIG mode with
// two GPU instances (id 2 = 3g.40gb, id 9 = 1g.10gb). Values are plausible
// for an H100 and move with time; counters only increase.
//
// Two ways to script it:
//  (a) in-process: dlopen the same path the collector loads (the loader then
//      shares one copy of the library) and call these through dlsym, e.g.
//      decltype(&FakeNvml_SetDeviceLost);
//  (b) a config file named by env GPUFLEET_FAKE_NVML_CONFIG, re-read
//      whenever its mtime or size changes, so a test can change the state
//      under a running `gpufleet agent`. Each (re)load first resets the
//      scripted state, then applies the file. `key = value` lines, '#'
//      comments:
//        device_count = 2        # 0..8
//        mig_device = 1          # GPU index in MIG mode, -1 for none
//        init_result = 18        # nvmlInit_v2 fails with this code
//        lost = 0,1              # GPUs that fell off the bus
//        hang_ms.1 = 30000       # every call on GPU 1 blocks this long
//        not_supported.0 = nvmlDeviceGetPowerUsage,field:82
//        xid.0 = 79,48           # Xid events queued once per (re)load
//        temperature_c.0 = 60000 # any other <name>.<gpu>: a value override
//      Override names: temperature_c, memory_temperature_c, power_mw,
//      utilization_gpu_pct, clock_event_reasons.
//
// Thread safety: every function is thread-safe. A hung call waits without
// holding the fake's lock, so other devices keep answering.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// Back to the default state; drops queued events and the init count.
void FakeNvml_Reset(void);
void FakeNvml_SetDeviceCount(int count);
// -1: no GPU in MIG mode.
void FakeNvml_SetMigDevice(int index);
// Lost GPUs answer NVML_ERROR_GPU_IS_LOST, even for their handle.
void FakeNvml_SetDeviceLost(int index, int lost);
// Calls on the GPU (and its MIG instances) block for `ms`; setting 0 wakes
// calls that are blocked now.
void FakeNvml_SetHangMs(int index, int ms);
// nvmlInit_v2 returns `rc` (0 = success), e.g. 18 = LIB_RM_VERSION_MISMATCH.
void FakeNvml_SetInitResult(int rc);
// Overrides one value (see the override names above).
void FakeNvml_SetValue(int index, const char* name, double value);
// `what` is an exported function name or "field:<id>"; it then answers
// NVML_ERROR_NOT_SUPPORTED for that GPU.
void FakeNvml_SetNotSupported(int index, const char* what, int on);
// Queues an Xid critical-error event for every event set registered on the GPU.
void FakeNvml_InjectXid(int index, unsigned long long xid);
// The driver was reloaded: every call answers NVML_ERROR_UNINITIALIZED until
// nvmlInit_v2 is called again.
void FakeNvml_SimulateDriverReload(void);
// Calls currently blocked by a hang.
int FakeNvml_HangingCalls(void);
// nvmlInit_v2 calls not yet matched by nvmlShutdown.
int FakeNvml_InitCount(void);

#ifdef __cplusplus
}
#endif
