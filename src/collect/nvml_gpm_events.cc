// Stateful NVML reading families: GPM (two samples per metric), Xid events
// (an event set polled without waiting) and per-process readings.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collect/nvml_device.h"

namespace gpufleet {

using nvml::NVML_ERROR_INSUFFICIENT_SIZE;
using nvml::NVML_ERROR_NOT_FOUND;
using nvml::NVML_ERROR_TIMEOUT;
using nvml::NVML_SUCCESS;
using nvml::nvmlReturn_t;

NvmlDevice::~NvmlDevice() {
  if (events != nullptr && api->EventSetFree != nullptr) api->EventSetFree(events);
  if (api->GpmSampleFree != nullptr) {
    if (gpm_prev != nullptr) api->GpmSampleFree(gpm_prev);
    if (gpm_cur != nullptr) api->GpmSampleFree(gpm_cur);
  }
}

void SetUpXidEvents(NvmlDevice& d) {
  const NvmlApi& api = *d.api;
  if (api.EventSetCreate == nullptr || api.DeviceRegisterEvents == nullptr ||
      api.EventSetWait == nullptr || api.EventSetFree == nullptr) {
    return;
  }
  nvml::nvmlEventSet_t set = nullptr;
  if (api.EventSetCreate(&set) != NVML_SUCCESS || set == nullptr) return;
  if (api.DeviceRegisterEvents(d.handle, nvml::kNvmlEventTypeXidCriticalError, set) !=
      NVML_SUCCESS) {
    api.EventSetFree(set);
    return;
  }
  d.events = set;
}

namespace {

// Pops every queued event without waiting (timeout 0) into d.xids. Returns
// the code that ended the loop: TIMEOUT when the queue is empty.
nvmlReturn_t PollXids(NvmlDevice& d) {
  // Bounded so a library that keeps returning events cannot hold us here.
  constexpr int kMaxEventsPerPoll = 1024;
  nvmlReturn_t rc = NVML_ERROR_TIMEOUT;
  std::lock_guard<std::mutex> lock(d.xids->mu);
  for (int i = 0; i < kMaxEventsPerPoll; ++i) {
    nvml::nvmlEventData_t e{};
    rc = d.api->EventSetWait(d.events, &e, 0);
    if (rc != NVML_SUCCESS) break;
    if ((e.eventType & nvml::kNvmlEventTypeXidCriticalError) != 0) ++d.xids->by_code[e.eventData];
  }
  return rc;
}

}  // namespace

void DrainXidEvents(NvmlDevice& d) {
  if (d.events != nullptr && d.xids != nullptr) PollXids(d);
}

void ReadXidEvents(NvmlDevice& d, NvmlCallScope& s) {
  if (d.is_mig || d.xids == nullptr) return;
  if (d.events == nullptr) {
    // Either the library lacks the event API or the device refused
    // registration at discovery; only the former is worth counting.
    s.Has(s.api().EventSetWait);
  } else {
    nvmlReturn_t rc = PollXids(d);
    if (rc != NVML_ERROR_TIMEOUT && !s.Ok(rc, "nvmlEventSetWait")) {
      if (s.failed()) return;
    }
  }
  // A running count per code, so the series is a true counter (unlike
  // DCGM's "last Xid" gauge). Codes never seen have no series.
  std::lock_guard<std::mutex> lock(d.xids->mu);
  for (const auto& [code, n] : d.xids->by_code) {
    s.out().Add("xid_errors_total", static_cast<double>(n), Labels{{"code", std::to_string(code)}});
  }
}

void ReadProcesses(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  // A GPU in MIG mode: its processes are reported by its MIG instances.
  if (d.mig_enabled) return;
  if (s.Has(api.DeviceGetComputeRunningProcesses)) {
    std::vector<nvml::nvmlProcessInfo_t> procs(64);
    unsigned count = static_cast<unsigned>(procs.size());
    nvmlReturn_t rc = api.DeviceGetComputeRunningProcesses(d.handle, &count, procs.data());
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
      // Processes may start between the calls; leave headroom.
      procs.resize(count + 16);
      count = static_cast<unsigned>(procs.size());
      rc = api.DeviceGetComputeRunningProcesses(d.handle, &count, procs.data());
    }
    if (s.Ok(rc, "nvmlDeviceGetComputeRunningProcesses")) {
      count = std::min<unsigned>(count, static_cast<unsigned>(procs.size()));
      for (unsigned i = 0; i < count; ++i) {
        // Without permission NVML reports NVML_VALUE_NOT_AVAILABLE.
        if (procs[i].usedGpuMemory == nvml::kNvmlValueNotAvailable) {
          s.out().CountError("not_supported");
          continue;
        }
        s.out().Add("process_used_memory_bytes", static_cast<double>(procs[i].usedGpuMemory),
                    Labels{{"pid", std::to_string(procs[i].pid)}});
      }
    }
    if (s.failed()) return;
  }
  // Per-process utilization is not supported on MIG instances.
  if (d.is_mig || !s.Has(api.DeviceGetProcessUtilization)) return;
  unsigned count = 0;
  nvmlReturn_t rc =
      api.DeviceGetProcessUtilization(d.handle, nullptr, &count, d.last_process_sample_us);
  if (rc == NVML_ERROR_NOT_FOUND) return;  // no samples newer than the last seen
  if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS) {
    s.Ok(rc, "nvmlDeviceGetProcessUtilization");
    return;
  }
  if (count == 0) return;
  std::vector<nvml::nvmlProcessUtilizationSample_t> samples(count + 16);
  count = static_cast<unsigned>(samples.size());
  rc = api.DeviceGetProcessUtilization(d.handle, samples.data(), &count, d.last_process_sample_us);
  if (rc == NVML_ERROR_NOT_FOUND || !s.Ok(rc, "nvmlDeviceGetProcessUtilization")) return;
  count = std::min<unsigned>(count, static_cast<unsigned>(samples.size()));
  // The buffer may hold several samples per process: keep the newest.
  std::map<unsigned, const nvml::nvmlProcessUtilizationSample_t*> newest;
  for (unsigned i = 0; i < count; ++i) {
    const auto& p = samples[i];
    auto [it, inserted] = newest.emplace(p.pid, &p);
    if (!inserted && p.timeStamp > it->second->timeStamp) it->second = &p;
    d.last_process_sample_us = std::max(d.last_process_sample_us, p.timeStamp);
  }
  for (const auto& [pid, p] : newest) {
    s.out().Add("process_sm_utilization_pct", p->smUtil, Labels{{"pid", std::to_string(pid)}});
  }
}

void ReadGpm(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  bool has_get = d.is_mig ? api.GpmMigSampleGet != nullptr : api.GpmSampleGet != nullptr;
  bool complete = api.GpmQueryDeviceSupport != nullptr && api.GpmSampleAlloc != nullptr &&
                  api.GpmSampleFree != nullptr && api.GpmMetricsGet != nullptr && has_get;
  if (!s.Has(complete ? api.GpmMetricsGet : nullptr)) return;

  if (d.gpm_support < 0) {
    nvml::nvmlGpmSupport_t support{};
    support.version = nvml::kNvmlGpmSupportVersion;
    nvmlReturn_t rc = api.GpmQueryDeviceSupport(d.parent, &support);
    if (rc == NVML_SUCCESS) {
      d.gpm_support = support.isSupportedDevice != 0 ? 1 : 0;
    } else if (rc == nvml::NVML_ERROR_NOT_SUPPORTED) {
      d.gpm_support = 0;  // pre-Hopper: asked once, not counted every cycle
    } else {
      s.Ok(rc, "nvmlGpmQueryDeviceSupport");
      return;  // transient: ask again next time
    }
  }
  s.out().Add("gpm_available", d.gpm_support);
  if (d.gpm_support == 0) return;

  for (nvml::nvmlGpmSample_t* sample : {&d.gpm_prev, &d.gpm_cur}) {
    if (*sample == nullptr && !s.Ok(api.GpmSampleAlloc(sample), "nvmlGpmSampleAlloc")) return;
  }
  nvmlReturn_t rc = d.is_mig ? api.GpmMigSampleGet(d.parent, d.gpu_instance_id, d.gpm_cur)
                             : api.GpmSampleGet(d.handle, d.gpm_cur);
  if (!s.Ok(rc, d.is_mig ? "nvmlGpmMigSampleGet" : "nvmlGpmSampleGet")) {
    d.gpm_have_prev = false;
    return;
  }
  if (d.gpm_have_prev) {
    static constexpr struct {
      nvml::nvmlGpmMetricId_t id;
      const char* reading;
    } kMetrics[] = {
        {nvml::NVML_GPM_METRIC_GRAPHICS_UTIL, "gpm_graphics_util_pct"},
        {nvml::NVML_GPM_METRIC_SM_UTIL, "gpm_sm_util_pct"},
        {nvml::NVML_GPM_METRIC_SM_OCCUPANCY, "gpm_sm_occupancy_pct"},
        {nvml::NVML_GPM_METRIC_ANY_TENSOR_UTIL, "gpm_any_tensor_util_pct"},
        {nvml::NVML_GPM_METRIC_DRAM_BW_UTIL, "gpm_dram_bw_util_pct"},
    };
    // ~8 KB: heap, not the worker's stack.
    auto request = std::make_unique<nvml::nvmlGpmMetricsGet_t>();  // zeroed
    request->version = nvml::kNvmlGpmMetricsGetVersion;
    request->numMetrics = std::size(kMetrics);
    request->sample1 = d.gpm_prev;
    request->sample2 = d.gpm_cur;
    for (size_t i = 0; i < std::size(kMetrics); ++i) request->metrics[i].metricId = kMetrics[i].id;
    if (s.Ok(api.GpmMetricsGet(request.get()), "nvmlGpmMetricsGet")) {
      for (size_t i = 0; i < std::size(kMetrics); ++i) {
        const nvml::nvmlGpmMetric_t& m = request->metrics[i];
        if (s.Ok(m.nvmlReturn, "nvmlGpmMetricsGet(metric)"))
          s.out().Add(kMetrics[i].reading, m.value);
        if (s.failed()) return;
      }
    }
    if (s.failed()) return;
  }
  // The current sample becomes the baseline of the next collection.
  std::swap(d.gpm_prev, d.gpm_cur);
  d.gpm_have_prev = true;
}

}  // namespace gpufleet
