#include "collect/rocprof_counters.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "collect/capture_files.h"
#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet::collect {
namespace {

// "TCC_HIT[3]" -> "TCC_HIT".
std::string_view WithoutInstance(std::string_view name) {
  const size_t bracket = name.find('[');
  return bracket == std::string_view::npos ? name : name.substr(0, bracket);
}

}  // namespace

std::optional<double> RocprofCounterSummary::L2MissRatio() const {
  const bool sums = l2_hits + l2_misses > 0;
  const double hits = sums ? l2_hits : l2_channel_hits;
  const double misses = sums ? l2_misses : l2_channel_misses;
  if (!(hits + misses > 0)) return std::nullopt;
  return misses / (hits + misses);
}

std::optional<double> RocprofCounterSummary::MemoryStallRatio() const {
  if (stalled_dispatches == 0) return std::nullopt;
  return std::clamp(stalled_percent_sum / static_cast<double>(stalled_dispatches) / 100, 0.0, 1.0);
}

void RocprofCounterSummary::Merge(const RocprofCounterSummary& o) {
  l2_hits += o.l2_hits;
  l2_misses += o.l2_misses;
  l2_channel_hits += o.l2_channel_hits;
  l2_channel_misses += o.l2_channel_misses;
  stalled_percent_sum += o.stalled_percent_sum;
  stalled_dispatches += o.stalled_dispatches;
  MergeTally(o);
}

StatusOr<RocprofCounterSummary> ParseRocprofCounters(std::string_view text, std::string_view path) {
  const std::string where(path);
  LineReader reader(text);
  std::string_view line;
  if (!reader.Next(line)) return InvalidArgumentError(where + ":1: empty counter file");
  if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  std::vector<std::string> fields;
  if (!SplitCsvLine(line, fields)) return InvalidArgumentError(where + ":1: unterminated quote");
  std::map<std::string, size_t, std::less<>> col;
  for (size_t i = 0; i < fields.size(); ++i) col[std::string(TrimWhitespace(fields[i]))] = i;
  auto name_it = col.find("Counter_Name");
  auto value_it = col.find("Counter_Value");
  if (name_it == col.end() || value_it == col.end()) {
    return InvalidArgumentError(where +
                                ":1: not a rocprofv3 counter collection (no Counter_Name and "
                                "Counter_Value columns)");
  }
  const size_t name_col = name_it->second, value_col = value_it->second;
  const size_t needed = std::max(name_col, value_col) + 1;

  RocprofCounterSummary s;
  s.files = 1;
  auto bad = [&](const std::string& why) {
    ++s.bad_rows;
    if (s.first_bad.empty())
      s.first_bad = where + ":" + std::to_string(reader.line_no()) + ": " + why;
  };
  while (reader.Next(line)) {
    if (TrimWhitespace(line).empty()) continue;
    ++s.rows;
    if (!SplitCsvLine(line, fields)) {
      bad("unterminated quote");
      continue;
    }
    if (fields.size() < needed) {
      bad("row has " + std::to_string(fields.size()) + " fields, the header " +
          std::to_string(col.size()));
      continue;
    }
    const std::string_view name = WithoutInstance(TrimWhitespace(fields[name_col]));
    const bool hit = name == "TCC_HIT" || name == "TCC_HIT_sum";
    const bool miss = name == "TCC_MISS" || name == "TCC_MISS_sum";
    const bool stalled = name == "MemUnitStalled";
    if (!hit && !miss && !stalled) continue;
    const std::optional<double> v = ParseDouble(TrimWhitespace(fields[value_col]));
    if (!v || !std::isfinite(*v) || *v < 0) {
      bad("Counter_Value '" + fields[value_col] + "' of " + std::string(name) +
          " is not a non-negative number");
      continue;
    }
    const bool sum = name.ends_with("_sum");
    if (hit) (sum ? s.l2_hits : s.l2_channel_hits) += *v;
    if (miss) (sum ? s.l2_misses : s.l2_channel_misses) += *v;
    if (stalled) {
      s.stalled_percent_sum += std::min(*v, 100.0);
      ++s.stalled_dispatches;
    }
  }
  return s;
}

StatusOr<RocprofCounterSummary> ReadRocprofCounters(const std::string& path) {
  ASSIGN_OR_RETURN(std::vector<std::string> files, CaptureFiles(path, [](std::string_view name) {
                     return name.ends_with("counter_collection.csv");
                   }));
  if (files.empty()) return NotFoundError(path + ": no *counter_collection.csv under it");
  RocprofCounterSummary total;
  for (const std::string& f : files) {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(f));
    ASSIGN_OR_RETURN(RocprofCounterSummary one, ParseRocprofCounters(text, f));
    total.Merge(one);
  }
  return total;
}

}  // namespace gpufleet::collect
