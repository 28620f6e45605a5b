#include "canary/babelstream_parser.h"

#include <cmath>
#include <utility>

#include "canary/parse_util.h"
#include "core/strings.h"

namespace gpufleet::canary {
namespace {

std::string_view ValueAfterColon(std::string_view line) {
  size_t colon = line.find(':');
  return colon == std::string_view::npos ? std::string_view()
                                         : TrimWhitespace(line.substr(colon + 1));
}

// "max_mbytes_per_sec" -> "mbytes".
std::optional<double> CsvColumnUnitBytes(std::string_view column) {
  // "max_per_sec" matches both ends with nothing between; found by fuzzing.
  if (column.size() <= 12 || !StartsWith(column, "max_") || !EndsWith(column, "_per_sec")) {
    return std::nullopt;
  }
  column.remove_prefix(4);
  column.remove_suffix(8);
  return BabelStreamUnitBytes(column);
}

struct State {
  BabelStreamOutput out;
  std::optional<double> unit_bytes;  // set by the table header
  bool in_table = false;
};

// A bandwidth field in bytes/s: finite and non-negative in the table's unit
// and once scaled (4.4e304 MB/s is a finite number but no bandwidth).
std::optional<double> BytesPerSecond(std::string_view field, double unit_bytes) {
  std::optional<double> bw = ParseFinite(field);
  if (!bw || *bw < 0 || !std::isfinite(*bw * unit_bytes)) return std::nullopt;
  return *bw * unit_bytes;
}

void ParseCsvRow(std::string_view line, size_t line_no, std::string_view origin, State* s,
                 ParseReport* report) {
  std::vector<std::string_view> f = SplitString(line, ',');
  if (f.size() < 5) {
    report->Skip(origin, line_no, "expected 8 CSV fields, found " + std::to_string(f.size()));
    return;
  }
  std::optional<double> bw = BytesPerSecond(TrimWhitespace(f[4]), *s->unit_bytes);
  if (!bw) {
    report->Skip(origin, line_no, "bad bandwidth '" + std::string(f[4]) + "'");
    return;
  }
  BabelStreamRow row;
  row.function = std::string(TrimWhitespace(f[0]));
  row.bandwidth_bytes_per_s = *bw;
  if (f.size() >= 8) {
    row.min_s = ParseFinite(TrimWhitespace(f[5]));
    row.max_s = ParseFinite(TrimWhitespace(f[6]));
    row.avg_s = ParseFinite(TrimWhitespace(f[7]));
  }
  row.line = line_no;
  ++report->data_lines;
  s->out.rows.push_back(std::move(row));
}

// "Copy        433182.244  0.00124     0.00128     0.00125"
void ParseTextRow(std::string_view line, size_t line_no, std::string_view origin, State* s,
                  ParseReport* report) {
  std::vector<std::string_view> f = SplitFields(line);
  std::optional<double> bw = f.size() >= 2 ? BytesPerSecond(f[1], *s->unit_bytes) : std::nullopt;
  if (!bw) {
    report->Skip(origin, line_no, "expected 'Function bandwidth min max average'");
    return;
  }
  BabelStreamRow row;
  row.function = std::string(f[0]);
  row.bandwidth_bytes_per_s = *bw;
  if (f.size() >= 5) {
    row.min_s = ParseFinite(f[2]);
    row.max_s = ParseFinite(f[3]);
    row.avg_s = ParseFinite(f[4]);
  }
  row.line = line_no;
  ++report->data_lines;
  s->out.rows.push_back(std::move(row));
}

}  // namespace

std::optional<double> BabelStreamUnitBytes(std::string_view unit) {
  std::string u = ToLower(unit);
  for (std::string_view suffix : {"/sec", "/s"}) {
    if (EndsWith(u, suffix)) u.resize(u.size() - suffix.size());
  }
  if (u == "kb" || u == "kbytes") return 1e3;
  if (u == "mb" || u == "mbytes") return 1e6;
  if (u == "gb" || u == "gbytes") return 1e9;
  if (u == "tb" || u == "tbytes") return 1e12;
  if (u == "kib" || u == "kibytes") return 1024.0;
  if (u == "mib" || u == "mibytes") return 1024.0 * 1024;
  if (u == "gib" || u == "gibytes") return 1024.0 * 1024 * 1024;
  if (u == "tib" || u == "tibytes") return 1024.0 * 1024 * 1024 * 1024;
  return std::nullopt;
}

StatusOr<BabelStreamOutput> ParseBabelStream(std::string_view text, std::string_view origin,
                                             ParseReport* report) {
  State s;
  Status structural;
  ForEachLine(text, [&](size_t line_no, std::string_view raw) {
    ++report->lines;
    std::string_view line = TrimWhitespace(raw);
    if (line.empty() || !structural.ok()) return;
    if (StartsWith(line, "function,")) {
      std::vector<std::string_view> cols = SplitString(line, ',');
      s.unit_bytes = cols.size() >= 5 ? CsvColumnUnitBytes(TrimWhitespace(cols[4])) : std::nullopt;
      if (!s.unit_bytes) {
        structural = InvalidArgumentError(std::string(origin) + ":" + std::to_string(line_no) +
                                          ": unknown BabelStream CSV bandwidth column");
      }
      s.out.csv = true;
      s.in_table = true;
      return;
    }
    if (StartsWith(line, "Function")) {
      std::vector<std::string_view> cols = SplitFields(line);
      s.unit_bytes = cols.size() >= 2 ? BabelStreamUnitBytes(cols[1]) : std::nullopt;
      if (!s.unit_bytes) {
        structural = InvalidArgumentError(
            std::string(origin) + ":" + std::to_string(line_no) + ": unknown bandwidth unit '" +
            (cols.size() >= 2 ? std::string(cols[1]) : std::string()) + "'");
      }
      s.in_table = true;
      return;
    }
    if (s.in_table) {
      if (s.out.csv) {
        ParseCsvRow(line, line_no, origin, &s, report);
      } else {
        ParseTextRow(line, line_no, origin, &s, report);
      }
      return;
    }
    if (StartsWith(line, "Version:")) {
      s.out.version = std::string(ValueAfterColon(line));
    } else if (StartsWith(line, "Implementation:")) {
      s.out.implementation = std::string(ValueAfterColon(line));
    } else if (StartsWith(line, "Precision:")) {
      s.out.precision = std::string(ValueAfterColon(line));
    } else if (StartsWith(line, "Driver:")) {
      s.out.driver_api = std::string(ValueAfterColon(line));
    } else if (StartsWith(line, "Using ") && line.find(" device ") != std::string_view::npos) {
      s.out.device = std::string(TrimWhitespace(line.substr(line.find(" device ") + 8)));
    }
    // Other preamble lines ("Array size: ...", "Running kernels 100 times")
    // carry nothing we gate on.
  });
  RETURN_IF_ERROR(structural);
  if (s.out.rows.empty()) {
    return InvalidArgumentError(std::string(origin) + ": no BabelStream result rows found (" +
                                std::to_string(report->skipped_lines) + " line(s) skipped)");
  }
  return s.out;
}

std::vector<BenchmarkResult> BabelStreamResults(const BabelStreamOutput& out,
                                                std::string_view origin) {
  HardwareTarget target;
  if (!out.device.empty()) target.model = CatalogModelKey(out.device);
  std::vector<BenchmarkResult> results;
  for (const BabelStreamRow& row : out.rows) {
    BenchmarkResult b;
    b.target = target;
    b.benchmark_id = "stream." + ToLower(row.function);
    if (out.precision == "float") b.benchmark_id += ".float";
    b.unit = std::string(kUnitBytesPerSecond);
    b.values = {row.bandwidth_bytes_per_s};
    b.source = std::string(origin) + ":" + std::to_string(row.line);
    MergeResult(std::move(b), &results);
  }
  return results;
}

}  // namespace gpufleet::canary
