#include "normalize/canonical_output.h"

#include <algorithm>
#include <numeric>

#include "core/strings.h"

namespace gpufleet {

uint32_t CanonicalOutput::AddSeries(std::string_view name, Labels labels) {
  Series s;
  s.name = name;
  s.rendered = labels.ToString();
  if (keep_labels_) s.labels = std::move(labels);
  series_.push_back(std::move(s));
  return static_cast<uint32_t>(series_.size() - 1);
}

void CanonicalOutput::Finalize(uint64_t* duplicates, uint64_t* output_samples) {
  // Rank series once, then sort the (many more) records by integer rank.
  // Few distinct names: rank them first so the big sort compares integers
  // before label strings.
  std::vector<std::string_view> names;
  for (const Series& s : series_) {
    if (names.empty() || names.back() != s.name) names.push_back(s.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (Series& s : series_) {
    s.name_rank = static_cast<uint32_t>(
        std::lower_bound(names.begin(), names.end(), s.name) - names.begin());
  }
  std::vector<uint32_t> order(series_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
    const Series& x = series_[a];
    const Series& y = series_[b];
    if (x.name_rank != y.name_rank) return x.name_rank < y.name_rank;
    return x.rendered < y.rendered;
  });
  uint32_t rank = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0) {
      const Series& prev = series_[order[i - 1]];
      const Series& cur = series_[order[i]];
      if (prev.name_rank != cur.name_rank || prev.rendered != cur.rendered) ++rank;
    }
    series_[order[i]].rank = rank;
  }
  std::stable_sort(records_.begin(), records_.end(), [this](const Record& a, const Record& b) {
    uint32_t ra = series_[a.series].rank, rb = series_[b.series].rank;
    if (ra != rb) return ra < rb;
    return a.timestamp_ms < b.timestamp_ms;
  });
  size_t kept = 0;
  for (size_t i = 0; i < records_.size(); ++i) {
    if (kept > 0) {
      const Record& prev = records_[kept - 1];
      if (series_[prev.series].rank == series_[records_[i].series].rank &&
          prev.timestamp_ms == records_[i].timestamp_ms) {
        ++*duplicates;
        continue;
      }
    }
    records_[kept++] = records_[i];
  }
  records_.resize(kept);
  *output_samples += kept;
}

void CanonicalOutput::Write(const MetricCatalog& catalog, ExpositionFormat format,
                            std::string* out) const {
  ExpositionWriter writer(format, out);
  std::string_view family;
  for (const Record& r : records_) {
    const Series& s = series_[r.series];
    if (s.name != family || family.empty()) {
      family = s.name;
      const MetricDef* def = catalog.Find(family);
      GPUFLEET_CHECK(def != nullptr);
      writer.BeginFamily(FamilyMeta{def->name, MetricTypeName(def->type), def->unit, def->help});
    }
    // The label string is rendered once per series; writing it directly keeps
    // this loop free of per-sample allocation.
    out->append(s.name);
    out->append(s.rendered);
    out->push_back(' ');
    AppendDouble(r.value, *out);
    if (r.timestamp_ms != kNoTimestamp) {
      out->push_back(' ');
      if (format == ExpositionFormat::kOpenMetrics) {
        // OpenMetrics timestamps are seconds.
        AppendDouble(static_cast<double>(r.timestamp_ms) / 1000.0, *out);
      } else {
        out->append(std::to_string(r.timestamp_ms));
      }
    }
    out->push_back('\n');
  }
  writer.Finish();
}

void CanonicalOutput::AppendSamples(int64_t default_timestamp_ns, std::vector<Sample>* out) const {
  out->reserve(out->size() + records_.size());
  for (const Record& r : records_) {
    const Series& s = series_[r.series];
    int64_t ts = r.timestamp_ms == kNoTimestamp ? default_timestamp_ns : r.timestamp_ms * 1000000;
    out->push_back(Sample{std::string(s.name), s.labels, r.value, ts});
  }
}

}  // namespace gpufleet
