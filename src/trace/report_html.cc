// Self-contained HTML report: inline CSS and SVG only, so the file can be
// mailed or attached to a ticket and opened offline.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "trace/report_writer.h"

namespace gpufleet::trace {
namespace {

// Plot classes, in draw priority order for ties.
enum Cls { kCompute = 0, kComm = 1, kCopy = 2, kSet = 3, kNumCls = 4 };
constexpr const char* kClsName[kNumCls] = {"compute", "communication", "memcpy", "memset"};
constexpr const char* kClsColor[kNumCls] = {"#4e79a7", "#e15759", "#59a14f", "#b07aa1"};
constexpr const char* kIdleColor = "#d9d9d9";
constexpr const char* kOpacity[4] = {"0", "0.3", "0.55", "0.8"};  // busy level 1..3 of 4

int ClassOf(EventKind k) {
  switch (k) {
    case EventKind::kKernel:
      return kCompute;
    case EventKind::kCommKernel:
      return kComm;
    case EventKind::kMemcpy:
      return kCopy;
    case EventKind::kMemset:
      return kSet;
    default:
      return -1;
  }
}

std::string Esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

std::string Pct(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  return Num(100.0 * static_cast<double>(part) / static_cast<double>(whole)) + "%";
}

constexpr std::string_view kCss = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;
max-width:1300px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:right}
th:first-child,td:first-child{text-align:left}
td.name{text-align:left;max-width:520px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.partial{background:#fff3cd;border:1px solid #e0c36b;padding:8px;margin:8px 0}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
svg text{font-size:11px;fill:#333}
.muted{color:#777;font-size:12px}
)";

std::string Legend(bool with_idle) {
  std::string out = "<div class=\"legend\">";
  for (int c = 0; c < kNumCls; ++c) {
    out += std::string("<span><i style=\"background:") + kClsColor[c] + "\"></i>" + kClsName[c] +
           "</span>";
  }
  if (with_idle) {
    out += std::string("<span><i style=\"background:") + kIdleColor + "\"></i>idle</span>";
  }
  return out + "</div>\n";
}

struct Lane {
  uint32_t track;
  int64_t busy_ns = 0;
};

// Downsampled timeline: per lane and pixel bucket the class with the most
// busy time wins; runs of equal buckets become one rectangle.
std::string TimelineSvg(const Timeline& t, const ReportOptions& o) {
  std::vector<Lane> lanes;
  std::vector<int> lane_of(t.tracks.size(), -1);
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  std::vector<int64_t> busy(t.tracks.size(), 0);
  for (const Event& e : t.events) {
    if (ClassOf(e.kind) < 0) continue;
    busy[e.track] += e.dur_ns;
  }
  for (uint32_t i = 0; i < t.tracks.size(); ++i) {
    if (busy[i] > 0) lanes.push_back({i, busy[i]});
  }
  size_t dropped = 0;
  if (lanes.size() > static_cast<size_t>(std::max(1, o.html_max_lanes))) {
    std::sort(lanes.begin(), lanes.end(),
              [](const Lane& a, const Lane& b) { return a.busy_ns > b.busy_ns; });
    dropped = lanes.size() - static_cast<size_t>(o.html_max_lanes);
    lanes.resize(static_cast<size_t>(o.html_max_lanes));
  }
  std::sort(lanes.begin(), lanes.end(), [&](const Lane& a, const Lane& b) {
    const Track& x = t.tracks[a.track];
    const Track& y = t.tracks[b.track];
    int rx = t.processes[x.process].rank, ry = t.processes[y.process].rank;
    if (rx != ry) return rx < ry;
    if (x.process != y.process) return x.process < y.process;
    if (x.device != y.device) return x.device < y.device;
    return x.queue < y.queue;
  });
  for (size_t i = 0; i < lanes.size(); ++i) lane_of[lanes[i].track] = static_cast<int>(i);
  for (const Event& e : t.events) {
    if (ClassOf(e.kind) < 0 || lane_of[e.track] < 0) continue;
    t0 = std::min(t0, e.start_ns);
    t1 = std::max(t1, e.end_ns());
  }
  if (lanes.empty() || t1 <= t0) return "<p class=\"muted\">no device activity to plot</p>\n";

  const int width = std::max(100, o.html_width_px);
  const int label_w = 150, lane_h = 16, gap = 3, top = 22;
  const double bucket_ns = static_cast<double>(t1 - t0) / width;
  // busy[lane][class][bucket], plus a difference array for fully covered buckets.
  size_t nl = lanes.size();
  std::vector<double> acc(nl * kNumCls * static_cast<size_t>(width), 0);
  std::vector<double> full(nl * kNumCls * static_cast<size_t>(width + 1), 0);
  auto at = [&](size_t lane, int c, int b) -> double& {
    return acc[(lane * kNumCls + static_cast<size_t>(c)) * static_cast<size_t>(width) +
               static_cast<size_t>(b)];
  };
  auto diff = [&](size_t lane, int c, int b) -> double& {
    return full[(lane * kNumCls + static_cast<size_t>(c)) * static_cast<size_t>(width + 1) +
                static_cast<size_t>(b)];
  };
  for (const Event& e : t.events) {
    int c = ClassOf(e.kind);
    if (c < 0 || lane_of[e.track] < 0) continue;
    auto lane = static_cast<size_t>(lane_of[e.track]);
    double s = static_cast<double>(e.start_ns - t0) / bucket_ns;
    double f = static_cast<double>(e.end_ns() - t0) / bucket_ns;
    int bs = std::clamp(static_cast<int>(s), 0, width - 1);
    int bf = std::clamp(static_cast<int>(f), 0, width - 1);
    if (bs == bf) {
      at(lane, c, bs) += std::max(f - s, 0.0);
      continue;
    }
    at(lane, c, bs) += (bs + 1) - s;
    at(lane, c, bf) += f - bf;
    if (bf > bs + 1) {  // buckets bs+1 .. bf-1 fully covered
      diff(lane, c, bs + 1) += 1;
      diff(lane, c, bf) -= 1;
    }
  }
  int height = top + static_cast<int>(nl) * (lane_h + gap) + 24;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(label_w + width + 10) + "\" height=\"" + std::to_string(height) +
                    "\" role=\"img\">\n";
  for (size_t l = 0; l < nl; ++l) {
    for (int c = 0; c < kNumCls; ++c) {
      double run = 0;
      for (int b = 0; b < width; ++b) {
        run += diff(l, c, b);
        at(l, c, b) += run;
      }
    }
    const Track& tr = t.tracks[lanes[l].track];
    int y = top + static_cast<int>(l) * (lane_h + gap);
    std::string label = ProcessLabel(t, tr.process) + " dev " + std::to_string(tr.device) + " q " +
                        std::to_string(tr.queue);
    svg += "<text x=\"0\" y=\"" + std::to_string(y + 12) + "\">" + Esc(label) + "</text>";
    svg += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
           std::to_string(width) + "\" height=\"" + std::to_string(lane_h) +
           "\" fill=\"#f4f4f4\"/>\n";
    // A run is a stretch of buckets with the same winning kind and the same
    // busy level (quarters of the bucket), drawn with that opacity so a
    // mostly idle stretch does not look saturated.
    int run_cls = -1, run_level = 0, run_start = 0;
    for (int b = 0; b <= width; ++b) {
      int best = -1, level = 0;
      if (b < width) {
        double best_v = 0, total = 0;
        for (int c = 0; c < kNumCls; ++c) {
          total += at(l, c, b);
          if (at(l, c, b) > best_v + 1e-9) {
            best_v = at(l, c, b);
            best = c;
          }
        }
        if (best >= 0) level = std::clamp(static_cast<int>(std::ceil(total * 4 - 1e-9)), 1, 4);
      }
      if (best == run_cls && level == run_level) continue;
      if (run_cls >= 0) {
        svg += "<rect x=\"" + std::to_string(label_w + run_start) + "\" y=\"" + std::to_string(y) +
               "\" width=\"" + std::to_string(b - run_start) + "\" height=\"" +
               std::to_string(lane_h) + "\" fill=\"" + kClsColor[run_cls] + "\"" +
               (run_level < 4 ? std::string(" fill-opacity=\"") + kOpacity[run_level] + "\"" : "") +
               "/>";
      }
      run_cls = best;
      run_level = level;
      run_start = b;
    }
    svg += "\n";
  }
  int axis_y = top + static_cast<int>(nl) * (lane_h + gap) + 14;
  for (int i = 0; i <= 5; ++i) {
    int x = label_w + width * i / 5;
    double ns = static_cast<double>(t1 - t0) * i / 5;
    svg += "<line x1=\"" + std::to_string(x) + "\" y1=\"" + std::to_string(top - 4) + "\" x2=\"" +
           std::to_string(x) + "\" y2=\"" + std::to_string(axis_y - 10) +
           "\" stroke=\"#bbb\" stroke-dasharray=\"2,3\"/>";
    std::string anchor = i == 0 ? "start" : i == 5 ? "end" : "middle";
    svg += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(axis_y) +
           "\" text-anchor=\"" + anchor + "\">+" + Esc(FormatDuration(ns)) + "</text>\n";
  }
  svg += "</svg>\n";
  std::string out = Legend(false) + svg;
  out += "<p class=\"muted\">Device queues only; " + std::to_string(width) + " buckets of " +
         Esc(FormatDuration(bucket_ns)) +
         ", each drawn in the kind that kept the queue busiest, with opacity in quarters of how"
         " busy the queue was.";
  if (dropped > 0) out += " " + std::to_string(dropped) + " less busy queues not drawn.";
  return out + "</p>\n";
}

std::string HistogramSvg(const std::vector<HistogramBin>& bins, std::string_view what) {
  if (bins.empty()) return "<p class=\"muted\">no data</p>\n";
  const int w = 560, h = 180, left = 40, bottom = 36;
  uint64_t max_count = 1;
  for (const HistogramBin& b : bins) max_count = std::max(max_count, b.count);
  double bw = static_cast<double>(w) / static_cast<double>(bins.size());
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(left + w + 20) + "\" height=\"" +
                    std::to_string(h + bottom + 10) + "\" role=\"img\">\n";
  for (size_t i = 0; i < bins.size(); ++i) {
    double bh = static_cast<double>(h) * static_cast<double>(bins[i].count) /
                static_cast<double>(max_count);
    double x = left + bw * static_cast<double>(i);
    svg += "<rect x=\"" + Num(x + 1) + "\" y=\"" + Num(h - bh + 5) + "\" width=\"" +
           Num(std::max(bw - 2, 1.0)) + "\" height=\"" + Num(bh) + "\" fill=\"#4e79a7\"><title>" +
           Esc(FormatDuration(bins[i].lo)) + " - " + Esc(FormatDuration(bins[i].hi)) + ": " +
           std::to_string(bins[i].count) + "</title></rect>";
  }
  svg += "\n<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(h + 5) + "\" x2=\"" +
         std::to_string(left + w) + "\" y2=\"" + std::to_string(h + 5) + "\" stroke=\"#888\"/>";
  svg += "<text x=\"0\" y=\"14\">" + std::to_string(max_count) + "</text>";
  for (size_t i = 0; i < bins.size(); i += std::max<size_t>(1, bins.size() / 5)) {
    double x = left + bw * static_cast<double>(i);
    svg += "<text x=\"" + Num(x) + "\" y=\"" + std::to_string(h + 20) + "\">" +
           Esc(FormatDuration(bins[i].lo)) + "</text>";
  }
  svg += "<text x=\"" + std::to_string(left + w) + "\" y=\"" + std::to_string(h + 34) +
         "\" text-anchor=\"end\">" + Esc(what) + " (log scale)</text>\n</svg>\n";
  return svg;
}

std::string BreakdownSvg(const Timeline& t, const AnalysisReport& r) {
  if (r.temporal.empty()) return "<p class=\"muted\">no device activity</p>\n";
  const int w = 700, label_w = 90, bar_h = 18, gap = 6;
  int h = static_cast<int>(r.temporal.size()) * (bar_h + gap) + 4;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(label_w + w + 10) + "\" height=\"" + std::to_string(h) +
                    "\" role=\"img\">\n";
  for (size_t i = 0; i < r.temporal.size(); ++i) {
    const TemporalBreakdown& b = r.temporal[i];
    int y = static_cast<int>(i) * (bar_h + gap);
    svg += "<text x=\"0\" y=\"" + std::to_string(y + 13) + "\">" + Esc(ProcessLabel(t, b.process)) +
           "</text>";
    int64_t parts[5] = {b.compute_ns, b.communication_ns, b.memory_ns, 0, b.idle_ns};
    const char* colors[5] = {kClsColor[kCompute], kClsColor[kComm], kClsColor[kCopy], "",
                             kIdleColor};
    const char* names[5] = {"compute", "communication", "memory", "", "idle"};
    double x = label_w;
    for (int k = 0; k < 5; ++k) {
      if (parts[k] <= 0 || b.span_ns <= 0) continue;
      double pw = w * static_cast<double>(parts[k]) / static_cast<double>(b.span_ns);
      svg += "<rect x=\"" + Num(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + Num(pw) +
             "\" height=\"" + std::to_string(bar_h) + "\" fill=\"" + colors[k] + "\"><title>" +
             names[k] + " " + Pct(parts[k], b.span_ns) + "</title></rect>";
      x += pw;
    }
    svg += "\n";
  }
  return Legend(true) + svg + "</svg>\n";
}

// `title`: tooltip of the first cell (e.g. the full kernel name).
std::string Row(const std::vector<std::string>& cells, bool header = false,
                std::string_view title = {}) {
  std::string out = "<tr>";
  for (size_t i = 0; i < cells.size(); ++i) {
    const char* tag = header ? "th" : "td";
    std::string attrs;
    if (i == 0 && !header) attrs = " class=\"name\"";
    if (i == 0 && !title.empty()) attrs += " title=\"" + Esc(title) + "\"";
    out += std::string("<") + tag + attrs + ">" + Esc(cells[i]) + "</" + tag + ">";
  }
  return out + "</tr>\n";
}

}  // namespace

std::string ReportHtml(const Timeline& t, const AnalysisReport& r, const ReportOptions& o) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>gpufleet trace report</title>\n<style>";
  out += kCss;
  out += "</style>\n</head>\n<body>\n<h1>gpufleet trace report</h1>\n";
  out += "<p class=\"muted\">" + std::to_string(t.files.size()) + " file(s), " +
         std::to_string(t.processes.size()) + " process(es), " + std::to_string(r.device_ops) +
         " device ops, " + std::to_string(r.host_events) + " host events</p>\n";
  if (r.partial || !r.notes.empty()) {
    out += std::string("<div class=\"partial\"><b>") + (r.partial ? "Partial result." : "Notes.") +
           "</b><ul>";
    for (const std::string& n : r.notes) out += "<li>" + Esc(n) + "</li>";
    out += "</ul></div>\n";
  }
  out += "<h2>Files</h2>\n<table>\n" +
         Row({"file", "format", "clock offset", "alignment", "partial", "events", "skipped"}, true);
  for (const SourceFile& f : t.files) {
    out += Row({f.path, f.format, FormatDuration(static_cast<double>(f.clock_offset_ns)),
                f.alignment.empty() ? "-" : f.alignment, f.partial ? "yes" : "no",
                std::to_string(f.events), std::to_string(f.skipped)});
  }
  out += "</table>\n<h2>Timeline</h2>\n" + TimelineSvg(t, o);
  out += "<h2>Temporal breakdown</h2>\n" + BreakdownSvg(t, r) + "<table>\n" +
         Row({"rank", "span", "compute", "communication", "memory", "idle"}, true);
  for (const TemporalBreakdown& b : r.temporal) {
    out += Row({ProcessLabel(t, b.process), FormatDuration(static_cast<double>(b.span_ns)),
                Pct(b.compute_ns, b.span_ns), Pct(b.communication_ns, b.span_ns),
                Pct(b.memory_ns, b.span_ns), Pct(b.idle_ns, b.span_ns)});
  }
  out += "</table>\n<h2>Idle time per queue</h2>\n<table>\n" +
         Row({"rank", "queue", "idle", "host wait", "kernel wait", "other"}, true);
  for (const IdleBreakdown& b : r.idle) {
    int64_t total = b.host_wait_ns + b.kernel_wait_ns + b.other_ns;
    out += Row({ProcessLabel(t, b.process),
                "dev " + std::to_string(b.device) + " q " + std::to_string(b.queue),
                FormatDuration(static_cast<double>(total)), Pct(b.host_wait_ns, total),
                Pct(b.kernel_wait_ns, total), Pct(b.other_ns, total)});
  }
  out += "</table>\n<h2>Kernels</h2>\n<p class=\"muted\">" + std::to_string(r.distinct_kernels) +
         " distinct device ops; durations of all compute and communication kernels:</p>\n" +
         HistogramSvg(r.kernel_duration_histogram, "kernel duration") + "<table>\n" +
         Row({"kernel", "kind", "count", "total", "mean", "p50", "p99", "cv", "shape"}, true);
  for (const KernelStat& k : r.kernels) {
    const Distribution& d = k.duration_ns;
    std::string shape = d.bimodal ? "bimodal" : "";
    if (d.heavy_tail) shape += shape.empty() ? "heavy tail" : ", heavy tail";
    std::string row =
        Row({ShortKernelName(k.name), std::string(EventKindName(k.kind)), std::to_string(d.count),
             FormatDuration(d.sum), FormatDuration(d.mean), FormatDuration(d.p50),
             FormatDuration(d.p99), Num(d.cv * 100) + "%", shape.empty() ? "-" : shape},
            false, k.name);
    out += row;
  }
  const LaunchLatency& l = r.launch;
  out += "</table>\n<h2>Launch delay</h2>\n<p>" + std::to_string(l.delay_ns.count) +
         " launches linked; p50 " + Esc(FormatDuration(l.delay_ns.p50)) + ", p99 " +
         Esc(FormatDuration(l.delay_ns.p99)) + ", " + std::to_string(l.outliers) +
         " outliers. Mean with a copy in flight " + Esc(FormatDuration(l.mean_delay_with_copy_ns)) +
         " (" + std::to_string(l.with_concurrent_copy) + " launches) vs " +
         Esc(FormatDuration(l.mean_delay_without_copy_ns)) + " without.</p>\n" +
         HistogramSvg(l.histogram, "launch delay");
  out += "<h2>Communication/computation overlap</h2>\n<table>\n" +
         Row({"rank", "communication", "overlapped", "ratio"}, true);
  for (const Overlap& ov : r.overlap) {
    out +=
        Row({ProcessLabel(t, ov.process), FormatDuration(static_cast<double>(ov.communication_ns)),
             FormatDuration(static_cast<double>(ov.overlapped_ns)), Num(100 * ov.ratio) + "%"});
  }
  out += "</table>\n<h2>Stragglers</h2>\n";
  const StragglerReport& s = r.stragglers;
  if (!s.computed) {
    out += "<p class=\"muted\">not computed (see notes)</p>\n";
  } else {
    out += "<p>Last <code>" + Esc(s.kernel) + "</code> on queue " + std::to_string(s.queue) + ", " +
           std::to_string(s.iterations) + " iterations (" + Esc(s.method) + ").</p>\n<table>\n" +
           Row({"rank", "times flagged", "mean normalized start"}, true);
    for (const StragglerRank& sr : s.ranks) {
      out += Row({ProcessLabel(t, sr.process), std::to_string(sr.times_straggler),
                  FormatFixed(sr.mean_normalized_start, 3)});
    }
    out += "</table>\n";
  }
  if (!r.notes.empty()) {
    out += "<h2>Notes</h2>\n<ul>";
    for (const std::string& n : r.notes) out += "<li>" + Esc(n) + "</li>";
    out += "</ul>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace gpufleet::trace
