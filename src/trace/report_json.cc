// JSON report. Keys are stable (documented in docs/trace.md); times are
// integer ns, ratios plain fractions.
#include <cmath>
#include <nlohmann/json.hpp>

#include "trace/report_writer.h"

namespace gpufleet::trace {
namespace {

using nlohmann::json;

json DistributionJson(const Distribution& d) {
  return json{{"count", d.count},
              {"sum", d.sum},
              {"mean", d.mean},
              {"stddev", d.stddev},
              {"min", d.min},
              {"max", d.max},
              {"p50", d.p50},
              {"p90", d.p90},
              {"p99", d.p99},
              {"cv", d.cv},
              {"bimodality_coefficient", d.bimodality_coefficient},
              {"ashman_d", std::isinf(d.ashman_d) ? json(nullptr) : json(d.ashman_d)},
              {"minor_fraction", d.minor_fraction},
              {"bimodal", d.bimodal},
              {"heavy_tail", d.heavy_tail}};
}

json HistogramJson(const std::vector<HistogramBin>& bins) {
  json out = json::array();
  for (const HistogramBin& b : bins)
    out.push_back({{"lo", b.lo}, {"hi", b.hi}, {"count", b.count}});
  return out;
}

}  // namespace

std::string ReportJson(const Timeline& t, const AnalysisReport& r) {
  json j;
  j["partial"] = r.partial;
  j["notes"] = r.notes;
  j["device_ops"] = r.device_ops;
  j["host_events"] = r.host_events;
  json files = json::array();
  for (const SourceFile& f : t.files) {
    files.push_back({{"path", f.path},
                     {"format", f.format},
                     {"clock_offset_ns", f.clock_offset_ns},
                     {"clock_drift_ppm", f.clock_drift_ppm},
                     {"alignment", f.alignment},
                     {"format_version", f.format_version},
                     {"partial", f.partial},
                     {"events", f.events},
                     {"skipped", f.skipped},
                     {"out_of_order", f.out_of_order},
                     {"queue_overlaps", f.queue_overlaps},
                     {"max_queue_overlap_ns", f.max_queue_overlap_ns},
                     {"errors", f.errors}});
  }
  j["files"] = std::move(files);
  json procs = json::array();
  for (uint32_t p = 0; p < t.processes.size(); ++p) {
    const Process& pr = t.processes[p];
    procs.push_back({{"index", p},
                     {"label", ProcessLabel(t, p)},
                     {"host", pr.host},
                     {"pid", pr.pid},
                     {"rank", pr.rank},
                     {"vendor", VendorName(pr.vendor)},
                     {"device_name", pr.device_name},
                     {"file", pr.file}});
  }
  j["processes"] = std::move(procs);
  json temporal = json::array();
  for (const TemporalBreakdown& b : r.temporal) {
    temporal.push_back({{"process", b.process},
                        {"rank", b.rank},
                        {"span_ns", b.span_ns},
                        {"compute_ns", b.compute_ns},
                        {"communication_ns", b.communication_ns},
                        {"memory_ns", b.memory_ns},
                        {"idle_ns", b.idle_ns}});
  }
  j["temporal_breakdown"] = std::move(temporal);
  json idle = json::array();
  for (const IdleBreakdown& b : r.idle) {
    idle.push_back({{"process", b.process},
                    {"rank", b.rank},
                    {"device", b.device},
                    {"queue", b.queue},
                    {"host_wait_ns", b.host_wait_ns},
                    {"kernel_wait_ns", b.kernel_wait_ns},
                    {"other_ns", b.other_ns},
                    {"gaps", b.gaps},
                    {"unlinked", b.unlinked}});
  }
  j["idle_time"] = std::move(idle);
  json kernels = json::array();
  for (const KernelStat& k : r.kernels) {
    kernels.push_back({{"name", k.name},
                       {"kind", EventKindName(k.kind)},
                       {"duration_ns", DistributionJson(k.duration_ns)}});
  }
  j["kernels"] = {{"distinct", r.distinct_kernels},
                  {"top", std::move(kernels)},
                  {"duration_histogram_ns", HistogramJson(r.kernel_duration_histogram)}};
  const LaunchLatency& l = r.launch;
  j["launch_delay"] = {{"delay_ns", DistributionJson(l.delay_ns)},
                       {"outliers", l.outliers},
                       {"unmatched_device_ops", l.unmatched_device_ops},
                       {"with_concurrent_copy", l.with_concurrent_copy},
                       {"mean_delay_with_copy_ns", l.mean_delay_with_copy_ns},
                       {"mean_delay_without_copy_ns", l.mean_delay_without_copy_ns},
                       {"copy_correlation", l.copy_correlation},
                       {"histogram_ns", HistogramJson(l.histogram)}};
  json overlap = json::array();
  for (const Overlap& o : r.overlap) {
    overlap.push_back({{"process", o.process},
                       {"rank", o.rank},
                       {"communication_ns", o.communication_ns},
                       {"overlapped_ns", o.overlapped_ns},
                       {"ratio", o.ratio}});
  }
  j["overlap"] = std::move(overlap);
  const StragglerReport& s = r.stragglers;
  json ranks = json::array();
  for (const StragglerRank& sr : s.ranks) {
    ranks.push_back({{"process", sr.process},
                     {"rank", sr.rank},
                     {"times_straggler", sr.times_straggler},
                     {"mean_normalized_start", sr.mean_normalized_start}});
  }
  j["stragglers"] = {{"computed", s.computed},     {"method", s.method},
                     {"kernel", s.kernel},         {"queue", s.queue},
                     {"iterations", s.iterations}, {"mean_iteration_ns", s.mean_iteration_ns},
                     {"ranks", std::move(ranks)}};
  // Invalid UTF-8 in kernel names (seen in old Kineto traces) must not throw.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpufleet::trace
