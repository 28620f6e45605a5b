// Test helper: a handler that copies everything the parser reports into
// owned values, so tests can inspect them after the parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "expo/exposition_parser.h"

namespace gpufleet {

struct OwnedSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // input order
  double value = 0;
  std::optional<int64_t> timestamp_ms;
  size_t line = 0;
};

struct OwnedMeta {
  ExpoMetaKind kind;
  std::string family;
  std::string text;
};

class CollectingHandler : public ExpositionHandler {
 public:
  void OnSample(const ExpoSample& s) override {
    OwnedSample o{std::string(s.name), {}, s.value, s.timestamp_ms, s.line};
    for (const ExpoLabel& l : s.labels) o.labels.emplace_back(l.name, l.value);
    samples.push_back(std::move(o));
  }
  void OnMeta(const ExpoMeta& m) override {
    metas.push_back(OwnedMeta{m.kind, std::string(m.family), std::string(m.text)});
  }
  void OnError(const ExpoError& e) override { errors.push_back(e); }

  std::vector<OwnedSample> samples;
  std::vector<OwnedMeta> metas;
  std::vector<ExpoError> errors;
};

}  // namespace gpufleet
