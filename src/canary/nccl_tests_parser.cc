#include "canary/nccl_tests_parser.h"

#include <algorithm>
#include <set>
#include <utility>

#include "canary/parse_util.h"
#include "core/strings.h"

namespace gpufleet::canary {
namespace {

constexpr std::string_view kCollectives[] = {
    "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
    "reduce",     "sendrecv",   "scatter",        "gather",   "hypercube"};

// "all_reduce_perf" somewhere in `s` -> "all_reduce". Longest match first so
// "reduce_scatter" is not read as "reduce".
std::string CollectiveIn(std::string_view s) {
  std::string best;
  for (std::string_view c : kCollectives) {
    std::string needle = std::string(c) + "_perf";
    if (s.find(needle) != std::string_view::npos && c.size() > best.size()) best = c;
  }
  return best;
}

// NCCL_VERSION_CODE since 2.9 is major*10000 + minor*100 + patch: 21903
// -> 2.19.3.
std::string VersionFromCode(std::string_view code) {
  std::optional<uint64_t> v = ParseUint64(code);
  if (!v.has_value() || *v < 10000) return std::string(code);
  return std::to_string(*v / 10000) + "." + std::to_string((*v % 10000) / 100) + "." +
         std::to_string(*v % 100);
}

// "#  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00]
// NVIDIA H100 80GB HBM3"
void ParseRankLine(std::string_view line, NcclTestsOutput* out, std::set<std::string>* hosts) {
  std::vector<std::string_view> f = SplitFields(line);
  for (size_t i = 0; i + 1 < f.size(); ++i) {
    if (f[i] == "on") hosts->insert(std::string(f[i + 1]));
  }
  size_t bracket = line.find(']');
  if (bracket != std::string_view::npos) {
    out->devices.emplace_back(TrimWhitespace(line.substr(bracket + 1)));
  }
}

void ParseComment(std::string_view line, NcclTestsOutput* out, std::set<std::string>* hosts) {
  std::string_view body = TrimWhitespace(line.substr(1));
  if (StartsWith(body, "Rank")) {
    ParseRankLine(body, out, hosts);
  } else if (StartsWith(body, "Collective test starting:")) {
    std::string c = CollectiveIn(body);
    if (!c.empty()) out->collective = c;
  } else if (StartsWith(body, "nccl-tests version") || StartsWith(body, "rccl-tests version")) {
    // "# nccl-tests version 2.13.8 nccl-headers=21903 nccl-library=21903"
    std::string_view lib = StartsWith(body, "rccl") ? "rccl" : "nccl";
    for (std::string_view f : SplitFields(body)) {
      size_t eq = f.find('=');
      if (eq != std::string_view::npos && EndsWith(f.substr(0, eq), "library")) {
        out->library = std::string(lib) + "-" + VersionFromCode(f.substr(eq + 1));
      }
    }
  } else if (StartsWith(body, "Avg bus bandwidth")) {
    size_t colon = body.find(':');
    if (colon != std::string_view::npos) {
      std::vector<std::string_view> f = SplitFields(body.substr(colon + 1));
      if (!f.empty()) out->avg_busbw_gb_per_s = ParseFinite(f[0]);
    }
  } else if (StartsWith(body, "Out of bounds values")) {
    out->out_of_bounds_failed = body.find("FAILED") != std::string_view::npos;
  }
}

// Four cells: time algbw busbw #wrong. nullopt when malformed.
std::optional<NcclTestsBlock> ParseBlock(const std::vector<std::string_view>& f, size_t at,
                                         std::string* why) {
  NcclTestsBlock b;
  std::optional<double> time = ParseFinite(f[at]);
  std::optional<double> alg = ParseFinite(f[at + 1]);
  std::optional<double> bus = ParseFinite(f[at + 2]);
  if (!time || !alg || !bus || *time < 0 || *alg < 0 || *bus < 0) {
    *why = "bad time/algbw/busbw '" + std::string(f[at]) + " " + std::string(f[at + 1]) + " " +
           std::string(f[at + 2]) + "'";
    return std::nullopt;
  }
  b.time_us = *time;
  b.algbw_gb_per_s = *alg;
  b.busbw_gb_per_s = *bus;
  if (f[at + 3] != "N/A") {
    b.wrong = ParseFinite(f[at + 3]);
    if (!b.wrong || *b.wrong < 0) {
      *why = "bad #wrong '" + std::string(f[at + 3]) + "'";
      return std::nullopt;
    }
  }
  return b;
}

// "8589934592  2147483648  float  sum  -1  47535  180.71  338.82  0  47743
// 179.92  337.35  0"
std::optional<NcclTestsRow> ParseRow(std::string_view line, size_t line_no, std::string* why) {
  std::vector<std::string_view> f = SplitFields(line);
  if (f.size() < 9) {
    *why = "expected at least 9 columns, found " + std::to_string(f.size());
    return std::nullopt;
  }
  NcclTestsRow row;
  row.line = line_no;
  std::optional<uint64_t> size = ParseUint64(f[0]);
  std::optional<uint64_t> count = ParseUint64(f[1]);
  std::optional<int64_t> root = ParseInt64(f[4]);
  if (!size || !count || !root) {
    *why = "bad size/count/root '" + std::string(f[0]) + " " + std::string(f[1]) + " " +
           std::string(f[4]) + "'";
    return std::nullopt;
  }
  row.size_bytes = *size;
  row.count_elements = *count;
  row.type = std::string(f[2]);
  row.redop = std::string(f[3]);
  row.root = *root;
  // 13+ columns: both blocks (extra trailing columns such as -S timestamps are
  // ignored). 9..12: one block; nccl-tests leaves the out-of-place block blank
  // in that case, so it is the in-place figure.
  if (f.size() >= 13) {
    row.out_of_place = ParseBlock(f, 5, why);
    if (!row.out_of_place) return std::nullopt;
    row.in_place = ParseBlock(f, 9, why);
    if (!row.in_place) return std::nullopt;
  } else {
    row.in_place = ParseBlock(f, 5, why);
    if (!row.in_place) return std::nullopt;
  }
  return row;
}

}  // namespace

StatusOr<NcclTestsOutput> ParseNcclTests(std::string_view text, std::string_view origin,
                                         ParseReport* report) {
  NcclTestsOutput out;
  std::set<std::string> hosts;
  ForEachLine(text, [&](size_t line_no, std::string_view raw) {
    ++report->lines;
    std::string_view line = TrimWhitespace(raw);
    if (line.empty()) return;
    if (line[0] == '#') {
      ParseComment(line, &out, &hosts);
      return;
    }
    std::string why;
    std::optional<NcclTestsRow> row = ParseRow(line, line_no, &why);
    if (!row) {
      report->Skip(origin, line_no, why);
      return;
    }
    ++report->data_lines;
    out.rows.push_back(std::move(*row));
  });
  if (out.rows.empty()) {
    return InvalidArgumentError(std::string(origin) + ": no nccl-tests result rows found (" +
                                std::to_string(report->skipped_lines) + " line(s) skipped)");
  }
  if (out.collective.empty()) out.collective = CollectiveIn(origin);
  for (const std::string& h : hosts) {
    if (!out.host_list.empty()) out.host_list += ",";
    out.host_list += h;
  }
  return out;
}

std::vector<BenchmarkResult> NcclTestsResults(const NcclTestsOutput& out, std::string_view origin,
                                              const NcclTestsResultOptions& options) {
  std::string collective = !options.collective.empty() ? options.collective
                           : !out.collective.empty()   ? out.collective
                                                       : std::string("unknown");
  HardwareTarget target;
  target.libraries = out.library;
  if (!out.devices.empty() &&
      std::all_of(out.devices.begin(), out.devices.end(),
                  [&](const std::string& d) { return d == out.devices[0]; })) {
    target.model = CatalogModelKey(out.devices[0]);
  }

  std::set<uint64_t> sizes;
  for (const NcclTestsRow& r : out.rows) sizes.insert(r.size_bytes);
  std::set<uint64_t> gated;
  for (auto it = sizes.rbegin(); it != sizes.rend() && gated.size() < options.largest_sizes; ++it) {
    gated.insert(*it);
  }

  std::vector<BenchmarkResult> results;
  bool correct = !out.out_of_bounds_failed;
  for (const NcclTestsRow& r : out.rows) {
    for (const auto* block : {&r.out_of_place, &r.in_place}) {
      if (block->has_value() && (*block)->wrong.has_value() && *(*block)->wrong != 0) {
        correct = false;
      }
    }
    if (gated.count(r.size_bytes) == 0) continue;
    BenchmarkResult b;
    b.target = target;
    b.benchmark_id = "nccl." + collective + ".busbw@" + std::to_string(r.size_bytes);
    b.unit = std::string(kUnitBytesPerSecond);
    b.source = std::string(origin) + ":" + std::to_string(r.line);
    for (const auto* block : {&r.out_of_place, &r.in_place}) {
      if (block->has_value()) b.values.push_back((*block)->busbw_gb_per_s * 1e9);
    }
    MergeResult(std::move(b), &results);
  }
  BenchmarkResult c;
  c.target = target;
  c.benchmark_id = "nccl." + collective + ".correct";
  c.unit = std::string(kUnitPass);
  c.values = {correct ? 1.0 : 0.0};
  c.source = std::string(origin);
  results.push_back(std::move(c));
  return results;
}

}  // namespace gpufleet::canary
