// Terminal summary and Markdown report.
#include "trace/report_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

namespace gpufleet::trace {
namespace {

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  return FormatFixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

// Column-aligned table for the terminal; first column left, others right.
class TextTable {
 public:
  // `left_last`: the last column is text (left-aligned) too.
  explicit TextTable(std::vector<std::string> header, bool left_last = false)
      : left_last_(left_last) {
    rows_.push_back(std::move(header));
  }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string Render(std::string_view indent = "  ") const {
    std::vector<size_t> width;
    for (const auto& row : rows_) {
      width.resize(std::max(width.size(), row.size()));
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    std::string out;
    for (const auto& row : rows_) {
      out += indent;
      for (size_t i = 0; i < row.size(); ++i) {
        std::string pad(width[i] - row[i].size(), ' ');
        if (i > 0) out += "  ";
        bool left = i == 0 || (left_last_ && i + 1 == row.size());
        out += left ? row[i] + pad : pad + row[i];
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += '\n';
    }
    return out;
  }

 private:
  bool left_last_ = false;
  std::vector<std::vector<std::string>> rows_;
};

std::string Shorten(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max - 3)) + "...";
}

std::string MdEscape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|' || ch == '*' || ch == '_' || ch == '`' || ch == '<' || ch == '>') out += '\\';
    out += ch;
  }
  return out;
}

std::string ShapeFlags(const Distribution& d) {
  std::string f;
  if (d.bimodal) f += "bimodal";
  if (d.heavy_tail) f += f.empty() ? "heavy-tail" : ", heavy-tail";
  return f.empty() ? "-" : f;
}

std::string QueueLabel(const IdleBreakdown& b) {
  return "dev " + std::to_string(b.device) + " q " + std::to_string(b.queue);
}

// Rows shared by both formats, so text and Markdown never disagree.
std::vector<std::vector<std::string>> TemporalRows(const Timeline& t, const AnalysisReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const TemporalBreakdown& b : r.temporal) {
    rows.push_back({ProcessLabel(t, b.process), FormatDuration(static_cast<double>(b.span_ns)),
                    Percent(b.compute_ns, b.span_ns), Percent(b.communication_ns, b.span_ns),
                    Percent(b.memory_ns, b.span_ns), Percent(b.idle_ns, b.span_ns)});
  }
  return rows;
}

std::vector<std::vector<std::string>> IdleRows(const Timeline& t, const AnalysisReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const IdleBreakdown& b : r.idle) {
    int64_t total = b.host_wait_ns + b.kernel_wait_ns + b.other_ns;
    rows.push_back({ProcessLabel(t, b.process), QueueLabel(b),
                    FormatDuration(static_cast<double>(total)), Percent(b.host_wait_ns, total),
                    Percent(b.kernel_wait_ns, total), Percent(b.other_ns, total)});
  }
  return rows;
}

std::vector<std::vector<std::string>> KernelRows(const AnalysisReport& r, size_t max,
                                                 size_t name_width) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < std::min(max, r.kernels.size()); ++i) {
    const KernelStat& k = r.kernels[i];
    const Distribution& d = k.duration_ns;
    rows.push_back({Shorten(ShortKernelName(k.name), name_width),
                    std::string(EventKindName(k.kind)), std::to_string(d.count),
                    FormatDuration(d.sum), FormatDuration(d.mean), FormatDuration(d.p50),
                    FormatDuration(d.p99), FormatFixed(d.cv, 2), ShapeFlags(d)});
  }
  return rows;
}

const std::vector<std::string> kTemporalHeader = {"rank", "span",   "compute",
                                                  "comm", "memory", "idle"};
const std::vector<std::string> kIdleHeader = {"rank",      "queue",       "idle",
                                              "host wait", "kernel wait", "other"};
const std::vector<std::string> kKernelHeader = {"kernel", "kind", "count", "total", "mean",
                                                "p50",    "p99",  "cv",    "shape"};

std::string LaunchLine(const AnalysisReport& r) {
  const LaunchLatency& l = r.launch;
  if (l.delay_ns.count == 0) return "no launches linked to device ops";
  return std::to_string(l.delay_ns.count) + " linked ops, p50 " + FormatDuration(l.delay_ns.p50) +
         ", p90 " + FormatDuration(l.delay_ns.p90) + ", p99 " + FormatDuration(l.delay_ns.p99) +
         ", max " + FormatDuration(l.delay_ns.max) + ", " + std::to_string(l.outliers) +
         " outliers, " + std::to_string(l.unmatched_device_ops) + " unlinked";
}

std::string CopyLine(const AnalysisReport& r) {
  const LaunchLatency& l = r.launch;
  return "with a copy in flight: " + std::to_string(l.with_concurrent_copy) + " launches, mean " +
         FormatDuration(l.mean_delay_with_copy_ns) + " vs " +
         FormatDuration(l.mean_delay_without_copy_ns) +
         " without (r = " + FormatFixed(l.copy_correlation, 2) + ")";
}

std::string StragglerLine(const Timeline& t, const StragglerReport& s) {
  if (!s.computed) return "not computed";
  std::string out = "metric: start of last '" + s.kernel + "' on queue " + std::to_string(s.queue) +
                    " per iteration (" + s.method + ", " + std::to_string(s.iterations) +
                    " iterations); flagged:";
  bool any = false;
  for (const StragglerRank& sr : s.ranks) {
    if (sr.times_straggler == 0) continue;
    out += " " + ProcessLabel(t, sr.process) + " (" + std::to_string(sr.times_straggler) + "x)";
    any = true;
  }
  return any ? out : out + " none";
}

}  // namespace

std::string FormatDuration(double ns) {
  double a = std::fabs(ns);
  if (a < 1e3) return FormatFixed(ns, 0) + " ns";
  if (a < 1e6) return FormatFixed(ns / 1e3, a < 1e4 ? 2 : 1) + " us";
  if (a < 1e9) return FormatFixed(ns / 1e6, a < 1e7 ? 2 : 1) + " ms";
  return FormatFixed(ns / 1e9, 2) + " s";
}

std::string ShortKernelName(std::string_view name) {
  constexpr std::string_view kVoid = "void ";
  if (name.substr(0, kVoid.size()) == kVoid) name.remove_prefix(kVoid.size());
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        // "Memcpy HtoD (Pageable -> Device)" is a description, not parameters.
        if (i > 0 && name[i - 1] != ' ') name = name.substr(0, i);
        break;
      }
    }
  }
  return std::string(name);
}

std::string FormatSummary(const Timeline& t, const AnalysisReport& r, const ReportOptions& o) {
  std::string out = "Trace: " + std::to_string(t.files.size()) + " file(s), " +
                    std::to_string(t.processes.size()) + " process(es), " +
                    std::to_string(r.device_ops) + " device ops, " + std::to_string(r.host_events) +
                    " host events" + (r.partial ? "  [PARTIAL]" : "") + "\n";
  for (const SourceFile& f : t.files) {
    out += "  " + f.path + " (" + f.format + ")";
    if (f.clock_offset_ns != 0) out += " offset " + FormatDuration(f.clock_offset_ns);
    if (f.partial) out += " partial, " + std::to_string(f.skipped) + " skipped";
    out += "\n";
  }
  if (!r.temporal.empty()) {
    TextTable tt(kTemporalHeader);
    for (auto& row : TemporalRows(t, r)) tt.Add(std::move(row));
    out += "\nTemporal breakdown (device time)\n" + tt.Render();
  }
  if (!r.idle.empty()) {
    TextTable it(kIdleHeader);
    for (auto& row : IdleRows(t, r)) it.Add(std::move(row));
    out += "\nIdle time per queue\n" + it.Render();
  }
  if (!r.kernels.empty()) {
    TextTable kt(kKernelHeader, /*left_last=*/true);
    auto max = static_cast<size_t>(std::max(0, o.summary_kernels));
    for (auto& row : KernelRows(r, max, 48)) kt.Add(std::move(row));
    out += "\nTop kernels (" + std::to_string(r.distinct_kernels) + " distinct)\n" + kt.Render();
  }
  out += "\nLaunch delay: " + LaunchLine(r) + "\n";
  if (r.launch.delay_ns.count > 0) out += "  " + CopyLine(r) + "\n";
  for (const Overlap& ov : r.overlap) {
    out += "Comm/compute overlap " + ProcessLabel(t, ov.process) + ": " + FormatFixed(100 * ov.ratio, 1) +
           "% of " + FormatDuration(static_cast<double>(ov.communication_ns)) + " comm\n";
  }
  out += "Stragglers: " + StragglerLine(t, r.stragglers) + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

std::string ReportMarkdown(const Timeline& t, const AnalysisReport& r) {
  auto table = [](const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
    std::string s = "|";
    for (const auto& h : header) s += " " + h + " |";
    s += "\n|";
    for (size_t i = 0; i < header.size(); ++i) s += i == 0 ? " --- |" : " ---: |";
    s += "\n";
    for (const auto& row : rows) {
      s += "|";
      for (const auto& cell : row) s += " " + MdEscape(cell) + " |";
      s += "\n";
    }
    return s;
  };
  std::string out = "# Trace analysis\n\n";
  if (r.partial) out += "> **Partial result**: see the notes at the end.\n\n";
  out += "- device ops: " + std::to_string(r.device_ops) +
         ", host events: " + std::to_string(r.host_events) +
         ", processes: " + std::to_string(t.processes.size()) + "\n";
  std::vector<std::vector<std::string>> files;
  for (const SourceFile& f : t.files) {
    files.push_back({f.path, f.format, std::to_string(f.clock_offset_ns),
                     f.alignment.empty() ? "-" : f.alignment, f.partial ? "yes" : "no",
                     std::to_string(f.events), std::to_string(f.skipped)});
  }
  out += "\n## Files\n\n" +
         table({"file", "format", "clock offset (ns)", "alignment", "partial", "events", "skipped"},
               files);
  out += "\n## Temporal breakdown\n\n" + table(kTemporalHeader, TemporalRows(t, r));
  out +=
      "\n## Idle time per queue\n\nHost wait: the op's launch call started after the previous "
      "op on the queue ended. Kernel wait: gap below the threshold. Other: the rest.\n\n" +
      table(kIdleHeader, IdleRows(t, r));
  out += "\n## Kernels\n\n" + std::to_string(r.distinct_kernels) + " distinct device ops; top " +
         std::to_string(r.kernels.size()) + " by total time.\n\n" +
         table(kKernelHeader, KernelRows(r, r.kernels.size(), 80));
  out += "\n## Launch delay\n\n" + LaunchLine(r) + ".\n";
  if (r.launch.delay_ns.count > 0) out += "\n" + CopyLine(r) + ".\n";
  std::vector<std::vector<std::string>> ov_rows;
  for (const Overlap& ov : r.overlap) {
    ov_rows.push_back(
        {ProcessLabel(t, ov.process), FormatDuration(static_cast<double>(ov.communication_ns)),
         FormatDuration(static_cast<double>(ov.overlapped_ns)), FormatFixed(100 * ov.ratio, 1) + "%"});
  }
  out += "\n## Communication/computation overlap\n\n" +
         table({"rank", "communication", "overlapped", "ratio"}, ov_rows);
  out += "\n## Stragglers\n\n" + StragglerLine(t, r.stragglers) + "\n";
  if (r.stragglers.computed) {
    std::vector<std::vector<std::string>> rows;
    for (const StragglerRank& sr : r.stragglers.ranks) {
      rows.push_back({ProcessLabel(t, sr.process), std::to_string(sr.times_straggler),
                      FormatFixed(sr.mean_normalized_start, 3)});
    }
    out += "\n" + table({"rank", "times flagged", "mean normalized start"}, rows);
  }
  if (!r.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const std::string& n : r.notes) out += "- " + MdEscape(n) + "\n";
  }
  return out;
}

}  // namespace gpufleet::trace
