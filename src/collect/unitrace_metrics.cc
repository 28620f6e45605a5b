#include "collect/unitrace_metrics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/strings.h"

namespace gpufleet::collect {
namespace {

// "=== Device #0 Metrics ==="
bool IsBanner(std::string_view line) {
  return line.starts_with("=== Device #") && line.ends_with("Metrics ===");
}

// The columns a report section has, by index; -1 when absent.
struct Columns {
  size_t count = 0;
  int gpu_time = -1, l3_hit = -1, l3_miss = -1, sbid = -1, sendwr = -1;
  int l3_read_bytes = -1, memory_read_bytes = -1;
  int sbid_samples = -1, send_samples = -1;
  std::vector<size_t> sample_cols;  // every [Events] column of a stall-sampling report
  bool used = false;                // any metric above
};

// Header fields are "NAME[unit]" after blanks; the first is "Kernel".
std::optional<Columns> ParseHeader(std::string_view line) {
  std::vector<std::string_view> fields = SplitString(line, ',');
  if (fields.size() < 2 || TrimWhitespace(fields[0]) != "Kernel") return std::nullopt;
  Columns c;
  c.count = fields.size();
  for (size_t i = 1; i < fields.size(); ++i) {
    const std::string_view f = TrimWhitespace(fields[i]);
    const size_t bracket = f.find('[');
    const std::string_view name = f.substr(0, bracket);
    const std::string_view unit =
        bracket == std::string_view::npos ? std::string_view() : f.substr(bracket);
    const int at = static_cast<int>(i);
    if (name == "GpuTime" && unit == "[ns]") c.gpu_time = at;
    if (name == "L3_HIT") c.l3_hit = at;
    if (name == "L3_MISS") c.l3_miss = at;
    if (name == "L3_BYTE_READ") c.l3_read_bytes = at;
    if (name == "GPU_MEMORY_BYTE_READ") c.memory_read_bytes = at;
    if (name == "XVE_STALL_SBID") c.sbid = at;
    if (name == "XVE_STALL_SENDWR") c.sendwr = at;
    if (unit == "[Events]") {
      c.sample_cols.push_back(i);
      if (name == "SbidStall") c.sbid_samples = at;
      if (name == "SendStall") c.send_samples = at;
    }
  }
  if (c.sbid_samples < 0 && c.send_samples < 0) c.sample_cols.clear();
  // Without lookups (Data Center GPU Max's ComputeBasic has none), the
  // bytes read from L3 and from memory stand in.
  const bool lookups = c.l3_hit >= 0 && c.l3_miss >= 0;
  if (lookups || c.l3_read_bytes < 0 || c.memory_read_bytes < 0) {
    c.l3_read_bytes = c.memory_read_bytes = -1;
  }
  c.used =
      lookups || c.l3_read_bytes >= 0 || c.sbid >= 0 || c.sendwr >= 0 || !c.sample_cols.empty();
  return c;
}

// A value unitrace wrote: a non-negative finite number.
std::optional<double> ValueAt(const std::vector<std::string_view>& values, int col) {
  if (col < 0) return std::nullopt;
  const std::optional<double> v = ParseDouble(TrimWhitespace(values[static_cast<size_t>(col)]));
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> UnitraceMetricSummary::L2MissRatio() const {
  if (l3_hits + l3_misses > 0) return l3_misses / (l3_hits + l3_misses);
  if (l3_read_bytes > 0) return std::min(1.0, memory_read_bytes / l3_read_bytes);
  return std::nullopt;
}

std::optional<double> UnitraceMetricSummary::MemoryStallRatio() const {
  if (stall.kernels > 0) return stall.Mean(durations_complete);
  if (samples > 0) return std::min(1.0, sampled_memory_stalls / samples);
  return std::nullopt;
}

void UnitraceMetricSummary::Merge(const UnitraceMetricSummary& o) {
  MergeTally(o);
  l3_hits += o.l3_hits;
  l3_misses += o.l3_misses;
  l3_read_bytes += o.l3_read_bytes;
  memory_read_bytes += o.memory_read_bytes;
  stall.Merge(o.stall);
  durations_complete = durations_complete && o.durations_complete;
  sampled_memory_stalls += o.sampled_memory_stalls;
  samples += o.samples;
  sections += o.sections;
}

StatusOr<UnitraceMetricSummary> ParseUnitraceMetrics(std::string_view text, std::string_view path) {
  UnitraceMetricSummary s;
  s.files = 1;
  std::optional<Columns> cols;
  bool after_banner = false;
  size_t line_no = 0, pos = 0;
  auto bad = [&](const std::string& why) {
    if (s.bad_rows++ == 0)
      s.first_bad = std::string(path) + ":" + std::to_string(line_no) + ": " + why;
  };
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = TrimWhitespace(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.empty()) continue;
    if (IsBanner(line)) {
      after_banner = true;
      cols.reset();
      continue;
    }
    if (!after_banner) continue;  // the application's own output
    if (std::optional<Columns> header = ParseHeader(line)) {
      if (!cols) ++s.sections;
      cols = header;
      continue;
    }
    if (!cols) {  // a banner not followed by a header: not a report section
      after_banner = false;
      continue;
    }
    if (!cols->used) continue;
    std::vector<std::string_view> fields = SplitString(line, ',');
    if (fields.size() < cols->count) {
      bad(std::to_string(fields.size()) + " fields, the header has " + std::to_string(cols->count));
      continue;
    }
    // The kernel name takes whatever commas it holds; the values are the
    // last count-1 fields. Index 0 stands for the name.
    std::vector<std::string_view> values(fields.end() - static_cast<ptrdiff_t>(cols->count),
                                         fields.end());
    const std::optional<double> hit = ValueAt(values, cols->l3_hit);
    const std::optional<double> miss = ValueAt(values, cols->l3_miss);
    const std::optional<double> sbid = ValueAt(values, cols->sbid);
    const std::optional<double> sendwr = ValueAt(values, cols->sendwr);
    const std::optional<double> l3_bytes = ValueAt(values, cols->l3_read_bytes);
    const std::optional<double> memory_bytes = ValueAt(values, cols->memory_read_bytes);
    if ((cols->l3_hit >= 0 && !hit) || (cols->l3_miss >= 0 && !miss) ||
        (cols->sbid >= 0 && !sbid) || (cols->sendwr >= 0 && !sendwr) ||
        (cols->l3_read_bytes >= 0 && (!l3_bytes || !memory_bytes))) {
      bad("a metric value is not a non-negative number");
      continue;
    }
    ++s.rows;
    if (hit && miss) {
      s.l3_hits += *hit;
      s.l3_misses += *miss;
    }
    if (l3_bytes && memory_bytes) {
      s.l3_read_bytes += *l3_bytes;
      s.memory_read_bytes += *memory_bytes;
    }
    if (sbid || sendwr) {
      const std::optional<double> ns = ValueAt(values, cols->gpu_time);
      const bool timed = ns && *ns > 0;
      s.stall.Add(std::clamp((sbid.value_or(0) + sendwr.value_or(0)) / 100, 0.0, 1.0),
                  timed ? *ns * 1e-9 : 0);
      s.durations_complete = s.durations_complete && timed;
    }
    if (!cols->sample_cols.empty()) {
      double all = 0;
      for (size_t i : cols->sample_cols) all += ValueAt(values, static_cast<int>(i)).value_or(0);
      s.samples += all;
      s.sampled_memory_stalls += ValueAt(values, cols->sbid_samples).value_or(0) +
                                 ValueAt(values, cols->send_samples).value_or(0);
    }
  }
  if (s.sections == 0) {
    return InvalidArgumentError(std::string(path) +
                                ": not a unitrace metric report (no \"=== Device #N Metrics ===\" "
                                "banner followed by a Kernel,... header in " +
                                std::to_string(line_no) + " lines)");
  }
  return s;
}

StatusOr<UnitraceMetricSummary> ReadUnitraceMetrics(const std::string& path) {
  return ReadCaptureReports<UnitraceMetricSummary>(
      path,
      [](std::string_view name) {
        return name.ends_with(".log") || name.ends_with(".txt") || name.ends_with(".csv");
      },
      ParseUnitraceMetrics, "unitrace metric report");
}

}  // namespace gpufleet::collect
