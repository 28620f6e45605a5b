#include "detect/sim_recording.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <tuple>
#include <vector>

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

StatusOr<File> Create(const std::string& path) {
  File f(std::fopen(path.c_str(), "w"));
  if (!f) return UnavailableError("cannot write " + path + ": " + std::strerror(errno));
  return f;
}

// "name{a=\"x\",b=\"y\"}" for a label set with __name__.
std::string SeriesText(const Labels& labels) {
  std::string out(labels.Get("__name__"));
  std::string inner;
  for (const auto& [name, value] : labels.pairs()) {
    if (name == "__name__") continue;
    inner += (inner.empty() ? "" : ",") + name + "=\"";
    AppendEscapedLabelValue(value, inner);
    inner += "\"";
  }
  return out + "{" + inner + "}";
}

std::string TruthKind(SimEpisodeKind k) {
  switch (k) {
    case SimEpisodeKind::kMemoryPressure:
    case SimEpisodeKind::kBandwidthSaturation:
    case SimEpisodeKind::kCoherency:
      return "contention";
    case SimEpisodeKind::kIdle:
      return "low_utilization";
    default:
      return std::string(SimEpisodeKindName(k));
  }
}

}  // namespace

StatusOr<SimRecording> WriteSimRecording(const FleetSimOptions& options, const std::string& dir) {
  if (options.colocation.empty()) {
    return InvalidArgumentError("no co-location pairs to draw slowdowns from");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return UnavailableError("cannot create " + dir + ": " + ec.message());
  SimRecording rec;
  rec.series_path = dir + "/series.om";
  rec.truth_path = dir + "/truth.csv";
  ASSIGN_OR_RETURN(File series, Create(rec.series_path));

  FleetSim sim(options);
  WindowStoreOptions so;
  so.retention_ns = 60 * kS;  // the simulator needs no history of its own
  WindowStore scratch(so);
  // One interval's samples, sorted before writing: step durations end
  // inside the interval, before the gauges' timestamp.
  std::vector<std::tuple<int64_t, const Labels*, double>> pending;
  sim.set_sink([&](const Labels& l, int64_t t, double v) { pending.emplace_back(t, &l, v); });
  int64_t now = 0;
  uint64_t ticks = 0;
  while (sim.Step(scratch, &now)) {
    std::stable_sort(pending.begin(), pending.end(),
                     [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    for (const auto& [t, l, v] : pending) {
      std::fprintf(series.get(), "%s %.6g %lld.%03lld\n", SeriesText(*l).c_str(), v,
                   static_cast<long long>(t / kS), static_cast<long long>(t % kS / 1'000'000));
    }
    rec.samples += pending.size();
    pending.clear();
    if (++ticks % 60 == 0) scratch.Prune(now);
  }
  std::fputs("# EOF\n", series.get());
  if (std::ferror(series.get())) return UnavailableError("cannot write " + rec.series_path);

  ASSIGN_OR_RETURN(File truth_file, Create(rec.truth_path));
  std::FILE* truth_out = truth_file.get();
  std::fputs("kind,cause,node,gpu_uuid,start_s,end_s,slowdown\n", truth_out);
  for (const SimEpisode& e : sim.episodes()) {
    const bool truth = IsGroundTruth(e.kind);
    const std::string kind = truth ? TruthKind(e.kind) : "hard_negative";
    const std::string cause =
        kind == "contention" || !truth ? std::string(SimEpisodeKindName(e.kind)) : "";
    for (const std::string& device : e.devices) {
      const size_t slash = device.find('/');
      std::fprintf(truth_out, "%s,%s,%s,%s,%lld,%lld,", kind.c_str(), cause.c_str(),
                   device.substr(0, slash).c_str(),
                   slash == std::string::npos ? "" : device.substr(slash + 1).c_str(),
                   static_cast<long long>(e.start_ns / kS), static_cast<long long>(e.end_ns / kS));
      if (truth && e.slowdown >= 0) std::fprintf(truth_out, "%.3f", e.slowdown);
      std::fputs("\n", truth_out);
      ++rec.truth_rows;
    }
  }
  if (std::ferror(truth_out)) return UnavailableError("cannot write " + rec.truth_path);
  rec.gpu_days = sim.gpu_days();
  return rec;
}

}  // namespace gpufleet::detect
