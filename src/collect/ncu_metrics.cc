#include "collect/ncu_metrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <vector>

#include "collect/capture_files.h"
#include "core/strings.h"

namespace gpufleet::collect {
namespace {

enum class Metric {
  kNone,
  kHitSectors,
  kMissSectors,
  kHitRatePct,
  kLongScoreboardPct,
  kLgThrottlePct,
  kLongScoreboardSamples,
  kLgThrottleSamples,
  kSamples,
  kDuration,
  kCount,
};

Metric MetricOf(std::string_view name) {
  if (name == "lts__t_sectors_lookup_hit.sum") return Metric::kHitSectors;
  if (name == "lts__t_sectors_lookup_miss.sum") return Metric::kMissSectors;
  if (name == "lts__t_sector_hit_rate.pct") return Metric::kHitRatePct;
  if (name == "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct") {
    return Metric::kLongScoreboardPct;
  }
  if (name == "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct") {
    return Metric::kLgThrottlePct;
  }
  // Warp-state sampling: samples per stall reason, and all samples.
  if (name == "smsp__pcsamp_warps_issue_stalled_long_scoreboard") {
    return Metric::kLongScoreboardSamples;
  }
  if (name == "smsp__pcsamp_warps_issue_stalled_lg_throttle") return Metric::kLgThrottleSamples;
  if (name == "smsp__pcsamp_sample_count") return Metric::kSamples;
  if (name == "gpu__time_duration.sum") return Metric::kDuration;
  return Metric::kNone;
}

// Seconds per unit of a duration; 0 for a unit that is not a time.
double SecondsPer(std::string_view unit) {
  if (unit == "nsecond" || unit == "ns") return 1e-9;
  if (unit == "usecond" || unit == "us") return 1e-6;
  if (unit == "msecond" || unit == "ms") return 1e-3;
  if (unit == "second" || unit == "s") return 1;
  return 0;
}

// ncu scales counts into "Ksector", "Msector", ... unless --print-units base.
double CountScale(std::string_view unit) {
  if (unit.size() < 2 || !std::islower(static_cast<unsigned char>(unit[1]))) return 1;
  switch (unit[0]) {
    case 'K':
      return 1e3;
    case 'M':
      return 1e6;
    case 'G':
      return 1e9;
    case 'T':
      return 1e12;
    default:
      return 1;
  }
}

// What one kernel launch reported; NaN = not reported.
struct Kernel {
  double v[static_cast<int>(Metric::kCount)];
  Kernel() { std::fill(std::begin(v), std::end(v), std::nan("")); }
  double& at(Metric m) { return v[static_cast<int>(m)]; }
  bool has(Metric m) const { return !std::isnan(v[static_cast<int>(m)]); }
  double get(Metric m) const { return v[static_cast<int>(m)]; }
};

bool IsNcuHeader(const std::vector<std::string>& fields) {
  if (fields.empty() || TrimWhitespace(fields[0]) != "ID") return false;
  bool name = false, value = false;
  for (const std::string& f : fields) {
    const std::string_view t = TrimWhitespace(f);
    name = name || t == "Metric Name";
    value = value || t == "Metric Value";
    if (MetricOf(t) != Metric::kNone) return true;
  }
  return name && value;
}

// Folds kernels into the summary.
void Fold(const std::map<std::pair<std::string, std::string>, Kernel>& kernels,
          NcuMetricSummary& s) {
  s.kernels = static_cast<int64_t>(kernels.size());
  for (const auto& [id, k] : kernels) {
    const bool timed = k.has(Metric::kDuration) && k.get(Metric::kDuration) > 0;
    const double w = timed ? k.get(Metric::kDuration) : 0;
    if (k.has(Metric::kHitSectors) && k.has(Metric::kMissSectors)) {
      s.l2_hit_sectors += k.get(Metric::kHitSectors);
      s.l2_miss_sectors += k.get(Metric::kMissSectors);
    }
    if (k.has(Metric::kHitRatePct)) {
      s.hit_rate.Add(std::clamp(k.get(Metric::kHitRatePct) / 100, 0.0, 1.0), w);
      s.durations_complete = s.durations_complete && timed;
    }
    double stall = std::nan("");
    if (k.has(Metric::kLongScoreboardPct)) {
      stall = k.get(Metric::kLongScoreboardPct);
      if (k.has(Metric::kLgThrottlePct)) stall += k.get(Metric::kLgThrottlePct);
      stall /= 100;
    } else if (k.has(Metric::kLongScoreboardSamples) && k.has(Metric::kSamples) &&
               k.get(Metric::kSamples) > 0) {
      stall = k.get(Metric::kLongScoreboardSamples);
      if (k.has(Metric::kLgThrottleSamples)) stall += k.get(Metric::kLgThrottleSamples);
      stall /= k.get(Metric::kSamples);
    }
    if (!std::isnan(stall)) {
      s.stall.Add(std::clamp(stall, 0.0, 1.0), w);
      s.durations_complete = s.durations_complete && timed;
    }
  }
}

}  // namespace

std::optional<double> NcuMetricSummary::L2MissRatio() const {
  if (l2_hit_sectors + l2_miss_sectors > 0) {
    return l2_miss_sectors / (l2_hit_sectors + l2_miss_sectors);
  }
  const std::optional<double> hit = hit_rate.Mean(durations_complete);
  if (!hit) return std::nullopt;
  return std::clamp(1 - *hit, 0.0, 1.0);
}

std::optional<double> NcuMetricSummary::MemoryStallRatio() const {
  const std::optional<double> r = stall.Mean(durations_complete);
  if (!r) return std::nullopt;
  return std::clamp(*r, 0.0, 1.0);
}

void NcuMetricSummary::Merge(const NcuMetricSummary& o) {
  l2_hit_sectors += o.l2_hit_sectors;
  l2_miss_sectors += o.l2_miss_sectors;
  hit_rate.Merge(o.hit_rate);
  stall.Merge(o.stall);
  durations_complete = durations_complete && o.durations_complete;
  kernels += o.kernels;
  MergeTally(o);
}

StatusOr<NcuMetricSummary> ParseNcuCsv(std::string_view text, std::string_view path) {
  const std::string where(path);
  LineReader reader(text);
  std::string_view line;
  std::vector<std::string> fields;
  // The header: the first line whose first field is "ID" and that names the
  // metric columns (ncu prints its progress and the application's output
  // before it).
  bool found = false;
  while (reader.Next(line)) {
    if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    if (!TrimWhitespace(line).starts_with("\"ID\"") && !TrimWhitespace(line).starts_with("ID,")) {
      continue;
    }
    if (SplitCsvLine(line, fields) && IsNcuHeader(fields)) {
      found = true;
      break;
    }
  }
  if (!found) {
    return InvalidArgumentError(where + ": not an Nsight Compute CSV (none of its " +
                                std::to_string(reader.line_no()) +
                                " lines is a header starting \"ID\" with \"Metric Name\" and "
                                "\"Metric Value\" columns or metric columns)");
  }
  std::map<std::string, size_t, std::less<>> col;
  for (size_t i = 0; i < fields.size(); ++i)
    col.try_emplace(std::string(TrimWhitespace(fields[i])), i);
  auto column = [&](std::string_view name) -> std::optional<size_t> {
    auto it = col.find(name);
    return it == col.end() ? std::nullopt : std::optional<size_t>(it->second);
  };
  const std::optional<size_t> name_col = column("Metric Name"), unit_col = column("Metric Unit"),
                              value_col = column("Metric Value"), pid_col = column("Process ID");
  const bool details = name_col && value_col;
  // Raw page: the metric columns, and their units from the row under the
  // header.
  std::vector<std::pair<size_t, Metric>> metric_cols;
  std::vector<std::string> units(fields.size());
  if (!details) {
    for (size_t i = 0; i < fields.size(); ++i) {
      const Metric m = MetricOf(TrimWhitespace(fields[i]));
      if (m != Metric::kNone) metric_cols.emplace_back(i, m);
    }
  }
  size_t needed = 1;
  if (details) needed = std::max(*name_col, *value_col) + 1;
  for (const auto& [i, m] : metric_cols) needed = std::max(needed, i + 1);
  const std::vector<std::string> header = fields;
  const size_t header_fields = header.size();

  NcuMetricSummary s;
  s.files = 1;
  std::map<std::pair<std::string, std::string>, Kernel> kernels;
  auto bad = [&](const std::string& why) {
    ++s.bad_rows;
    if (s.first_bad.empty()) {
      s.first_bad = where + ":" + std::to_string(reader.line_no()) + ": " + why;
    }
  };
  // Adds one (metric, unit, value) of a kernel; false when the value is not
  // a number.
  auto add = [&](Kernel& k, Metric m, std::string_view unit, std::string_view value) {
    value = TrimWhitespace(value);
    if (value.empty() || value == "n/a") return true;
    std::string digits;
    digits.reserve(value.size());
    for (char c : value) {
      if (c != ',') digits.push_back(c);
    }
    const std::optional<double> v = ParseDouble(digits);
    if (!v || !std::isfinite(*v) || *v < 0) return false;
    double x = *v;
    if (m == Metric::kDuration) {
      const double per = SecondsPer(unit);
      if (per == 0) return true;  // not a time unit: no weight
      x *= per;
    } else if (m == Metric::kHitSectors || m == Metric::kMissSectors ||
               m == Metric::kLongScoreboardSamples || m == Metric::kLgThrottleSamples ||
               m == Metric::kSamples) {
      x *= CountScale(unit);
    }
    k.at(m) = x;
    return true;
  };
  bool units_row_pending = !details;
  while (reader.Next(line)) {
    const std::string_view t = TrimWhitespace(line);
    if (t.empty() || t.starts_with("==")) continue;  // ==PROF==, ==WARNING==, ==ERROR==
    if (!SplitCsvLine(line, fields)) {
      ++s.rows;
      bad("unterminated quote");
      continue;
    }
    const std::string_view id = fields.empty() ? std::string_view() : TrimWhitespace(fields[0]);
    if (units_row_pending) {
      units_row_pending = false;
      if (!ParseUint64(id)) {  // the units under the header
        for (size_t i = 0; i < fields.size() && i < units.size(); ++i) {
          units[i] = std::string(TrimWhitespace(fields[i]));
        }
        continue;
      }
    }
    ++s.rows;
    if (fields.size() < needed) {
      bad("row has " + std::to_string(fields.size()) + " fields, the header " +
          std::to_string(header_fields));
      continue;
    }
    if (!ParseUint64(id)) {
      bad("ID '" + std::string(id) + "' is not a kernel number");
      continue;
    }
    const std::string pid = pid_col && *pid_col < fields.size()
                                ? std::string(TrimWhitespace(fields[*pid_col]))
                                : std::string();
    if (details) {
      const std::string_view name = TrimWhitespace(fields[*name_col]);
      const Metric m = MetricOf(name);
      if (m == Metric::kNone) continue;
      const std::string_view unit =
          unit_col && *unit_col < fields.size() ? TrimWhitespace(fields[*unit_col]) : "";
      if (!add(kernels[{std::string(id), pid}], m, unit, fields[*value_col])) {
        bad("Metric Value '" + fields[*value_col] + "' of " + std::string(name) +
            " is not a non-negative number");
      }
      continue;
    }
    Kernel& k = kernels[{std::string(id), pid}];
    for (const auto& [i, m] : metric_cols) {
      if (!add(k, m, units[i], fields[i])) {
        bad("value '" + fields[i] + "' of " + header[i] + " is not a non-negative number");
        break;
      }
    }
  }
  Fold(kernels, s);
  return s;
}

StatusOr<NcuMetricSummary> ReadNcuCsv(const std::string& path) {
  return ReadCaptureReports<NcuMetricSummary>(
      path, [](std::string_view name) { return name.ends_with(".csv"); }, ParseNcuCsv,
      "Nsight Compute CSV");
}

}  // namespace gpufleet::collect
