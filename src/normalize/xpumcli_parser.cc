#include "normalize/xpumcli_parser.h"

#include <map>
#include <set>

#include "core/strings.h"

namespace gpufleet {

namespace {

struct Row {
  size_t line = 0;
  std::string name;
  std::string value;
};

struct TileReading {
  std::string tile;  // "" = device level
  RawReading reading;
};

struct PendingDevice {
  std::string index;
  std::vector<TileReading> readings;
  std::map<std::string, uint64_t> not_supported;  // tile -> count
};

bool IsNumberText(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// Parses one row's value cell into readings of `dev`.
void ParseRow(const Row& row, PendingDevice& dev, std::vector<std::string>& errors) {
  std::string base = ReadingName(row.name);
  if (base.empty()) return;
  double scale = 1.0;
  size_t open = row.name.find('(');
  if (open != std::string::npos) {
    size_t close = row.name.find(')', open);
    std::string_view unit = std::string_view(row.name).substr(
        open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
    auto s = UnitScale(TrimWhitespace(unit));
    if (!s) {
      errors.push_back("line " + std::to_string(row.line) + ": unknown unit '" +
                       std::string(unit) + "' in '" + row.name + "'");
      return;
    }
    scale = *s;
  }
  std::string_view cell = TrimWhitespace(row.value);
  if (cell.empty()) {
    ++dev.not_supported[""];
    return;
  }
  std::string tile;
  for (std::string_view item : SplitString(cell, ',')) {
    std::vector<std::string_view> parts = SplitString(item, ':');
    for (auto& p : parts) p = TrimWhitespace(p);
    std::string_view value = parts.back();
    std::string name = base;
    std::string engine;
    bool device_level = false;
    bool ok = true;
    for (size_t k = 0; k + 1 < parts.size(); ++k) {
      std::string_view key = parts[k];
      if (key.starts_with("Tile ") && IsNumberText(key.substr(5))) {
        tile = std::string(key.substr(5));
      } else if (key.starts_with("Engine ") && IsNumberText(key.substr(7))) {
        engine = std::string(key.substr(7));
      } else if (key == "avg" || key == "min" || key == "max" || key == "current") {
        name = base + "." + std::string(key);
      } else if (key == "total") {
        device_level = true;
      } else {
        errors.push_back("line " + std::to_string(row.line) + ": unexpected '" +
                         std::string(key) + "' in '" + row.name + "'");
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    std::string where = device_level ? "" : tile;
    if (value.empty()) {
      ++dev.not_supported[where];
      continue;
    }
    auto v = ParseDouble(value);
    if (!v) {
      errors.push_back("line " + std::to_string(row.line) + ": '" + std::string(value) +
                       "' is not a number in '" + row.name + "'");
      continue;
    }
    Labels labels;
    labels.Set("engine", engine);
    dev.readings.push_back(TileReading{where, RawReading{name, *v * scale, std::move(labels)}});
  }
}

// Turns a parsed device into one CliDevice, or one per tile plus the device.
void EmitDevice(PendingDevice& p, CliParseResult& out) {
  std::set<std::string> tiles;
  for (const TileReading& r : p.readings) {
    if (!r.tile.empty()) tiles.insert(r.tile);
  }
  for (const auto& [tile, n] : p.not_supported) {
    if (!tile.empty()) tiles.insert(tile);
  }
  auto make = [&p](std::string_view tile) {
    CliDevice d;
    d.device.vendor = Vendor::kIntel;
    d.identity.Set("gpu_index", p.index);
    if (!tile.empty()) {
      d.device.partition.kind = "intel_tile";
      d.device.partition.id = std::string(tile);
    }
    return d;
  };
  const bool single = tiles.size() <= 1 && (tiles.empty() || *tiles.begin() == "0");
  CliDevice whole = make("");
  std::map<std::string, CliDevice> per_tile;
  // Device-level values first, so a single tile's copy never shadows a total.
  std::set<std::pair<std::string, std::string>> seen;
  for (const TileReading& r : p.readings) {
    if (!r.tile.empty()) continue;
    seen.emplace(r.reading.name, r.reading.labels.ToString());
    whole.readings.readings.push_back(r.reading);
  }
  for (const TileReading& r : p.readings) {
    if (r.tile.empty()) continue;
    if (single) {
      if (!seen.emplace(r.reading.name, r.reading.labels.ToString()).second) continue;
      whole.readings.readings.push_back(r.reading);
    } else {
      auto it = per_tile.find(r.tile);
      if (it == per_tile.end()) it = per_tile.emplace(r.tile, make(r.tile)).first;
      it->second.readings.readings.push_back(r.reading);
    }
  }
  for (const auto& [tile, n] : p.not_supported) {
    CliDevice* d = &whole;
    if (!single && !tile.empty()) {
      auto it = per_tile.find(tile);
      if (it == per_tile.end()) it = per_tile.emplace(tile, make(tile)).first;
      d = &it->second;
    }
    d->readings.field_errors["not_supported"] += n;
  }
  out.devices.push_back(std::move(whole));
  for (auto& [tile, d] : per_tile) out.devices.push_back(std::move(d));
}

}  // namespace

StatusOr<CliParseResult> ParseXpumcliStats(std::string_view text) {
  std::vector<Row> rows;
  std::vector<std::string_view> lines = SplitString(text, '\n');
  CliParseResult result;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimWhitespace(lines[i]);
    if (line.empty() || line[0] != '|') continue;  // borders, the echoed command
    std::vector<std::string_view> cells = SplitString(line, '|');
    // "| name | value |" splits into "", name, value, "".
    if (cells.size() != 4 || !TrimWhitespace(cells[3]).empty()) {
      result.errors.push_back("line " + std::to_string(i + 1) +
                              ": expected '| name | value |'");
      continue;
    }
    std::string_view name = TrimWhitespace(cells[1]);
    std::string_view value = TrimWhitespace(cells[2]);
    // A wrapped row continues the previous one: "| (Celsius Degree) |  |".
    if (!rows.empty() && (name.empty() || name[0] == '(')) {
      if (!name.empty()) rows.back().name += " " + std::string(name);
      if (!value.empty()) rows.back().value += " " + std::string(value);
      continue;
    }
    rows.push_back(Row{i + 1, std::string(name), std::string(value)});
  }

  std::optional<PendingDevice> dev;
  for (const Row& row : rows) {
    if (row.name == "Device ID") {
      if (dev) EmitDevice(*dev, result);
      dev = PendingDevice();
      dev->index = TrimWhitespace(row.value);
      if (!IsNumberText(dev->index)) {
        result.errors.push_back("line " + std::to_string(row.line) + ": bad device id '" +
                                row.value + "'");
      }
      continue;
    }
    if (!dev) {
      result.errors.push_back("line " + std::to_string(row.line) + ": row before 'Device ID'");
      continue;
    }
    if (row.name == "Start Time" || row.name == "End Time" ||
        row.name.starts_with("Elapsed Time")) {
      continue;  // the statistics window, not a measurement
    }
    ParseRow(row, *dev, result.errors);
  }
  if (!dev) return InvalidArgumentError("no '| Device ID | N |' row found (not xpumcli stats?)");
  EmitDevice(*dev, result);
  return result;
}

}  // namespace gpufleet
