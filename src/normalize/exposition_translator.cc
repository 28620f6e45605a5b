#include "normalize/exposition_translator.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "collect/device.h"
#include "expo/exposition_parser.h"
#include "normalize/canonical_output.h"
#include "normalize/normalizer.h"

namespace gpufleet {

namespace {

constexpr char kSep = '\x1f';

// Labels that identify a device (DeviceLabels() plus the index fallback);
// everything else on a series is reading-specific.
bool IsDeviceLabel(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "cloud",          "gpu_index",         "gpu_uuid",   "model",  "node",  "partition_id",
      "partition_kind", "partition_profile", "pci_bus_id", "region", "vendor"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// AMD SR-IOV guests report an all-zero UUID; it identifies nothing.
bool IsNullUuid(std::string_view v) {
  return v.find_first_not_of("0-") == std::string_view::npos;
}

class Translator final : public ExpositionHandler {
 public:
  Translator(const MappingTable& table, const TranslateOptions& opts, std::string_view origin,
             CanonicalOutput& out, TranslateReport& report)
      : table_(table), opts_(opts), origin_(origin), out_(out), report_(report) {}

  void OnSample(const ExpoSample& s) override;
  bool KnownLabelSet(std::string_view raw) override {
    known_label_set_ = LookupLabelSet(raw);
    return known_label_set_ != UINT32_MAX;
  }
  void OnError(const ExpoError& e) override {
    report_.AddError(e.ToString(origin_), opts_.max_error_messages);
  }
  // Moves the per-name and per-series counts into the report.
  void Finish();

 private:
  struct NameEntry {
    std::string name;
    const std::vector<uint32_t>* mappings = nullptr;  // nullptr: not mapped
    uint64_t unmapped = 0;                            // samples no mapping accepted
  };
  struct LabelSet {
    std::string_view raw;  // as written in the input (the key in label_set_index_)
    uint32_t next = UINT32_MAX;  // the set that followed this one last time
    uint32_t base_labels = CanonicalOutput::kNoLabels;  // `base` in out_, made on first use
    // Input order; views into raw_chunks_ (values unescaped).
    std::vector<std::pair<std::string_view, std::string_view>> input;
    // Canonical labels without per-metric parts, computed once: most input
    // series are distinct, so per-series work must stay small.
    Labels base;
    std::vector<uint32_t> dropped;  // indices into dropped_names_
    uint64_t samples = 0;           // mapped samples that used this set
  };

  uint32_t LookupName(std::string_view name);
  // The set with this raw text, or UINT32_MAX when new.
  uint32_t LookupLabelSet(std::string_view raw);
  uint32_t AddLabelSet(const ExpoSample& s);
  uint32_t ExtraLabels(uint32_t mapping);
  // A stable copy of `raw` in raw_chunks_.
  std::string_view KeepRaw(std::string_view raw);
  uint32_t SeriesFor(uint32_t label_set, uint32_t mapping);
  // Canonical labels of a series. `m` may be nullptr (device labels only).
  Labels Translate(const LabelSet& ls, const MetricMapping* m,
                   std::vector<std::string_view>* dropped) const;
  void AddInfoSeries(const LabelSet& ls);

  const MappingTable& table_;
  const TranslateOptions& opts_;
  std::string_view origin_;
  CanonicalOutput& out_;
  TranslateReport& report_;

  std::vector<NameEntry> names_;
  StringMap<uint32_t> name_index_;
  uint32_t last_name_ = UINT32_MAX;
  std::vector<LabelSet> label_sets_;
  // Raw label texts, kept back to back in input order: the next sample's
  // label set is checked against the expected one, and walking them in
  // input order keeps that check in cache.
  std::vector<std::unique_ptr<char[]>> raw_chunks_;
  char* raw_chunk_next_ = nullptr;
  size_t raw_chunk_left_ = 0;
  std::unordered_map<std::string_view, uint32_t> label_set_index_;  // raw label text -> set
  uint32_t last_label_set_ = UINT32_MAX;
  uint32_t known_label_set_ = UINT32_MAX;  // answer of the last KnownLabelSet()
  std::vector<uint32_t> extra_labels_;  // per mapping: its own labels in out_
  // (label set, mapping) -> series, for mappings that rename labels (their
  // labels are translated per series, so once is enough).
  std::unordered_map<uint64_t, uint32_t> renamed_series_;
  std::vector<std::string> dropped_names_;
  StringMap<uint32_t> dropped_index_;
  // (metric, device identity[, own labels]) -> info series, emitted by Finish().
  std::map<std::string, std::pair<const MetricDef*, Labels>> info_;
};

uint32_t Translator::LookupName(std::string_view name) {
  if (last_name_ != UINT32_MAX && names_[last_name_].name == name) return last_name_;
  auto it = name_index_.find(name);
  if (it == name_index_.end()) {
    NameEntry e;
    e.name = std::string(name);
    e.mappings = table_.FindAll(name);
    it = name_index_.emplace(e.name, static_cast<uint32_t>(names_.size())).first;
    names_.push_back(std::move(e));
  }
  last_name_ = it->second;
  return last_name_;
}

uint32_t Translator::LookupLabelSet(std::string_view raw) {
  // Exporters print every family's series in the same order, so the set that
  // followed the previous one last time is almost always the next one.
  uint32_t id = UINT32_MAX;
  if (last_label_set_ != UINT32_MAX) {
    const LabelSet& prev = label_sets_[last_label_set_];
    if (prev.next != UINT32_MAX && label_sets_[prev.next].raw == raw) id = prev.next;
  }
  if (id == UINT32_MAX) {
    auto it = label_set_index_.find(raw);
    if (it == label_set_index_.end()) return UINT32_MAX;
    id = it->second;
  }
  if (last_label_set_ != UINT32_MAX) label_sets_[last_label_set_].next = id;
  last_label_set_ = id;
  return id;
}

uint32_t Translator::AddLabelSet(const ExpoSample& s) {
  LabelSet ls;
  ls.raw = KeepRaw(s.raw_labels);
  ls.input.reserve(s.labels.size());
  for (const ExpoLabel& l : s.labels) ls.input.emplace_back(KeepRaw(l.name), KeepRaw(l.value));
  std::vector<std::string_view> dropped;
  ls.base = Translate(ls, nullptr, &dropped);
  for (std::string_view d : dropped) {
    auto it = dropped_index_.find(d);
    if (it == dropped_index_.end()) {
      it = dropped_index_.emplace(std::string(d), static_cast<uint32_t>(dropped_names_.size()))
               .first;
      dropped_names_.emplace_back(d);
    }
    ls.dropped.push_back(it->second);
  }
  uint32_t id = static_cast<uint32_t>(label_sets_.size());
  label_set_index_.emplace(ls.raw, id);
  label_sets_.push_back(std::move(ls));
  AddInfoSeries(label_sets_.back());
  return id;
}

std::string_view Translator::KeepRaw(std::string_view raw) {
  constexpr size_t kChunkBytes = 1 << 20;
  if (raw.size() > raw_chunk_left_) {
    size_t size = std::max(kChunkBytes, raw.size());
    raw_chunks_.push_back(std::make_unique<char[]>(size));
    raw_chunk_next_ = raw_chunks_.back().get();
    raw_chunk_left_ = size;
  }
  char* dst = raw_chunk_next_;
  std::copy(raw.begin(), raw.end(), dst);
  raw_chunk_next_ += raw.size();
  raw_chunk_left_ -= raw.size();
  return std::string_view(dst, raw.size());
}

uint32_t Translator::ExtraLabels(uint32_t mapping) {
  // kNotMade: not rendered yet (kNoLabels is a valid answer: no extra labels).
  constexpr uint32_t kNotMade = CanonicalOutput::kNoLabels - 1;
  if (extra_labels_.empty()) extra_labels_.assign(table_.mappings().size(), kNotMade);
  uint32_t& id = extra_labels_[mapping];
  if (id == kNotMade) {
    const MetricMapping& m = table_.mappings()[mapping];
    Labels extra = m.labels;
    if (!m.method.empty()) extra.Set("method", m.method);
    id = extra.empty() ? CanonicalOutput::kNoLabels : out_.AddLabels(extra);
  }
  return id;
}

Labels Translator::Translate(const LabelSet& ls, const MetricMapping* m,
                             std::vector<std::string_view>* dropped) const {
  Labels out;
  std::vector<std::pair<std::string_view, std::string_view>> fallback;
  for (const auto& [name, value] : ls.input) {
    if (value.empty()) continue;  // Prometheus: empty == absent
    if (table_.InfoLabel(name) != nullptr) continue;  // carried by an info series
    std::optional<std::string_view> canon;
    if (m != nullptr) {
      if (const std::string* r = m->RenamedLabel(name)) canon = *r;
    }
    if (!canon) canon = table_.MapLabelName(name);
    if (canon) {
      std::string_view v = table_.MapLabelValue(*canon, value);
      std::string pci;
      if (*canon == "pci_bus_id") {
        pci = CanonicalPciBusId(v);
        v = pci;
      } else if (*canon == "gpu_uuid" && IsNullUuid(v)) {
        v = {};
      }
      if (v.empty()) continue;
      out.Set(*canon, v);
      if (const Labels* wp = table_.LabelsWhenPresent(name)) out.Merge(*wp);
      continue;
    }
    if (auto fb = table_.IdentityFallback(name)) {
      fallback.emplace_back(*fb, value);
      continue;
    }
    if (const Labels* wp = table_.LabelsWhenPresent(name)) {
      out.Merge(*wp);
      continue;
    }
    if (dropped != nullptr) dropped->push_back(name);
  }
  if (!out.Has("gpu_uuid")) {
    for (const auto& [name, value] : fallback) out.Set(name, value);
  }
  // Partition id/profile mean nothing without a partition kind (e.g. AMD SPX
  // mode reports gpu_partition_id="0" for a whole GPU).
  if (!out.Has("partition_kind")) {
    out.Remove("partition_id");
    out.Remove("partition_profile");
  }
  if (table_.vendor() != Vendor::kUnknown) out.Set("vendor", VendorName(table_.vendor()));
  if (!out.Has("node") && !opts_.node.empty()) out.Set("node", opts_.node);
  if (m != nullptr) {
    out.Merge(m->labels);
    if (!m->method.empty()) out.Set("method", m->method);
  }
  return out;
}

void Translator::AddInfoSeries(const LabelSet& ls) {
  Labels device;
  for (const auto& [name, value] : ls.base.pairs()) {
    if (IsDeviceLabel(name)) device.Set(name, value);
  }
  if (!device.Has("gpu_uuid") && !device.Has("pci_bus_id") && !device.Has("gpu_index")) return;
  std::map<std::string_view, Labels> extra;
  for (const auto& [name, value] : ls.input) {
    if (value.empty()) continue;
    if (const auto* info = table_.InfoLabel(name)) extra[info->first].Set(info->second, value);
  }
  // One info series per device (and per pod for workload info): rows of one
  // device may carry different subsets of labels, so they are merged.
  std::string identity;
  for (std::string_view l : {"node", "partition_kind", "partition_id"}) {
    identity += device.Get(l);
    identity += kSep;
  }
  if (device.Has("gpu_uuid")) {
    identity += device.Get("gpu_uuid");
  } else if (device.Has("pci_bus_id")) {
    identity += device.Get("pci_bus_id");
  } else {
    identity += device.Get("gpu_index");
  }
  const MetricCatalog& catalog = MetricCatalog::Default();
  auto merge = [&](std::string_view metric, const Labels& own) {
    const MetricDef* def = catalog.Find(metric);
    if (def == nullptr) return;
    std::string key(metric);
    key += kSep;
    key += identity;
    Labels labels = device;
    labels.Merge(own);
    if (metric == "gpu_info") {
      labels.Set("source", table_.source());
    } else {
      key += kSep;
      key += own.ToString();
    }
    auto [it, inserted] = info_.try_emplace(std::move(key), def, labels);
    if (inserted) return;
    for (const auto& [name, value] : labels.pairs()) {
      if (!it->second.second.Has(name)) it->second.second.Set(name, value);
    }
  };
  auto it = extra.find("gpu_info");
  merge("gpu_info", it == extra.end() ? Labels() : it->second);
  for (const auto& [metric, labels] : extra) {
    if (metric != "gpu_info" && !labels.empty()) merge(metric, labels);
  }
}

uint32_t Translator::SeriesFor(uint32_t label_set, uint32_t mapping) {
  const MetricMapping& m = table_.mappings()[mapping];
  LabelSet& ls = label_sets_[label_set];
  if (m.rename_labels.empty()) {
    // A new series per sample costs less than finding the earlier one: the
    // output merges series with equal labels anyway (CanonicalOutput).
    if (ls.base_labels == CanonicalOutput::kNoLabels) ls.base_labels = out_.AddLabels(ls.base);
    return out_.AddSeries(m.def->name, ls.base_labels, ExtraLabels(mapping));
  }
  uint64_t key = (static_cast<uint64_t>(label_set) << 32) | mapping;
  auto it = renamed_series_.find(key);
  if (it != renamed_series_.end()) return it->second;
  uint32_t id = out_.AddSeries(m.def->name, Translate(ls, &m, nullptr));
  renamed_series_.emplace(key, id);
  return id;
}

void Translator::OnSample(const ExpoSample& s) {
  ++report_.input_samples;
  NameEntry& ne = names_[LookupName(s.name)];
  uint32_t ls = known_label_set_;
  known_label_set_ = UINT32_MAX;
  if (s.labels_parsed) {
    // The parser asked KnownLabelSet() only when there was a '}' to stop at.
    ls = LookupLabelSet(s.raw_labels);
    if (ls == UINT32_MAX) {
      ls = AddLabelSet(s);
      if (last_label_set_ != UINT32_MAX) label_sets_[last_label_set_].next = ls;
      last_label_set_ = ls;
    }
  }
  if (ne.mappings == nullptr) {
    ++ne.unmapped;
    return;
  }
  const MetricMapping* m = nullptr;
  uint32_t mapping = 0;
  for (uint32_t idx : *ne.mappings) {
    const MetricMapping& cand = table_.mappings()[idx];
    if (cand.match.empty() || cand.Matches([&](std::string_view n) {
          for (const auto& [name, value] : label_sets_[ls].input) {
            if (name == n) return value;
          }
          return std::string_view();
        })) {
      m = &cand;
      mapping = idx;
      break;
    }
  }
  if (m == nullptr) {
    ++ne.unmapped;
    return;
  }
  if (m->derive == Derive::kRate) {
    ++report_.needs_rate;
    return;
  }
  if (table_.IsSentinel(*m, s.value)) {
    ++report_.sentinels;
    return;
  }
  double value = m->def->type == MetricType::kInfo ? 1.0 : s.value * m->scale;
  if (!IsPlausible(*m->def, value)) {
    ++report_.absurd;
    return;
  }
  uint32_t series = SeriesFor(ls, mapping);
  ++label_sets_[ls].samples;
  out_.AddValue(series, value, s.timestamp_ms);
}

void Translator::Finish() {
  for (auto& [key, info] : info_) {
    uint32_t id = out_.AddSeries(info.first->name, info.second);
    out_.AddValue(id, 1.0, std::nullopt);
  }
  for (const NameEntry& ne : names_) {
    if (ne.unmapped == 0) continue;
    if (table_.IgnoreReason(ne.name) != nullptr) {
      report_.ignored[ne.name] += ne.unmapped;
    } else {
      report_.unmapped[ne.name] += ne.unmapped;
    }
  }
  for (const LabelSet& ls : label_sets_) {
    if (ls.samples == 0) continue;
    for (uint32_t d : ls.dropped) report_.dropped_labels[dropped_names_[d]] += ls.samples;
  }
}

// Records the first samples' names and label names, for sniffing.
class SniffHandler final : public ExpositionHandler {
 public:
  void OnSample(const ExpoSample& s) override {
    if (names.size() >= 64) return;
    names.emplace_back(s.name);
    for (const ExpoLabel& l : s.labels) labels.emplace(l.name);
  }
  std::vector<std::string> names;
  std::unordered_set<std::string> labels;
};

bool IsExporterSource(std::string_view s) {
  return s == "dcgm_exporter" || s == "amd_dme" || s == "xpum";
}

}  // namespace

void TranslateExpositionInto(std::string_view input, std::string_view origin,
                             const MappingTable& table, const TranslateOptions& opts,
                             CanonicalOutput& output, TranslateReport& report) {
  if (report.source.empty()) report.source = table.source();
  Translator t(table, opts, origin, output, report);
  ParseExposition(input, t);
  t.Finish();
}

std::string SniffExporter(std::string_view input) {
  // The first 256 KiB (cut at a line end) are plenty to see a few samples.
  std::string_view head = input.substr(0, 256 * 1024);
  if (head.size() < input.size()) {
    size_t nl = head.rfind('\n');
    head = nl == std::string_view::npos ? std::string_view() : head.substr(0, nl + 1);
  }
  SniffHandler h;
  ParseExposition(head, h);
  for (const std::string& n : h.names) {
    if (n.starts_with("DCGM_")) return "dcgm_exporter";
    if (n.starts_with("xpum_")) return "xpum";
  }
  static constexpr std::string_view kAmdLabels[] = {"card_model", "card_series", "gpu_id",
                                                    "gpu_partition_id", "serial_number"};
  bool amd_labels = std::any_of(std::begin(kAmdLabels), std::end(kAmdLabels),
                                [&h](std::string_view l) { return h.labels.count(std::string(l)); });
  for (const std::string& n : h.names) {
    if (n.starts_with("amd_gpu_")) return "amd_dme";
    if (amd_labels && (n.starts_with("gpu_") || n.starts_with("pcie_"))) return "amd_dme";
  }
  return "";
}

namespace {

StatusOr<MappingTable> ExporterTable(std::string_view input, std::string_view origin,
                                     const TranslateOptions& opts, TranslateReport* report) {
  std::string from = opts.from.empty() ? SniffExporter(input) : opts.from;
  if (from.empty()) {
    return InvalidArgumentError(std::string(origin) +
                                ": cannot tell which exporter wrote this input (no DCGM_*, "
                                "xpum_* or AMD gpu_* series found); name it with --from");
  }
  if (!IsExporterSource(from)) {
    return InvalidArgumentError("unknown exporter source '" + from +
                                "' (dcgm_exporter, amd_dme or xpum)");
  }
  report->source = from;
  return MappingTable::ForSource(from);
}

}  // namespace

Status TranslateExposition(std::string_view input, std::string_view origin,
                           const TranslateOptions& opts, std::string* out,
                           TranslateReport* report, const ChunkSink* sink) {
  ASSIGN_OR_RETURN(MappingTable table, ExporterTable(input, origin, opts, report));
  CanonicalOutput output;
  TranslateExpositionInto(input, origin, table, opts, output, *report);
  output.Finalize(&report->duplicates, &report->output_samples);
  if (sink == nullptr) out->reserve(out->size() + input.size());
  output.Write(MetricCatalog::Default(), opts.format, out, sink);
  return OkStatus();
}

Status TranslateExpositionToSamples(std::string_view input, std::string_view origin,
                                    const TranslateOptions& opts, int64_t timestamp_ns,
                                    std::vector<Sample>* out, TranslateReport* report) {
  ASSIGN_OR_RETURN(MappingTable table, ExporterTable(input, origin, opts, report));
  TranslateExpositionToSamples(input, origin, table, opts, timestamp_ns, out, report);
  return OkStatus();
}

void TranslateExpositionToSamples(std::string_view input, std::string_view origin,
                                  const MappingTable& table, const TranslateOptions& opts,
                                  int64_t timestamp_ns, std::vector<Sample>* out,
                                  TranslateReport* report) {
  CanonicalOutput output(/*keep_labels=*/true);
  TranslateExpositionInto(input, origin, table, opts, output, *report);
  output.Finalize(&report->duplicates, &report->output_samples);
  output.AppendSamples(timestamp_ns, out);
}

}  // namespace gpufleet
