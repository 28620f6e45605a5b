#include "agent/agent.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/strings.h"

namespace gpufleet {

namespace {

int64_t SteadyNowNs() { return RealClock::Get().MonotonicNs(); }

bool SampleLess(const Sample& a, const Sample& b) {
  if (a.name != b.name) return a.name < b.name;
  return a.labels < b.labels;
}

}  // namespace

std::string_view DownReason(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kUnavailable: return "lost";
    case StatusCode::kDeadlineExceeded: return "timeout";
    case StatusCode::kNotFound: return "library";
    case StatusCode::kPermissionDenied: return "permission";
    case StatusCode::kFailedPrecondition: return "driver_mismatch";
    default: return "error";
  }
}

struct Agent::DeviceSlot {
  Worker worker;
  // Written by the worker's task; read by the agent thread only after the
  // worker finished (Worker hands off under its mutex).
  DeviceReadings readings;
  Status status;
  bool pending = false;  // a call was started and its result not consumed
  bool down = false;
  int64_t down_since_ns = 0;
};

struct Agent::CollectorState {
  // Declared first so it is destroyed last: workers below call into it.
  std::unique_ptr<Collector> collector;
  std::string name;
  std::unique_ptr<Normalizer> normalizer;

  Worker discover_worker;
  StatusOr<std::vector<DeviceInfo>> discover_result{UnavailableError("not discovered")};
  bool discover_pending = false;
  bool ever_discovered = false;
  Status discover_status = UnavailableError("not discovered yet");
  int64_t next_discover_ns = 0;

  std::vector<DeviceInfo> devices;
  std::vector<Labels> labels;
  std::vector<std::unique_ptr<DeviceSlot>> slots;
  // Slots from an earlier discovery whose call is still stuck; kept alive
  // until it returns.
  std::vector<std::unique_ptr<DeviceSlot>> retired;
  // Devices that were down and then vanished from discovery (a GPU that fell
  // off the bus often stops enumerating): served as gpu_up{reason="lost"} 0
  // until they come back, so the loss stays visible.
  std::vector<Labels> missing;
};

Agent::Agent(AgentOptions options, std::vector<std::unique_ptr<Collector>> collectors,
             Clock& clock)
    : options_(std::move(options)), clock_(clock) {
  if (options_.collect_timeout_ns <= 0) {
    options_.collect_timeout_ns = std::min<int64_t>(options_.interval_ns * 8 / 10, 5 * kNsPerSecond);
  }
  for (auto& c : collectors) {
    auto cs = std::make_unique<CollectorState>();
    cs->name = std::string(c->source());
    StatusOr<MappingTable> table = options_.table_for ? options_.table_for(cs->name)
                                                      : MappingTable::ForSource(cs->name);
    if (table.ok()) {
      cs->normalizer = std::make_unique<Normalizer>(std::move(table).value());
    } else {
      std::fprintf(stderr, "gpufleet agent: %s: %s\n", cs->name.c_str(),
                   table.status().ToString().c_str());
    }
    cs->collector = std::move(c);
    collectors_.push_back(std::move(cs));
  }
  self_.Set("gpufleet_agent_build_info", Labels{{"version", "0.1.0"}}, 1);
  snapshot_ = std::make_shared<Snapshot>();
}

Agent::~Agent() { Stop(); }

void Agent::AddExtraSource(ExtraSource source) { extra_.push_back(std::move(source)); }

void Agent::CountError(const std::string& collector, std::string_view reason, uint64_t n) {
  if (n == 0) return;
  self_.Add("gpufleet_agent_collector_errors_total",
            Labels{{"collector", collector}, {"reason", std::string(reason)}},
            static_cast<double>(n));
}

void Agent::ApplyDiscovery(CollectorState& cs) {
  cs.discover_pending = false;
  cs.next_discover_ns = SteadyNowNs() + options_.rediscover_interval_ns;
  if (!cs.discover_result.ok()) {
    cs.discover_status = cs.discover_result.status();
    CountError(cs.name, "discover_failed");
    std::fprintf(stderr, "gpufleet agent: %s discovery failed: %s\n", cs.name.c_str(),
                 cs.discover_status.ToString().c_str());
    return;
  }
  cs.discover_status = OkStatus();
  cs.ever_discovered = true;
  cs.devices = std::move(cs.discover_result).value();
  cs.discover_result = UnavailableError("consumed");
  std::vector<Labels> old_labels = std::move(cs.labels);
  std::vector<bool> old_down;
  for (const auto& slot : cs.slots) old_down.push_back(slot->down);
  cs.labels.clear();
  for (const DeviceInfo& d : cs.devices) cs.labels.push_back(DeviceLabels(d, options_.node));
  for (size_t i = 0; i < old_labels.size(); ++i) {
    bool present = std::find(cs.labels.begin(), cs.labels.end(), old_labels[i]) != cs.labels.end();
    bool known = std::find(cs.missing.begin(), cs.missing.end(), old_labels[i]) != cs.missing.end();
    if (!present && !known && i < old_down.size() && old_down[i]) cs.missing.push_back(old_labels[i]);
  }
  std::erase_if(cs.missing, [&](const Labels& l) {
    return std::find(cs.labels.begin(), cs.labels.end(), l) != cs.labels.end();
  });
  for (auto& slot : cs.slots) {
    if (slot->worker.busy()) cs.retired.push_back(std::move(slot));
  }
  cs.slots.clear();
  for (size_t i = 0; i < cs.devices.size(); ++i) cs.slots.push_back(std::make_unique<DeviceSlot>());
}

bool Agent::EnsureDiscovered(CollectorState& cs, int64_t mono_ns) {
  // Reap retired slots whose stuck call finally returned.
  std::erase_if(cs.retired, [](const std::unique_ptr<DeviceSlot>& s) { return !s->worker.busy(); });

  if (cs.discover_pending) {
    if (!cs.discover_worker.WaitUntil(mono_ns)) return false;  // still running from earlier
    ApplyDiscovery(cs);
    return true;
  }
  bool any_down = std::any_of(cs.slots.begin(), cs.slots.end(),
                              [](const auto& s) { return s->down; });
  bool want = !cs.ever_discovered || !cs.discover_status.ok() || any_down || !cs.missing.empty();
  if (!want || mono_ns < cs.next_discover_ns) return false;
  // Discovery never overlaps device calls (Collector contract).
  for (const auto& s : cs.slots) {
    if (s->worker.busy()) return false;
  }
  if (!cs.retired.empty()) return false;
  CollectorState* csp = &cs;
  cs.discover_worker.Start([csp] { csp->discover_result = csp->collector->Discover(); });
  cs.discover_pending = true;
  if (!cs.discover_worker.WaitUntil(SteadyNowNs() + options_.discover_timeout_ns)) {
    CountError(cs.name, "timeout");
    cs.next_discover_ns = mono_ns + options_.rediscover_interval_ns;
    return false;
  }
  ApplyDiscovery(cs);
  return true;
}

void Agent::CycleCollector(CollectorState& cs, int64_t wall_ns, std::vector<Sample>& out, int& up,
                           int& discovered) {
  int64_t start = SteadyNowNs();
  EnsureDiscovered(cs, start);
  discovered += static_cast<int>(cs.devices.size());

  auto emit_info = [&](size_t i) {
    const DeviceInfo& d = cs.devices[i];
    Labels l = cs.labels[i];
    l.Set("driver_version", d.driver_version);
    l.Set("runtime_version", d.runtime_version);
    l.Set("arch", d.arch);
    l.Set("source", cs.name);
    out.push_back(Sample{"gpu_info", std::move(l), 1, wall_ns});
  };
  auto emit_up = [&](size_t i, const Status& st) {
    Labels l = cs.labels[i];
    l.Set("reason", DownReason(st));
    out.push_back(Sample{"gpu_up", std::move(l), st.ok() ? 1.0 : 0.0, wall_ns});
  };
  auto mark_down = [&](size_t i, const Status& st) {
    DeviceSlot& slot = *cs.slots[i];
    if (!slot.down) {
      slot.down = true;
      slot.down_since_ns = start;
      std::fprintf(stderr, "gpufleet agent: %s device %zu (%s) down: %s\n", cs.name.c_str(), i,
                   cs.devices[i].uuid.c_str(), st.ToString().c_str());
      if (cs.normalizer) cs.normalizer->ResetDevice(cs.devices[i].uuid);
    }
    CountError(cs.name, DownReason(st));
    emit_up(i, st);
  };

  for (const Labels& l : cs.missing) {
    Labels down = l;
    down.Set("reason", "lost");
    out.push_back(Sample{"gpu_up", std::move(down), 0, wall_ns});
    CountError(cs.name, "lost");
  }

  if (!cs.discover_status.ok() && cs.ever_discovered) {
    // The library stopped working as a whole (e.g. driver upgraded under us):
    // every known device is down for the same reason; values are not served.
    for (size_t i = 0; i < cs.devices.size(); ++i) {
      emit_info(i);
      mark_down(i, cs.discover_status);
    }
    return;
  }

  int64_t deadline = start + options_.collect_timeout_ns;
  std::vector<size_t> started;
  for (size_t i = 0; i < cs.slots.size(); ++i) {
    DeviceSlot& slot = *cs.slots[i];
    if (slot.pending) {
      if (slot.worker.busy()) continue;  // still stuck in an earlier call
      slot.pending = false;              // a late result: stale, dropped
    }
    slot.readings = DeviceReadings();
    slot.status = OkStatus();
    DeviceSlot* sp = &slot;
    Collector* c = cs.collector.get();
    slot.worker.Start([sp, c, i] { sp->status = c->Collect(i, sp->readings); });
    slot.pending = true;
    started.push_back(i);
  }

  for (size_t i = 0; i < cs.slots.size(); ++i) {
    DeviceSlot& slot = *cs.slots[i];
    emit_info(i);
    if (std::find(started.begin(), started.end(), i) == started.end()) {
      // Still stuck in a call from an earlier cycle. If it returned just now,
      // its result is stale: the device is collected afresh next cycle.
      if (!slot.worker.busy()) slot.pending = false;
      mark_down(i, DeadlineExceededError("an earlier collection is still running"));
      continue;
    }
    if (!slot.worker.WaitUntil(deadline)) {
      mark_down(i, DeadlineExceededError("collection did not finish in time"));
      continue;
    }
    slot.pending = false;
    for (const auto& [reason, n] : slot.readings.field_errors) CountError(cs.name, reason, n);
    if (!slot.status.ok()) {
      mark_down(i, slot.status);
      continue;
    }
    if (slot.down) {
      std::fprintf(stderr, "gpufleet agent: %s device %zu (%s) is back\n", cs.name.c_str(), i,
                   cs.devices[i].uuid.c_str());
      slot.down = false;
    }
    ++up;
    emit_up(i, OkStatus());
    if (!cs.normalizer) {
      CountError(cs.name, "unmapped", slot.readings.readings.size());
      continue;
    }
    NormalizeStats stats;
    cs.normalizer->Normalize(cs.devices[i], cs.labels[i], slot.readings, wall_ns, out, stats);
    CountError(cs.name, "unmapped", stats.unmapped);
    CountError(cs.name, "sentinel", stats.sentinel);
    CountError(cs.name, "absurd", stats.absurd);
    CountError(cs.name, "counter_reset", stats.counter_reset);
  }
  self_.Set("gpufleet_agent_collection_duration_seconds", Labels{{"collector", cs.name}},
            static_cast<double>(SteadyNowNs() - start) / kNsPerSecond);
}

void Agent::CollectOnce() {
  auto snap = std::make_shared<Snapshot>();
  snap->timestamp_ns = clock_.NowNs();
  // Hands `source` the samples appended since `begin`.
  auto enrich = [&](std::string_view source, size_t begin) {
    if (!options_.enrich || begin >= snap->samples.size()) return;
    options_.enrich(source, std::span<Sample>(snap->samples).subspan(begin));
  };
  for (auto& cs : collectors_) {
    int up = 0, discovered = 0;
    const size_t begin = snap->samples.size();
    CycleCollector(*cs, snap->timestamp_ns, snap->samples, up, discovered);
    enrich(cs->name, begin);
    self_.Set("gpufleet_agent_devices_up", Labels{{"collector", cs->name}}, up);
    self_.Set("gpufleet_agent_devices_discovered", Labels{{"collector", cs->name}}, discovered);
    snap->devices_up += up;
    snap->devices_discovered += discovered;
  }
  for (ExtraSource& src : extra_) {
    int64_t start = SteadyNowNs();
    std::map<std::string, uint64_t> errors;
    const size_t begin = snap->samples.size();
    Status st = src.collect(snap->samples, errors);
    enrich(src.name, begin);
    for (const auto& [reason, n] : errors) CountError(src.name, reason, n);
    if (!st.ok()) {
      CountError(src.name, "scrape_failed");
      std::fprintf(stderr, "gpufleet agent: %s: %s\n", src.name.c_str(), st.ToString().c_str());
    }
    self_.Set("gpufleet_agent_collection_duration_seconds", Labels{{"collector", src.name}},
              static_cast<double>(SteadyNowNs() - start) / kNsPerSecond);
  }
  self_.Add("gpufleet_agent_collections_total", Labels{}, 1);
  self_.Set("gpufleet_agent_last_collection_timestamp_seconds", Labels{},
            static_cast<double>(snap->timestamp_ns) / kNsPerSecond);
  self_.AppendSamples(snap->samples);
  std::stable_sort(snap->samples.begin(), snap->samples.end(), SampleLess);
  {
    std::lock_guard<std::mutex> lock(snap_mu_);
    snapshot_ = std::move(snap);
  }
  ready_.store(true);
}

void Agent::Run() {
  while (true) {
    int64_t start = SteadyNowNs();
    CollectOnce();
    int64_t wait_ns = std::max<int64_t>(0, options_.interval_ns - (SteadyNowNs() - start));
    std::unique_lock<std::mutex> lock(stop_mu_);
    if (stop_cv_.wait_for(lock, std::chrono::nanoseconds(wait_ns), [this] { return stop_; })) {
      return;
    }
  }
}

void Agent::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
}

std::shared_ptr<const Snapshot> Agent::snapshot() const {
  std::lock_guard<std::mutex> lock(snap_mu_);
  return snapshot_;
}

std::string Agent::Render(ExpositionFormat format) const {
  std::shared_ptr<const Snapshot> snap = snapshot();
  std::string out;
  out.reserve(snap->samples.size() * 200);
  WriteExposition(snap->samples, format, AgentFamilyMeta, &out);
  return out;
}

bool Agent::AnyWorkerBusy() {
  for (auto& cs : collectors_) {
    if (cs->discover_worker.busy() || !cs->retired.empty()) return true;
    for (auto& s : cs->slots) {
      if (s->worker.busy()) return true;
    }
  }
  return false;
}

}  // namespace gpufleet
