#include "normalize/amd_smi_cli_parser.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "core/json_nesting.h"
#include "core/strings.h"

namespace gpufleet {

namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 16;

// "XCP_3" -> "3"; "" when `key` is not a partition key.
std::string_view XcpIndex(std::string_view key) {
  if (key.size() > 4 && (key.substr(0, 4) == "XCP_" || key.substr(0, 4) == "xcp_")) {
    std::string_view n = key.substr(4);
    if (n.find_first_not_of("0123456789") == std::string_view::npos) return n;
  }
  return {};
}

CliDevice NewAmdDevice(std::string_view index) {
  CliDevice d;
  d.device.vendor = Vendor::kAmd;
  d.identity.Set("gpu_index", index);
  return d;
}

// Adds one value "<number> <unit>" / "N/A" / a bare number to `dev`.
// Returns an error message, or "" when the token was used or skipped.
std::string AddTextValue(std::string_view token, const std::string& name, const Labels& labels,
                         CliDevice& dev) {
  token = TrimWhitespace(token);
  if (token.empty() || token == "N/A") {
    dev.readings.CountError("not_supported");
    return "";
  }
  char c = token[0];
  if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.')) {
    return "";  // a state such as ENABLED / UNTHROTTLED, not a measurement
  }
  size_t sp = token.find(' ');
  std::string_view number = token.substr(0, sp);
  std::string_view unit = sp == std::string_view::npos ? "" : TrimWhitespace(token.substr(sp));
  auto v = ParseDouble(number);
  if (!v) return "'" + std::string(token) + "' is not a number";
  auto scale = UnitScale(unit);
  if (!scale) return "unknown unit '" + std::string(unit) + "'";
  dev.readings.Add(name, *v * *scale, labels);
  return "";
}

class JsonWalker {
 public:
  explicit JsonWalker(CliParseResult& result) : result_(result) {}

  void Walk(const json& node, const std::string& path, const std::string& name,
            const Labels& labels, CliDevice& dev, int depth) {
    if (depth > kMaxDepth) {
      result_.errors.push_back(path + ": nested too deep");
      return;
    }
    if (node.is_object()) {
      auto value = node.find("value");
      if (value != node.end()) {
        auto unit = node.find("unit");
        Leaf(*value, unit == node.end() ? json() : *unit, path, name, labels, dev);
        return;
      }
      for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string& key = it.key();
        std::string child_path = path + "." + key;
        std::string_view xcp = XcpIndex(key);
        if (!xcp.empty()) {
          Labels l = labels;
          l.Set("xcp", xcp);
          Walk(*it, child_path, name, l, dev, depth + 1);
          continue;
        }
        std::string child_name = name.empty() ? ToLower(key) : name + "." + ToLower(key);
        Walk(*it, child_path, child_name, labels, dev, depth + 1);
      }
    } else if (node.is_array()) {
      for (size_t i = 0; i < node.size(); ++i) {
        Labels l = labels;
        l.Set("index", std::to_string(i));
        Walk(node[i], path + "[" + std::to_string(i) + "]", name, l, dev, depth + 1);
      }
    } else {
      Leaf(node, json(), path, name, labels, dev);
    }
  }

 private:
  void Leaf(const json& value, const json& unit, const std::string& path, const std::string& name,
            const Labels& labels, CliDevice& dev) {
    if (value.is_string()) {
      const std::string& s = value.get_ref<const std::string&>();
      if (s == "N/A") {
        dev.readings.CountError("not_supported");
        return;
      }
      if (unit.is_null()) return;  // a state string such as "ENABLED"
      auto v = ParseDouble(s);  // some versions quote numbers that carry a unit
      if (!v) {
        result_.errors.push_back(path + ": value '" + s + "' is not a number");
        return;
      }
      AddNumber(*v, unit, path, name, labels, dev);
      return;
    }
    if (value.is_number()) {
      AddNumber(value.get<double>(), unit, path, name, labels, dev);
      return;
    }
    if (value.is_null()) {
      dev.readings.CountError("not_supported");
      return;
    }
    // Booleans carry no measurement.
  }

  void AddNumber(double v, const json& unit, const std::string& path, const std::string& name,
                 const Labels& labels, CliDevice& dev) {
    std::string u;
    if (unit.is_string()) {
      u = unit.get<std::string>();
    } else if (!unit.is_null()) {
      result_.errors.push_back(path + ".unit: not a string");
      return;
    }
    auto scale = UnitScale(u);
    if (!scale) {
      result_.errors.push_back(path + ": unknown unit '" + u + "'");
      return;
    }
    if (name.empty()) return;
    dev.readings.Add(name, v * *scale, labels);
  }

  CliParseResult& result_;
};

}  // namespace

StatusOr<CliParseResult> ParseAmdSmiJson(std::string_view text) {
  if (MaxJsonNesting(text) > 64) {
    return InvalidArgumentError("JSON nested deeper than 64 levels (not amd-smi output)");
  }
  json root;
  try {
    root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    return InvalidArgumentError("byte " + std::to_string(e.byte) + ": not JSON: " + e.what());
  }
  const json* list = &root;
  std::string base = "$";
  if (root.is_object()) {
    auto it = root.find("gpu_data");
    if (it != root.end()) {
      list = &*it;
      base = "$.gpu_data";
    }
  }
  if (!list->is_array()) {
    return InvalidArgumentError(base +
                                ": expected a list of GPUs or an object with \"gpu_data\"");
  }
  CliParseResult result;
  JsonWalker walker(result);
  for (size_t i = 0; i < list->size(); ++i) {
    const json& gpu = (*list)[i];
    std::string path = base + "[" + std::to_string(i) + "]";
    if (!gpu.is_object()) {
      result.errors.push_back(path + ": expected an object");
      continue;
    }
    std::string index = std::to_string(i);
    auto g = gpu.find("gpu");
    if (g != gpu.end() && g->is_number_integer()) {
      index = std::to_string(g->get<int64_t>());
    } else {
      result.errors.push_back(path + ".gpu: missing GPU index; using the position");
    }
    CliDevice dev = NewAmdDevice(index);
    for (auto it = gpu.begin(); it != gpu.end(); ++it) {
      if (it.key() == "gpu") continue;
      walker.Walk(*it, path + "." + it.key(), ToLower(it.key()), Labels(), dev, 1);
    }
    result.devices.push_back(std::move(dev));
  }
  return result;
}

StatusOr<CliParseResult> ParseAmdSmiText(std::string_view text) {
  CliParseResult result;
  struct Section {
    size_t indent;
    std::string key;  // raw key
  };
  std::vector<Section> stack;
  std::vector<std::string_view> lines = SplitString(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t line_no = i + 1;
    std::string_view raw = lines[i];
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string_view line = TrimWhitespace(raw);
    if (line.empty() || line[0] == '$') continue;  // blank or the echoed command
    size_t indent = raw.find_first_not_of(" \t");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      result.errors.push_back("line " + std::to_string(line_no) + ": expected 'KEY: value'");
      continue;
    }
    std::string_view key = TrimWhitespace(line.substr(0, colon));
    std::string_view rest = TrimWhitespace(line.substr(colon + 1));
    while (!stack.empty() && stack.back().indent >= indent) stack.pop_back();

    if (indent == 0 && key == "GPU") {
      if (rest.empty() || rest.find_first_not_of("0123456789") != std::string_view::npos) {
        result.errors.push_back("line " + std::to_string(line_no) + ": bad GPU index '" +
                                std::string(rest) + "'");
        continue;
      }
      result.devices.push_back(NewAmdDevice(rest));
      continue;
    }
    if (result.devices.empty()) {
      result.errors.push_back("line " + std::to_string(line_no) + ": value before any 'GPU: N'");
      continue;
    }
    if (rest.empty()) {
      stack.push_back(Section{indent, std::string(key)});
      continue;
    }
    // Arrays may wrap: "[0 %, N/A,\n    N/A]".
    std::string joined;
    if (rest[0] == '[') {
      joined.assign(rest);
      size_t first_line = line_no;
      while (joined.find(']') == std::string::npos && i + 1 < lines.size()) {
        ++i;
        joined += ' ';
        joined += TrimWhitespace(lines[i]);
      }
      if (joined.find(']') == std::string::npos || joined.back() != ']') {
        result.errors.push_back("line " + std::to_string(first_line) + ": unterminated list");
        continue;
      }
      rest = std::string_view(joined).substr(1, joined.size() - 2);
    }
    std::string name;
    Labels labels;
    for (const Section& s : stack) {
      std::string_view xcp = XcpIndex(s.key);
      if (!xcp.empty()) {
        labels.Set("xcp", xcp);
        continue;
      }
      if (!name.empty()) name += '.';
      name += ToLower(s.key);
    }
    std::string_view xcp = XcpIndex(key);
    if (!xcp.empty()) {
      labels.Set("xcp", xcp);
    } else {
      if (!name.empty()) name += '.';
      name += ToLower(key);
    }
    CliDevice& dev = result.devices.back();
    if (!joined.empty()) {
      std::vector<std::string_view> items = SplitString(rest, ',');
      for (size_t k = 0; k < items.size(); ++k) {
        Labels l = labels;
        l.Set("index", std::to_string(k));
        std::string err = AddTextValue(items[k], name, l, dev);
        if (!err.empty()) result.errors.push_back("line " + std::to_string(line_no) + ": " + err);
      }
    } else {
      std::string err = AddTextValue(rest, name, labels, dev);
      if (!err.empty()) result.errors.push_back("line " + std::to_string(line_no) + ": " + err);
    }
  }
  if (result.devices.empty()) {
    return InvalidArgumentError("no 'GPU: N' line found (not amd-smi metric output?)");
  }
  return result;
}

}  // namespace gpufleet
