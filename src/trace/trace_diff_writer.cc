// Text, JSON and Markdown renderings of TraceDiffReport.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "trace/report_writer.h"
#include "trace/trace_diff.h"

namespace gpufleet::trace {
namespace {

std::string Signed(double ns) { return (ns >= 0 ? "+" : "") + FormatDuration(ns); }

std::string Throughput(double bytes_per_s) {
  if (bytes_per_s <= 0) return "-";
  return FormatFixed(bytes_per_s / 1e9, 2) + " GB/s";
}

const char* Describe(const std::string& name) {
  if (name == "start_delay") return "kernel start delay";
  if (name == "duration") return "kernel duration growth";
  if (name == "copy") return "copy throughput loss";
  if (name == "sync_wait") return "synchronization wait";
  return "unexplained";
}

constexpr size_t kKernelRows = 10;

}  // namespace

std::string FormatDiffText(const TraceDiffReport& d) {
  std::string out = "Wall time: " + FormatDuration(static_cast<double>(d.base_wall_ns)) + " -> " +
                    FormatDuration(static_cast<double>(d.contended_wall_ns)) + " (" +
                    Signed(static_cast<double>(d.delta_wall_ns)) + ")" +
                    (d.partial ? "  [PARTIAL]" : "") + "\n";
  for (const DiffComponent& c : d.components) {
    char line[160];
    std::snprintf(line, sizeof(line), "  %-24s %14s  %6.1f%%\n", Describe(c.name),
                  Signed(c.attributed_ns).c_str(), 100 * c.share);
    out += line;
  }
  out += "Copy throughput: " + Throughput(d.base_copy_bytes_per_s) + " -> " +
         Throughput(d.contended_copy_bytes_per_s) + "\n";
  out += "Matched ops: " + std::to_string(d.matched_ops) + "\n";
  for (size_t i = 0; i < std::min(kKernelRows, d.kernels.size()); ++i) {
    const KernelDelta& k = d.kernels[i];
    if (k.growth_ns == 0) break;
    char line[256];
    std::snprintf(line, sizeof(line), "  %-48.48s %6llu x %12s -> %12s  %12s\n", k.name.c_str(),
                  static_cast<unsigned long long>(k.matched),
                  FormatDuration(k.base_mean_ns).c_str(),
                  FormatDuration(k.contended_mean_ns).c_str(),
                  Signed(static_cast<double>(k.growth_ns)).c_str());
    out += line;
  }
  for (const std::string& n : d.notes) out += "note: " + n + "\n";
  return out;
}

std::string DiffJson(const TraceDiffReport& d) {
  using nlohmann::json;
  json j;
  j["base_wall_ns"] = d.base_wall_ns;
  j["contended_wall_ns"] = d.contended_wall_ns;
  j["delta_wall_ns"] = d.delta_wall_ns;
  j["scale"] = d.scale;
  json comps = json::array();
  for (const DiffComponent& c : d.components) {
    comps.push_back({{"name", c.name},
                     {"raw_ns", c.raw_ns},
                     {"attributed_ns", c.attributed_ns},
                     {"share", c.share}});
  }
  j["components"] = std::move(comps);
  j["copy_bytes_per_s"] = {{"base", d.base_copy_bytes_per_s},
                           {"contended", d.contended_copy_bytes_per_s}};
  j["matched_ops"] = d.matched_ops;
  j["unmatched_base_ops"] = d.unmatched_base_ops;
  j["unmatched_contended_ops"] = d.unmatched_contended_ops;
  json kernels = json::array();
  for (const KernelDelta& k : d.kernels) {
    kernels.push_back({{"name", k.name},
                       {"kind", EventKindName(k.kind)},
                       {"matched", k.matched},
                       {"base_mean_ns", k.base_mean_ns},
                       {"contended_mean_ns", k.contended_mean_ns},
                       {"growth_ns", k.growth_ns}});
  }
  j["kernels"] = std::move(kernels);
  j["partial"] = d.partial;
  j["notes"] = d.notes;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string DiffMarkdown(const TraceDiffReport& d) {
  std::string out = "# Trace comparison\n\n";
  if (d.partial) out += "> **Partial result**: see the notes.\n\n";
  out += "Wall time " + FormatDuration(static_cast<double>(d.base_wall_ns)) + " (baseline) -> " +
         FormatDuration(static_cast<double>(d.contended_wall_ns)) + " (contended), " +
         Signed(static_cast<double>(d.delta_wall_ns)) + ".\n\n";
  out += "| cause | time | share |\n| --- | ---: | ---: |\n";
  for (const DiffComponent& c : d.components) {
    out += std::string("| ") + Describe(c.name) + " | " + Signed(c.attributed_ns) + " | " +
           FormatFixed(100 * c.share, 1) + "% |\n";
  }
  out += "\nCopy throughput " + Throughput(d.base_copy_bytes_per_s) + " -> " +
         Throughput(d.contended_copy_bytes_per_s) + "; " + std::to_string(d.matched_ops) +
         " device ops matched by rank, name and order.\n";
  out +=
      "\n| kernel | matched | base mean | contended mean | growth |\n"
      "| --- | ---: | ---: | ---: | ---: |\n";
  for (size_t i = 0; i < std::min(kKernelRows, d.kernels.size()); ++i) {
    const KernelDelta& k = d.kernels[i];
    std::string name;
    for (char ch : k.name) name += ch == '|' ? std::string("\\|") : std::string(1, ch);
    out += "| " + name + " | " + std::to_string(k.matched) + " | " +
           FormatDuration(k.base_mean_ns) + " | " + FormatDuration(k.contended_mean_ns) + " | " +
           Signed(static_cast<double>(k.growth_ns)) + " |\n";
  }
  if (!d.notes.empty()) {
    out += "\n";
    for (const std::string& n : d.notes) out += "- " + n + "\n";
  }
  return out;
}

}  // namespace gpufleet::trace
