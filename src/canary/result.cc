#include "canary/result.h"

#include <utility>

#include "core/strings.h"

namespace gpufleet::canary {
namespace {

constexpr size_t kMaxWarnings = 20;

void AppendField(std::string_view name, const std::string& value, std::string* out) {
  if (value.empty()) return;
  if (!out->empty()) out->push_back(';');
  out->append(name);
  out->push_back('=');
  out->append(value);
}

}  // namespace

std::string HardwareTarget::Key() const {
  std::string key;
  AppendField("model", model, &key);
  AppendField("driver", driver, &key);
  AppendField("runtime", runtime, &key);
  AppendField("libs", libraries, &key);
  AppendField("image", image, &key);
  return key;
}

void HardwareTarget::MergeFrom(const HardwareTarget& o) {
  if (!o.model.empty()) model = o.model;
  if (!o.driver.empty()) driver = o.driver;
  if (!o.runtime.empty()) runtime = o.runtime;
  if (!o.libraries.empty()) libraries = o.libraries;
  if (!o.image.empty()) image = o.image;
}

StatusOr<HardwareTarget> ParseHardwareTarget(std::string_view spec) {
  HardwareTarget t;
  std::string normalized(spec);
  for (char& c : normalized) {
    if (c == ';') c = ',';
  }
  for (std::string_view field : SplitString(normalized, ',')) {
    field = TrimWhitespace(field);
    if (field.empty()) continue;
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgumentError("target '" + std::string(spec) + "': field '" +
                                  std::string(field) + "' is not name=value");
    }
    std::string_view name = TrimWhitespace(field.substr(0, eq));
    std::string value(TrimWhitespace(field.substr(eq + 1)));
    if (name == "model") {
      t.model = value;
    } else if (name == "driver") {
      t.driver = value;
    } else if (name == "runtime") {
      t.runtime = value;
    } else if (name == "libs" || name == "libraries") {
      t.libraries = value;
    } else if (name == "image") {
      t.image = value;
    } else {
      return InvalidArgumentError("target '" + std::string(spec) + "': unknown field '" +
                                  std::string(name) +
                                  "' (expected model, driver, runtime, libs, image)");
    }
  }
  return t;
}

Direction DirectionForUnit(std::string_view unit) {
  return unit == kUnitSeconds ? Direction::kLowerIsBetter : Direction::kHigherIsBetter;
}

std::string_view DirectionName(Direction d) {
  return d == Direction::kLowerIsBetter ? "lower_is_better" : "higher_is_better";
}

void ParseReport::Skip(std::string_view origin, size_t line, std::string_view why) {
  ++skipped_lines;
  if (warnings.size() < kMaxWarnings) {
    std::string where(origin);
    if (line > 0) where += ":" + std::to_string(line);
    warnings.push_back(where + ": " + std::string(why));
  }
}

void MergeResult(BenchmarkResult r, std::vector<BenchmarkResult>* out) {
  std::string key = r.target.Key();
  for (BenchmarkResult& existing : *out) {
    if (existing.benchmark_id == r.benchmark_id && existing.unit == r.unit &&
        existing.target.Key() == key) {
      existing.values.insert(existing.values.end(), r.values.begin(), r.values.end());
      if (existing.note.empty()) existing.note = std::move(r.note);
      return;
    }
  }
  out->push_back(std::move(r));
}

}  // namespace gpufleet::canary
