#include "place/alibaba_csv.h"

#include <optional>

#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet::place {
namespace {

// The trace has no quoting; a field never contains a comma.
struct Table {
  std::vector<std::string> header;
  int Column(std::string_view name) const {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return static_cast<int>(i);
    }
    return -1;
  }
};

template <typename T, typename RowFn>
StatusOr<CsvLoad<T>> ParseTable(std::string_view data, std::string_view source,
                                const CsvOptions& opts,
                                const std::vector<std::string_view>& required, RowFn row_fn) {
  CsvLoad<T> out;
  Table table;
  std::vector<int> cols;
  size_t pos = 0;
  int line_no = 0;
  bool have_header = false;
  while (pos < data.size()) {
    size_t end = data.find('\n', pos);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (TrimWhitespace(line).empty()) continue;
    std::vector<std::string_view> fields = SplitString(line, ',');
    if (!have_header) {
      for (std::string_view f : fields) table.header.emplace_back(TrimWhitespace(f));
      for (std::string_view r : required) {
        int c = table.Column(r);
        if (c < 0) {
          return InvalidArgumentError(std::string(source) + ":" + std::to_string(line_no) +
                                      ": header lacks column '" + std::string(r) + "'");
        }
        cols.push_back(c);
      }
      have_header = true;
      continue;
    }
    std::string why;
    if (fields.size() != table.header.size()) {
      why = "expected " + std::to_string(table.header.size()) + " fields, got " +
            std::to_string(fields.size());
    } else {
      std::optional<T> row = row_fn(fields, table, cols, &why);
      if (row) {
        out.rows.push_back(std::move(*row));
        continue;
      }
    }
    std::string msg = std::string(source) + ":" + std::to_string(line_no) + ": " + why;
    if (opts.strict) return InvalidArgumentError(msg);
    out.skipped.push_back(std::move(msg));
  }
  if (!have_header) return InvalidArgumentError(std::string(source) + ": empty file, no header");
  return out;
}

std::optional<int64_t> Field(const std::vector<std::string_view>& f, int col,
                             std::string_view name, std::string* why) {
  std::optional<int64_t> v = ParseInt64(TrimWhitespace(f[col]));
  if (!v || *v < 0) {
    *why = "field '" + std::string(name) + "' is not a non-negative integer: '" +
           std::string(f[col]) + "'";
    return std::nullopt;
  }
  return v;
}

}  // namespace

StatusOr<CsvLoad<NodeSpec>> ParseAlibabaNodes(std::string_view data, std::string_view source,
                                              const CsvOptions& opts) {
  static const std::vector<std::string_view> kRequired = {"sn", "cpu_milli", "memory_mib", "gpu",
                                                          "model"};
  return ParseTable<NodeSpec>(
      data, source, opts, kRequired,
      [](const std::vector<std::string_view>& f, const Table&, const std::vector<int>& c,
         std::string* why) -> std::optional<NodeSpec> {
        NodeSpec n;
        n.name = std::string(TrimWhitespace(f[c[0]]));
        if (n.name.empty()) {
          *why = "empty node name";
          return std::nullopt;
        }
        auto cpu = Field(f, c[1], "cpu_milli", why);
        if (!cpu) return std::nullopt;
        auto mem = Field(f, c[2], "memory_mib", why);
        if (!mem) return std::nullopt;
        auto gpu = Field(f, c[3], "gpu", why);
        if (!gpu) return std::nullopt;
        if (*gpu > kMaxGpusPerNode) {
          *why = "gpu count " + std::to_string(*gpu) + " above " +
                 std::to_string(kMaxGpusPerNode);
          return std::nullopt;
        }
        n.cpu_milli = *cpu;
        n.memory_mib = *mem;
        n.gpu_count = static_cast<int>(*gpu);
        n.gpu_model = std::string(TrimWhitespace(f[c[4]]));
        if (n.gpu_count > 0 && n.gpu_model.empty()) {
          *why = "GPU node without a model";
          return std::nullopt;
        }
        // The trace's GPUs are all NVIDIA (G1-G3 are undisclosed models).
        if (n.gpu_count > 0) n.vendor = "nvidia";
        return n;
      });
}

StatusOr<CsvLoad<WorkloadRequest>> ParseAlibabaPods(std::string_view data,
                                                    std::string_view source,
                                                    const CsvOptions& opts) {
  static const std::vector<std::string_view> kRequired = {"name", "cpu_milli", "memory_mib",
                                                          "num_gpu", "gpu_milli"};
  return ParseTable<WorkloadRequest>(
      data, source, opts, kRequired,
      [](const std::vector<std::string_view>& f, const Table& t, const std::vector<int>& c,
         std::string* why) -> std::optional<WorkloadRequest> {
        WorkloadRequest r;
        r.name = std::string(TrimWhitespace(f[c[0]]));
        if (r.name.empty()) {
          *why = "empty pod name";
          return std::nullopt;
        }
        auto cpu = Field(f, c[1], "cpu_milli", why);
        if (!cpu) return std::nullopt;
        auto mem = Field(f, c[2], "memory_mib", why);
        if (!mem) return std::nullopt;
        auto num = Field(f, c[3], "num_gpu", why);
        if (!num) return std::nullopt;
        auto milli = Field(f, c[4], "gpu_milli", why);
        if (!milli) return std::nullopt;
        if (*milli > kMilliPerGpu) {
          *why = "gpu_milli " + std::to_string(*milli) + " above 1000";
          return std::nullopt;
        }
        if (*num > kMaxGpusPerNode) {
          *why = "num_gpu " + std::to_string(*num) + " above " + std::to_string(kMaxGpusPerNode);
          return std::nullopt;
        }
        if (*num > 1 && *milli != kMilliPerGpu) {
          *why = "a GPU fraction (" + std::to_string(*milli) + ") is only valid with num_gpu 1";
          return std::nullopt;
        }
        if ((*num == 0) != (*milli == 0)) {
          *why = "num_gpu and gpu_milli disagree on whether a GPU is needed";
          return std::nullopt;
        }
        r.cpu_milli = *cpu;
        r.memory_mib = *mem;
        r.gpu_count = static_cast<int>(*num);
        r.gpu_milli = *milli;
        if (int spec = t.Column("gpu_spec"); spec >= 0) {
          for (std::string_view m : SplitString(f[spec], '|')) {
            m = TrimWhitespace(m);
            if (!m.empty()) r.gpu_models.emplace_back(m);
          }
        }
        if (int qos = t.Column("qos"); qos >= 0) {
          std::string_view q = TrimWhitespace(f[qos]);
          if (q == "LS") r.intent = Intent::kLatency;
          if (q == "BE") r.intent = Intent::kThroughput;
        }
        return r;
      });
}

StatusOr<CsvLoad<NodeSpec>> LoadAlibabaNodes(const std::string& path, const CsvOptions& opts) {
  ASSIGN_OR_RETURN(std::string data, ReadFileToString(path));
  return ParseAlibabaNodes(data, path, opts);
}

StatusOr<CsvLoad<WorkloadRequest>> LoadAlibabaPods(const std::string& path,
                                                   const CsvOptions& opts) {
  ASSIGN_OR_RETURN(std::string data, ReadFileToString(path));
  return ParseAlibabaPods(data, path, opts);
}

}  // namespace gpufleet::place
