// Sysman reads for one device entry. Ratios and power come from two samples
// of the same handle, timed with the counter's own timestamp (microseconds),
// never with the agent's clock: Sysman samples are not taken at call time.
#include <algorithm>
#include <map>

#include "collect/levelzero_view.h"

namespace gpufleet::levelzero {

namespace {

// Field-level result handling: a lost device aborts the whole read, the rest
// is counted and skipped.
class Reader {
 public:
  Reader(const Api& api, CounterHistory& history, DeviceReadings& out)
      : api_(api), history_(history), out_(out) {}

  const Api& api() const { return api_; }
  DeviceReadings& out() { return out_; }
  bool failed() const { return !fatal_.ok(); }
  Status fatal() const { return fatal_; }

  // True on success; otherwise counts or records the failure.
  bool Ok(ze_result_t r, const char* function) {
    if (r == ZE_RESULT_SUCCESS) return true;
    if (r == ZE_RESULT_ERROR_DEVICE_LOST) {
      if (fatal_.ok()) fatal_ = UnavailableError(std::string(function) + ": device lost (" +
                                                 ResultName(r) + ")");
    } else if (r == ZE_RESULT_ERROR_UNINITIALIZED) {
      if (fatal_.ok()) {
        fatal_ = FailedPreconditionError(std::string(function) + ": " + ResultName(r) +
                                         " (driver reloaded?); rediscover");
      }
    } else {
      out_.CountError(FieldErrorReason(r));
    }
    return false;
  }

  // True when `fn` is bound; counts "symbol_missing" once per kind otherwise.
  template <typename Fn>
  bool Have(Fn* fn) {
    if (fn != nullptr) return true;
    out_.CountError("symbol_missing");
    return false;
  }

  // Rate of a counter since the previous sample of `key`: delta value per
  // microsecond. nullopt on the first sample, a reset or a stalled clock.
  std::optional<double> Rate(const void* key, uint64_t value, uint64_t timestamp_us) {
    auto [it, inserted] = history_.try_emplace(key, CounterSample{value, timestamp_us});
    if (inserted) return std::nullopt;
    CounterSample prev = it->second;
    it->second = CounterSample{value, timestamp_us};
    if (timestamp_us <= prev.timestamp_us || value < prev.value) return std::nullopt;
    return static_cast<double>(value - prev.value) /
           static_cast<double>(timestamp_us - prev.timestamp_us);
  }

 private:
  const Api& api_;
  CounterHistory& history_;
  DeviceReadings& out_;
  Status fatal_;
};

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

void ReadEngines(Reader& r, const View& view) {
  if (view.engines.empty() || !r.Have(r.api().zesEngineGetActivity)) return;
  std::map<zes_engine_group_t, std::vector<double>> by_group;
  for (const EngineHandle& e : view.engines) {
    zes_engine_stats_t stats{};
    if (!r.Ok(r.api().zesEngineGetActivity(e.handle, &stats), "zesEngineGetActivity")) {
      if (r.failed()) return;
      continue;
    }
    auto rate = r.Rate(e.handle, stats.activeTime, stats.timestamp);
    if (rate) by_group[e.group].push_back(std::clamp(*rate, 0.0, 1.0));
  }
  auto group = [&](zes_engine_group_t g) -> std::optional<double> {
    auto it = by_group.find(g);
    if (it == by_group.end()) return std::nullopt;
    return Mean(it->second);
  };
  // COMPUTE_ALL on compute parts, RENDER_ALL where render engines run compute.
  std::optional<double> compute = group(ZES_ENGINE_GROUP_COMPUTE_ALL);
  if (!compute) compute = group(ZES_ENGINE_GROUP_RENDER_ALL);
  std::optional<double> all = group(ZES_ENGINE_GROUP_ALL);
  if (!all) all = compute;
  if (all) r.out().Add("engine_all_utilization_ratio", *all);
  if (compute) r.out().Add("engine_compute_utilization_ratio", *compute);
  if (auto v = group(ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE)) {
    r.out().Add("engine_media_decode_utilization_ratio", *v);
  }
  if (auto v = group(ZES_ENGINE_GROUP_MEDIA_ENCODE_SINGLE)) {
    r.out().Add("engine_media_encode_utilization_ratio", *v);
  }
}

void ReadPower(Reader& r, const View& view) {
  if (view.power.empty() || !r.Have(r.api().zesPowerGetEnergyCounter)) return;
  double energy_uj = 0;
  double power_w = 0;
  bool all_rates = true;
  size_t read = 0;
  for (zes_pwr_handle_t h : view.power) {
    zes_power_energy_counter_t c{};
    if (!r.Ok(r.api().zesPowerGetEnergyCounter(h, &c), "zesPowerGetEnergyCounter")) {
      if (r.failed()) return;
      continue;
    }
    ++read;
    energy_uj += static_cast<double>(c.energy);
    auto rate = r.Rate(h, c.energy, c.timestamp);  // uJ per us == W
    if (rate) {
      power_w += *rate;
    } else {
      all_rates = false;
    }
  }
  // A sum over tiles is only a counter if every tile answered.
  if (read == view.power.size()) {
    r.out().Add("energy_microjoules", energy_uj);
    if (all_rates) r.out().Add("power_watts", power_w);
  }

  if (r.api().zesPowerGetLimits == nullptr) return;
  double limit_mw = 0;
  for (zes_pwr_handle_t h : view.power) {
    zes_power_sustained_limit_t sustained{};
    ze_result_t res = r.api().zesPowerGetLimits(h, &sustained, nullptr, nullptr);
    if (!r.Ok(res, "zesPowerGetLimits")) {
      if (r.failed()) return;
      continue;
    }
    if (sustained.enabled && sustained.power > 0) limit_mw += sustained.power;
  }
  if (limit_mw > 0) r.out().Add("power_limit_milliwatts", limit_mw);
}

void ReadMemory(Reader& r, const View& view) {
  if (view.memory.empty()) return;
  if (r.Have(r.api().zesMemoryGetState)) {
    double size = 0;
    double used = 0;
    size_t read = 0;
    for (zes_mem_handle_t h : view.memory) {
      zes_mem_state_t state{};
      state.stype = ZES_STRUCTURE_TYPE_MEM_STATE;
      if (!r.Ok(r.api().zesMemoryGetState(h, &state), "zesMemoryGetState")) {
        if (r.failed()) return;
        continue;
      }
      ++read;
      size += static_cast<double>(state.size);
      used += static_cast<double>(state.size >= state.free ? state.size - state.free : 0);
    }
    if (read == view.memory.size()) {
      r.out().Add("memory_size_bytes", size);
      r.out().Add("memory_used_bytes", used);
    }
  }
  if (!r.Have(r.api().zesMemoryGetBandwidth)) return;
  double bytes_per_s = 0;
  double max_bytes_per_s = 0;
  bool all_rates = true;
  for (zes_mem_handle_t h : view.memory) {
    zes_mem_bandwidth_t bw{};
    if (!r.Ok(r.api().zesMemoryGetBandwidth(h, &bw), "zesMemoryGetBandwidth")) {
      if (r.failed()) return;
      all_rates = false;
      continue;
    }
    max_bytes_per_s += static_cast<double>(bw.maxBandwidth);
    auto rate = r.Rate(h, bw.readCounter + bw.writeCounter, bw.timestamp);
    if (rate) {
      bytes_per_s += *rate * 1e6;
    } else {
      all_rates = false;
    }
  }
  if (all_rates && max_bytes_per_s > 0) {
    r.out().Add("memory_bandwidth_ratio", bytes_per_s / max_bytes_per_s);
  }
}

const char* SensorReading(zes_temp_sensors_t s) {
  switch (s) {
    case ZES_TEMP_SENSORS_GPU:
      return "temperature_gpu_celsius";
    case ZES_TEMP_SENSORS_MEMORY:
      return "temperature_memory_celsius";
    case ZES_TEMP_SENSORS_GLOBAL:
      return "temperature_global_celsius";
    default:
      return nullptr;  // *_MIN sensors: a minimum over the die is not a reading we expose
  }
}

void ReadTemperatures(Reader& r, const View& view) {
  if (view.temperatures.empty() || !r.Have(r.api().zesTemperatureGetState)) return;
  std::map<std::string, double> hottest;  // tiles aggregate to their maximum
  for (const TempHandle& t : view.temperatures) {
    const char* name = SensorReading(t.sensor);
    if (name == nullptr) continue;
    double celsius = 0;
    if (!r.Ok(r.api().zesTemperatureGetState(t.handle, &celsius), "zesTemperatureGetState")) {
      if (r.failed()) return;
      continue;
    }
    auto [it, inserted] = hottest.try_emplace(name, celsius);
    if (!inserted) it->second = std::max(it->second, celsius);
  }
  for (const auto& [name, celsius] : hottest) r.out().Add(name, celsius);
}

void ReadFrequencies(Reader& r, const View& view) {
  if (view.frequencies.empty() || !r.Have(r.api().zesFrequencyGetState)) return;
  std::map<zes_freq_domain_t, std::vector<double>> actual;
  zes_freq_throttle_reason_flags_t reasons = 0;
  bool have_gpu_state = false;
  for (const FreqHandle& f : view.frequencies) {
    zes_freq_state_t state{};
    state.stype = ZES_STRUCTURE_TYPE_FREQ_STATE;
    if (!r.Ok(r.api().zesFrequencyGetState(f.handle, &state), "zesFrequencyGetState")) {
      if (r.failed()) return;
      continue;
    }
    // Sysman reports -1 when the actual frequency is unknown.
    if (state.actual >= 0) {
      actual[f.domain].push_back(state.actual);
    } else {
      r.out().CountError("not_supported");
    }
    if (f.domain == ZES_FREQ_DOMAIN_GPU) {
      reasons |= state.throttleReasons;
      have_gpu_state = true;
    }
  }
  for (const auto& [domain, values] : actual) {
    if (domain == ZES_FREQ_DOMAIN_GPU) r.out().Add("frequency_gpu_mhz", Mean(values));
    if (domain == ZES_FREQ_DOMAIN_MEMORY) r.out().Add("frequency_memory_mhz", Mean(values));
  }
  if (have_gpu_state) {
    constexpr zes_freq_throttle_reason_flags_t kPower =
        ZES_FREQ_THROTTLE_REASON_FLAG_AVE_PWR_CAP | ZES_FREQ_THROTTLE_REASON_FLAG_BURST_PWR_CAP |
        ZES_FREQ_THROTTLE_REASON_FLAG_CURRENT_LIMIT | ZES_FREQ_THROTTLE_REASON_FLAG_PSU_ALERT;
    r.out().Add("throttle_power_active", (reasons & kPower) != 0 ? 1 : 0);
    r.out().Add("throttle_thermal_active",
                (reasons & ZES_FREQ_THROTTLE_REASON_FLAG_THERMAL_LIMIT) != 0 ? 1 : 0);
  }
}

constexpr const char* kRasCategories[ZES_MAX_RAS_ERROR_CATEGORY_COUNT] = {
    "reset", "programming", "driver", "compute", "non_compute", "cache", "display"};

void ReadRas(Reader& r, const View& view) {
  if (view.ras.empty() || !r.Have(r.api().zesRasGetState)) return;
  std::map<std::string, double> totals;
  for (const RasHandle& h : view.ras) {
    zes_ras_state_t state{};
    state.stype = ZES_STRUCTURE_TYPE_RAS_STATE;
    if (!r.Ok(r.api().zesRasGetState(h.handle, /*clear=*/0, &state), "zesRasGetState")) {
      if (r.failed()) return;
      continue;
    }
    const char* severity =
        h.type == ZES_RAS_ERROR_TYPE_CORRECTABLE ? "ras_correctable_" : "ras_uncorrectable_";
    for (int c = 0; c < ZES_MAX_RAS_ERROR_CATEGORY_COUNT; ++c) {
      totals[std::string(severity) + kRasCategories[c]] += static_cast<double>(state.category[c]);
    }
  }
  for (const auto& [name, count] : totals) r.out().Add(name, count);
}

void ReadPci(Reader& r, const View& view) {
  if (!view.pci_bandwidth && !view.pci_replay) return;
  if (!r.Have(r.api().zesDevicePciGetStats)) return;
  zes_pci_stats_t stats{};
  if (!r.Ok(r.api().zesDevicePciGetStats(view.device, &stats), "zesDevicePciGetStats")) return;
  if (view.pci_bandwidth) {
    r.out().Add("pci_rx_bytes", static_cast<double>(stats.rxCounter));
    r.out().Add("pci_tx_bytes", static_cast<double>(stats.txCounter));
  }
  if (view.pci_replay) r.out().Add("pci_replays", static_cast<double>(stats.replayCounter));
}

void ReadFabric(Reader& r, const View& view) {
  if (view.ports.empty() || !r.Have(r.api().zesFabricPortGetThroughput)) return;
  for (const PortHandle& p : view.ports) {
    zes_fabric_port_throughput_t t{};
    if (!r.Ok(r.api().zesFabricPortGetThroughput(p.handle, &t), "zesFabricPortGetThroughput")) {
      if (r.failed()) return;
      continue;
    }
    Labels labels;
    labels.Set("link", p.link);
    r.out().Add("fabric_rx_bytes", static_cast<double>(t.rxCounter), labels);
    r.out().Add("fabric_tx_bytes", static_cast<double>(t.txCounter), std::move(labels));
  }
}

}  // namespace

std::string FieldErrorReason(ze_result_t result) {
  switch (result) {
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS:
      return "permission";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
      return "not_supported";
    default:
      return "error";
  }
}

Status ReadView(const Api& api, const View& view, CounterHistory& history, DeviceReadings& out) {
  for (const std::string& reason : view.enum_errors) out.CountError(reason);
  Reader r(api, history, out);
  using ReadFn = void (*)(Reader&, const View&);
  for (ReadFn fn : {ReadEngines, ReadPower, ReadMemory, ReadTemperatures, ReadFrequencies, ReadRas,
                    ReadPci, ReadFabric}) {
    fn(r, view);
    if (r.failed()) return r.fatal();
  }
  return OkStatus();
}

}  // namespace gpufleet::levelzero
