#include "agent/self_metrics.h"

#include "schema/metric_catalog.h"

namespace gpufleet {

const SelfMetricDef* FindSelfMetric(std::string_view name) {
  for (const SelfMetricDef& d : kSelfMetrics) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

void SelfMetrics::Add(std::string_view name, const Labels& labels, double delta) {
  std::lock_guard<std::mutex> lock(mu_);
  values_[{std::string(name), labels}] += delta;
}

void SelfMetrics::Set(std::string_view name, const Labels& labels, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  values_[{std::string(name), labels}] = value;
}

double SelfMetrics::Get(std::string_view name, const Labels& labels) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = values_.find({std::string(name), labels});
  return it == values_.end() ? 0 : it->second;
}

void SelfMetrics::AppendSamples(std::vector<Sample>& out) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, value] : values_) {
    out.push_back(Sample{key.first, key.second, value, 0});
  }
}

FamilyMeta AgentFamilyMeta(std::string_view name) {
  if (const MetricDef* d = MetricCatalog::Default().Find(name)) {
    return FamilyMeta{d->name, MetricTypeName(d->type), d->unit, d->help};
  }
  if (const SelfMetricDef* s = FindSelfMetric(name)) {
    return FamilyMeta{s->name, s->type, s->unit, s->help};
  }
  return FamilyMeta{name, "untyped", "", ""};
}

}  // namespace gpufleet
