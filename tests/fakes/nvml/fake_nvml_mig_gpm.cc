// Fake libnvidia-ml, part 2: processes, events, MIG and GPM (see fake_nvml.cc).
#include <algorithm>
#include <vector>

#include "fake_nvml_model.h"

using namespace fake_nvml;  // NOLINT: a fake of this very ABI

extern "C" {

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* count,
                                                     nvmlProcessInfo_t* infos) {
  FAKE_ENTER(d);
  std::vector<FakeProcess> procs = Processes(s, idx, d->mig_slot);
  if (*count < procs.size() || (infos == nullptr && !procs.empty())) {
    *count = static_cast<unsigned>(procs.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = static_cast<unsigned>(procs.size());
  for (size_t i = 0; i < procs.size(); ++i) {
    infos[i] = {procs[i].pid, procs[i].memory_bytes, procs[i].gpu_instance_id,
                procs[i].gpu_instance_id == 0xFFFFFFFFu ? 0xFFFFFFFFu : 0u};
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d,
                                             nvmlProcessUtilizationSample_t* samples,
                                             unsigned int* count, unsigned long long last_seen) {
  FAKE_ENTER(d);
  if (InMig(s, idx) || d->mig_slot >= 0) return NVML_ERROR_NOT_SUPPORTED;
  // One sample per process per call, stamped now (microseconds).
  auto now_us = static_cast<unsigned long long>(Seconds(s) * 1e6) + 1;
  if (now_us <= last_seen) return NVML_ERROR_NOT_FOUND;
  std::vector<FakeProcess> procs = Processes(s, idx, -1);
  if (samples == nullptr || *count < procs.size()) {
    *count = static_cast<unsigned>(procs.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = static_cast<unsigned>(procs.size());
  for (size_t i = 0; i < procs.size(); ++i) {
    samples[i] = {procs[i].pid, now_us, procs[i].sm_pct, procs[i].sm_pct / 2, 0, 0};
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  FAKE_ENTER_SYSTEM();
  *set = new nvmlEventSet_st();
  s.sets.push_back(*set);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types,
                                      nvmlEventSet_t set) {
  FAKE_ENTER(d);
  if (set == nullptr || d->mig_slot >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  if ((types & kNvmlEventTypeXidCriticalError) != 0) set->devices.insert(idx);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data,
                                 unsigned int timeout_ms) {
  State& s = GetState();
  std::unique_lock<std::mutex> lock(s.mu);
  if (nvmlReturn_t rc = EnterSystem(s); rc != NVML_SUCCESS) return rc;
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (set->queue.empty() && timeout_ms > 0) {
    s.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                  [set] { return !set->queue.empty(); });
  }
  if (set->queue.empty()) return NVML_ERROR_TIMEOUT;
  *data = set->queue.front();
  set->queue.pop_front();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = std::find(s.sets.begin(), s.sets.end(), set);
  if (it == s.sets.end()) return NVML_ERROR_INVALID_ARGUMENT;
  s.sets.erase(it);
  delete set;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int* current, unsigned int* pending) {
  FAKE_ENTER(d);
  if (d->mig_slot >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  *current = *pending = InMig(s, idx) ? kNvmlDeviceMigEnable : 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int* count) {
  FAKE_ENTER(d);
  *count = fake_nvml::kMaxMigDevices;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index,
                                                 nvmlDevice_t* mig) {
  FAKE_ENTER(d);
  if (d->mig_slot >= 0 || !InMig(s, idx)) return NVML_ERROR_INVALID_ARGUMENT;
  if (index >= static_cast<unsigned>(kMigSlots)) return NVML_ERROR_NOT_FOUND;
  *mig = fake_nvml::MigHandle(idx, static_cast<int>(index));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int* id) {
  FAKE_ENTER(d);
  if (d->mig_slot < 0) return NVML_ERROR_INVALID_ARGUMENT;
  *id = kMigProfiles[d->mig_slot].gpu_instance_id;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t* a) {
  FAKE_ENTER(d);
  *a = {};
  bool mig = d->mig_slot >= 0;
  a->multiprocessorCount = mig ? 16 * kMigProfiles[d->mig_slot].slices + 4 : 132;
  a->gpuInstanceSliceCount = mig ? kMigProfiles[d->mig_slot].slices : 7;
  a->computeInstanceSliceCount = a->gpuInstanceSliceCount;
  a->memorySizeMB = mig ? kMigProfiles[d->mig_slot].memory_mb : kH100TotalBytes / kMiB;
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_PARTIAL
nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t d, nvmlGpmSupport_t* support) {
  FAKE_ENTER(d);
  if (support->version != kNvmlGpmSupportVersion) return NVML_ERROR_INVALID_ARGUMENT;
  support->isSupportedDevice = 1;  // Hopper
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* sample) {
  FAKE_ENTER_SYSTEM();
  *sample = new nvmlGpmSample_st();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
  delete sample;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t d, nvmlGpmSample_t sample) {
  FAKE_ENTER(d);
  if (sample == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *sample = {true, idx, d->mig_slot, s.dev[idx].tick};
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t d, unsigned int gpu_instance_id,
                                 nvmlGpmSample_t sample) {
  FAKE_ENTER(d);
  if (sample == nullptr || !InMig(s, idx)) return NVML_ERROR_INVALID_ARGUMENT;
  int slot = MigSlotOfInstance(gpu_instance_id);
  if (slot < 0) return NVML_ERROR_NOT_FOUND;
  *sample = {true, idx, slot, s.dev[idx].tick};
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* request) {
  if (request == nullptr || request->sample1 == nullptr || request->sample2 == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const nvmlGpmSample_st a = *request->sample1;
  const nvmlGpmSample_st b = *request->sample2;
  if (request->version != kNvmlGpmMetricsGetVersion || !a.filled || !b.filled ||
      a.index != b.index || a.mig_slot != b.mig_slot || b.tick <= a.tick ||
      request->numMetrics > kNvmlGpmMetricsArraySize) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  FAKE_ENTER(fake_nvml::GpuHandle(a.index));
  double share = a.mig_slot < 0 ? 1.0 : (a.mig_slot == 0 ? 0.6 : 0.2);
  double base = UtilGpu(s, idx) * share;
  for (unsigned i = 0; i < request->numMetrics; ++i) {
    nvmlGpmMetric_t& m = request->metrics[i];
    m.nvmlReturn = NVML_SUCCESS;
    switch (m.metricId) {
      case NVML_GPM_METRIC_GRAPHICS_UTIL:
        m.value = 0.95 * base;
        break;
      case NVML_GPM_METRIC_SM_UTIL:
        m.value = 0.8 * base;
        break;
      case NVML_GPM_METRIC_SM_OCCUPANCY:
        m.value = 0.35 * base;
        break;
      case NVML_GPM_METRIC_ANY_TENSOR_UTIL:
        m.value = 0.45 * base;
        break;
      case NVML_GPM_METRIC_DRAM_BW_UTIL:
        m.value = 0.5 * base;
        break;
      default:
        m.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        break;
    }
  }
  return NVML_SUCCESS;
}
#endif

}  // extern "C"
