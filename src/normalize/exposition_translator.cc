#include "normalize/exposition_translator.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "core/big_vector.h"
#include "core/flat_index.h"
#include "expo/exposition_parser.h"
#include "normalize/canonical_output.h"
#include "normalize/normalizer.h"
#include "schema/device.h"

namespace gpufleet {

namespace {

constexpr char kSep = '\x1f';

// Label lists as views, built without allocating per label: SetLabel and
// MergeLabels follow Labels::Set / Merge (an empty value removes the label);
// SortLabels puts a finished list in name order.
void SetLabel(std::vector<LabelView>& labels, std::string_view name, std::string_view value) {
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    if (it->first != name) continue;
    if (value.empty()) {
      labels.erase(it);
    } else {
      it->second = value;
    }
    return;
  }
  if (!value.empty()) labels.emplace_back(name, value);
}

void MergeLabels(std::vector<LabelView>& labels, const Labels& other) {
  for (const auto& [name, value] : other.pairs()) SetLabel(labels, name, value);
}

bool HasLabel(const std::vector<LabelView>& labels, std::string_view name) {
  return std::any_of(labels.begin(), labels.end(),
                     [name](const LabelView& l) { return l.first == name; });
}

void SortLabels(std::vector<LabelView>& labels) {
  std::sort(labels.begin(), labels.end(),
            [](const LabelView& a, const LabelView& b) { return a.first < b.first; });
}

// `out` = the union of `a` and `b` (both sorted by name, names unique),
// sorted; `b` wins on equal names.
void MergeSortedLabels(std::span<const LabelView> a, std::span<const LabelView> b,
                       std::vector<LabelView>& out) {
  out.clear();
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else {
      if (i < a.size() && a[i].first == b[j].first) ++i;
      out.push_back(b[j++]);
    }
  }
}

// AMD SR-IOV guests report an all-zero UUID; it identifies nothing.
bool IsNullUuid(std::string_view v) {
  return v.find_first_not_of("0-") == std::string_view::npos;
}

class Translator final : public ExpositionHandler {
 public:
  // `input` is the text being parsed: views into it stay valid throughout.
  Translator(const MappingTable& table, const TranslateOptions& opts, std::string_view origin,
             std::string_view input, CanonicalOutput& out, TranslateReport& report)
      : table_(table), opts_(opts), origin_(origin), input_(input), out_(out), report_(report) {
    // Room (address space only until used) for the label pairs of a
    // typical exporter text, so these arrays do not copy as they grow.
    size_t pairs = input.size() / 64;
    input_pairs_.reserve(pairs);
    base_pairs_.reserve(pairs);
    info_pairs_.reserve(pairs);
    info_keys_.reserve(input.size() / 16);
    for (const MetricMapping& m : table_.mappings()) plausible_.push_back(PlausibleRangeOf(*m.def));
  }

  void OnSample(const ExpoSample& s) override;
  size_t KnownLabelSet(std::string_view rest) override;
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
    // Input order, in input_pairs_; views into raw_chunks_ (values unescaped).
    uint32_t input_first = 0;
    uint32_t input_count = 0;
    // Canonical labels without per-metric parts, computed once (sorted by
    // name, in base_pairs_): most input series are distinct, so per-series
    // work must stay small and allocate nothing.
    uint32_t base_first = 0;
    uint32_t base_count = 0;
    uint32_t dropped_first = 0;  // into dropped_ids_ (indices into dropped_names_)
    uint32_t dropped_count = 0;
    uint64_t samples = 0;  // mapped samples that used this set
  };
  // What the table says about one input label name (looked up once per name).
  struct LabelRule {
    const std::pair<std::string, std::string>* info = nullptr;
    std::optional<std::string_view> canon;
    const Labels* when_present = nullptr;
    std::optional<std::string_view> fallback;
    uint32_t dropped = UINT32_MAX;  // index into dropped_names_ when the table drops it
  };
  // An info series (gpu_info, gpu_workload_info, ...) and its labels in info_pairs_.
  struct InfoEntry {
    const MetricDef* def;
    uint32_t first;
    uint32_t count;
    uint64_t key_offset;  // its key in info_keys_
    uint32_t key_size;
  };

  std::span<const LabelView> Input(const LabelSet& ls) const {
    return std::span<const LabelView>(input_pairs_.data() + ls.input_first, ls.input_count);
  }
  std::span<const LabelView> Base(const LabelSet& ls) const {
    return std::span<const LabelView>(base_pairs_.data() + ls.base_first, ls.base_count);
  }
  // The rule for the label `name` at `position` in its label set.
  const LabelRule& RuleFor(std::string_view name, size_t position);
  uint32_t LookupName(std::string_view name);
  // The set with this raw text, or UINT32_MAX when new.
  uint32_t LookupLabelSet(std::string_view raw);
  uint32_t AddLabelSet(const ExpoSample& s);
  uint32_t ExtraLabels(uint32_t mapping);
  // A stable copy of `raw` in raw_chunks_.
  std::string_view KeepRaw(std::string_view raw);
  // `text` itself when it lies in the input (the parser hands out views into
  // it unless it had to unescape), else KeepRaw(text).
  std::string_view Stable(std::string_view text) {
    std::less<const char*> before;
    bool inside = !before(text.data(), input_.data()) &&
                  !before(input_.data() + input_.size(), text.data() + text.size());
    return inside ? text : KeepRaw(text);
  }
  // The (base, extra) label lists of the series of `mapping` on `label_set`.
  std::pair<uint32_t, uint32_t> ListsFor(uint32_t label_set, uint32_t mapping);
  // Canonical labels of a series into `out` (sorted by name). `m` may be
  // nullptr (device labels only). Values are views into the input, the table
  // or raw_chunks_.
  void Translate(const LabelSet& ls, const MetricMapping* m, std::vector<LabelView>& out,
                 std::vector<uint32_t>* dropped);
  void AddInfoSeries(const LabelSet& ls);
  // Adds (or merges into) the info series `metric` of the device in
  // scratch_key_; `own` are the series' own labels, `labels` all of them.
  void MergeInfo(std::string_view metric, std::span<const LabelView> own,
                 std::span<const LabelView> labels);

  const MappingTable& table_;
  const TranslateOptions& opts_;
  std::string_view origin_;
  std::string_view input_;
  CanonicalOutput& out_;
  TranslateReport& report_;

  std::vector<NameEntry> names_;
  StringMap<uint32_t> name_index_;
  uint32_t last_name_ = UINT32_MAX;
  std::vector<LabelSet> label_sets_;
  // Copies of label texts the parser unescaped (and so are not views into
  // the input), and of canonical PCI bus ids.
  std::vector<std::unique_ptr<char[]>> raw_chunks_;
  char* raw_chunk_next_ = nullptr;
  size_t raw_chunk_left_ = 0;
  FlatIndex label_set_index_;  // raw label text -> set
  uint32_t last_label_set_ = UINT32_MAX;
  uint32_t known_label_set_ = UINT32_MAX;  // answer of the last KnownLabelSet()
  std::vector<uint32_t> extra_labels_;  // per mapping: its own labels in out_
  std::vector<PlausibleRange> plausible_;  // per mapping
  // (label set, mapping) -> label list, for mappings that rename labels
  // (their labels are translated per series, so once is enough).
  std::unordered_map<uint64_t, uint32_t> renamed_lists_;
  BigVector<LabelView> input_pairs_;
  BigVector<LabelView> base_pairs_;
  std::vector<uint32_t> dropped_ids_;
  std::vector<std::string> dropped_names_;
  std::vector<LabelRule> rules_;
  StringMap<uint32_t> rule_index_;
  std::vector<std::pair<std::string_view, uint32_t>> rule_by_position_;  // last name seen there
  // (metric, device identity[, own labels]) -> info series, emitted by Finish()
  // in first-seen order (the output is sorted anyway).
  FlatIndex info_index_;
  BigString info_keys_;  // keys of info_, back to back
  std::vector<InfoEntry> info_;
  BigVector<LabelView> info_pairs_;
  // Scratch space reused across label sets.
  std::vector<LabelView> scratch_labels_;
  std::vector<LabelView> scratch_device_;
  std::vector<std::pair<std::string_view, LabelView>> scratch_extra_;  // (metric, label)
  std::vector<LabelView> scratch_fallback_;
  std::vector<LabelView> scratch_own_;
  std::vector<LabelView> scratch_merged_;
  std::string scratch_key_;
  std::string scratch_info_key_;
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
    id = label_set_index_.Find(std::hash<std::string_view>()(raw),
                               [&](uint32_t k) { return label_sets_[k].raw == raw; });
    if (id == FlatIndex::kNotFound) return UINT32_MAX;
  }
  if (last_label_set_ != UINT32_MAX) label_sets_[last_label_set_].next = id;
  last_label_set_ = id;
  return id;
}

size_t Translator::KnownLabelSet(std::string_view rest) {
  // Exporters print every family's series in the same order, so the set
  // that followed the previous one last time is almost always the next one:
  // compare it in place, without looking for the '}' first.
  if (last_label_set_ != UINT32_MAX) {
    uint32_t next = label_sets_[last_label_set_].next;
    if (next != UINT32_MAX) {
      std::string_view raw = label_sets_[next].raw;
      if (rest.size() > raw.size() && rest[raw.size()] == '}' && rest.starts_with(raw)) {
        known_label_set_ = last_label_set_ = next;
        return raw.size();
      }
    }
  }
  // Else a known set ends at the first '}' (sets with '}' inside a value
  // are found by the comparison above, or parsed).
  size_t close = rest.find('}');
  if (close == std::string_view::npos) return close;
  known_label_set_ = LookupLabelSet(rest.substr(0, close));
  return known_label_set_ == UINT32_MAX ? std::string_view::npos : close;
}

uint32_t Translator::AddLabelSet(const ExpoSample& s) {
  LabelSet ls;
  ls.raw = Stable(s.raw_labels);
  ls.input_first = static_cast<uint32_t>(input_pairs_.size());
  ls.input_count = static_cast<uint32_t>(s.labels.size());
  for (const ExpoLabel& l : s.labels) input_pairs_.emplace_back(Stable(l.name), Stable(l.value));
  ls.dropped_first = static_cast<uint32_t>(dropped_ids_.size());
  Translate(ls, nullptr, scratch_labels_, &dropped_ids_);
  ls.dropped_count = static_cast<uint32_t>(dropped_ids_.size() - ls.dropped_first);
  ls.base_first = static_cast<uint32_t>(base_pairs_.size());
  ls.base_count = static_cast<uint32_t>(scratch_labels_.size());
  base_pairs_.insert(base_pairs_.end(), scratch_labels_.begin(), scratch_labels_.end());
  uint32_t id = label_set_index_.Insert(std::hash<std::string_view>()(ls.raw));
  label_sets_.push_back(ls);
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

const Translator::LabelRule& Translator::RuleFor(std::string_view name, size_t position) {
  // Label sets of one exporter list the same names in the same order.
  if (position < rule_by_position_.size() && rule_by_position_[position].first == name) {
    return rules_[rule_by_position_[position].second];
  }
  auto it = rule_index_.find(name);
  if (it == rule_index_.end()) {
    LabelRule r;
    r.info = table_.InfoLabel(name);
    r.canon = table_.MapLabelName(name);
    r.when_present = table_.LabelsWhenPresent(name);
    r.fallback = table_.IdentityFallback(name);
    if (r.info == nullptr && !r.canon && !r.fallback && r.when_present == nullptr) {
      r.dropped = static_cast<uint32_t>(dropped_names_.size());
      dropped_names_.emplace_back(name);
    }
    it = rule_index_.emplace(std::string(name), static_cast<uint32_t>(rules_.size())).first;
    rules_.push_back(r);
  }
  if (position >= rule_by_position_.size()) rule_by_position_.resize(position + 1);
  rule_by_position_[position] = {it->first, it->second};
  return rules_[it->second];
}

void Translator::Translate(const LabelSet& ls, const MetricMapping* m, std::vector<LabelView>& out,
                           std::vector<uint32_t>* dropped) {
  out.clear();
  std::vector<LabelView>& fallback = scratch_fallback_;
  fallback.clear();
  std::span<const LabelView> input = Input(ls);
  for (size_t k = 0; k < input.size(); ++k) {
    const auto& [name, value] = input[k];
    if (value.empty()) continue;  // Prometheus: empty == absent
    const LabelRule& rule = RuleFor(name, k);
    if (rule.info != nullptr) continue;  // carried by an info series
    std::optional<std::string_view> canon;
    if (m != nullptr) {
      if (const std::string* r = m->RenamedLabel(name)) canon = *r;
    }
    if (!canon) canon = rule.canon;
    if (canon) {
      std::string_view v = table_.MapLabelValue(*canon, value);
      if (*canon == "pci_bus_id") {
        v = KeepRaw(CanonicalPciBusId(v));
      } else if (*canon == "gpu_uuid" && IsNullUuid(v)) {
        v = {};
      }
      if (v.empty()) continue;
      SetLabel(out, *canon, v);
      if (rule.when_present != nullptr) MergeLabels(out, *rule.when_present);
      continue;
    }
    if (rule.fallback) {
      fallback.emplace_back(*rule.fallback, value);
      continue;
    }
    if (rule.when_present != nullptr) {
      MergeLabels(out, *rule.when_present);
      continue;
    }
    if (dropped != nullptr && rule.dropped != UINT32_MAX) dropped->push_back(rule.dropped);
  }
  if (!HasLabel(out, "gpu_uuid")) {
    for (const auto& [name, value] : fallback) SetLabel(out, name, value);
  }
  // Partition id/profile mean nothing without a partition kind (e.g. AMD SPX
  // mode reports gpu_partition_id="0" for a whole GPU).
  if (!HasLabel(out, "partition_kind")) {
    SetLabel(out, "partition_id", {});
    SetLabel(out, "partition_profile", {});
  }
  if (table_.vendor() != Vendor::kUnknown) SetLabel(out, "vendor", VendorName(table_.vendor()));
  if (!HasLabel(out, "node") && !opts_.node.empty()) SetLabel(out, "node", opts_.node);
  if (m != nullptr) {
    MergeLabels(out, m->labels);
    if (!m->method.empty()) SetLabel(out, "method", m->method);
  }
  SortLabels(out);
}

void Translator::AddInfoSeries(const LabelSet& ls) {
  std::vector<LabelView>& device = scratch_device_;
  device.clear();
  for (const LabelView& l : Base(ls)) {
    if (IsDeviceLabel(l.first)) device.push_back(l);
  }
  auto get = [&device](std::string_view name) {
    for (const auto& [n, v] : device) {
      if (n == name) return v;
    }
    return std::string_view();
  };
  if (get("gpu_uuid").empty() && get("pci_bus_id").empty() && get("gpu_index").empty()) return;
  // (metric, (info label, value)) for every input label that feeds an info series.
  auto& extra = scratch_extra_;
  extra.clear();
  std::span<const LabelView> input = Input(ls);
  for (size_t k = 0; k < input.size(); ++k) {
    const auto& [name, value] = input[k];
    if (value.empty()) continue;
    if (const auto* info = RuleFor(name, k).info) {
      extra.emplace_back(info->first, LabelView(info->second, value));
    }
  }
  // Stable: a later input label of the same name wins, as Labels::Set would.
  std::stable_sort(extra.begin(), extra.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // One info series per device (and per pod for workload info): rows of one
  // device may carry different subsets of labels, so they are merged.
  std::string& identity = scratch_key_;
  identity.clear();
  for (std::string_view l : {"node", "partition_kind", "partition_id"}) {
    identity += get(l);
    identity += kSep;
  }
  if (!get("gpu_uuid").empty()) {
    identity += get("gpu_uuid");
  } else if (!get("pci_bus_id").empty()) {
    identity += get("pci_bus_id");
  } else {
    identity += get("gpu_index");
  }
  std::vector<LabelView>& own = scratch_own_;
  std::vector<LabelView>& labels = scratch_labels_;
  auto emit = [&](std::string_view metric, size_t first, size_t last) {
    own.clear();
    for (size_t j = first; j < last; ++j) SetLabel(own, extra[j].second.first, extra[j].second.second);
    SortLabels(own);
    MergeSortedLabels(device, own, labels);
    if (metric == "gpu_info") {
      const LabelView source("source", table_.source());
      scratch_merged_.swap(labels);
      MergeSortedLabels(scratch_merged_, std::span<const LabelView>(&source, 1), labels);
    }
    MergeInfo(metric, own, labels);
  };
  // gpu_info always (with its own labels if any), other info series only
  // when the input carries their labels.
  size_t k = 0;
  bool gpu_info_done = false;
  while (k < extra.size()) {
    size_t end = k;
    while (end < extra.size() && extra[end].first == extra[k].first) ++end;
    if (extra[k].first == "gpu_info") gpu_info_done = true;
    emit(extra[k].first, k, end);
    k = end;
  }
  if (!gpu_info_done) emit("gpu_info", 0, 0);
}

void Translator::MergeInfo(std::string_view metric, std::span<const LabelView> own,
                           std::span<const LabelView> labels) {
  const MetricDef* def = MetricCatalog::Default().Find(metric);
  if (def == nullptr) return;
  // Key: metric, device identity (in scratch_key_) and, but for gpu_info, the
  // series' own labels.
  std::string& key = scratch_info_key_;
  key.clear();
  key += metric;
  key += kSep;
  key += scratch_key_;
  if (metric != "gpu_info") {
    key += kSep;
    AppendLabelList(own, key);
  }
  uint64_t hash = std::hash<std::string_view>()(key);
  uint32_t id = info_index_.Find(hash, [&](uint32_t k) {
    return std::string_view(info_keys_).substr(info_[k].key_offset, info_[k].key_size) == key;
  });
  if (id == FlatIndex::kNotFound) {
    info_index_.Insert(hash);
    info_.push_back(InfoEntry{def, static_cast<uint32_t>(info_pairs_.size()),
                              static_cast<uint32_t>(labels.size()), info_keys_.size(),
                              static_cast<uint32_t>(key.size())});
    info_keys_ += key;
    info_pairs_.insert(info_pairs_.end(), labels.begin(), labels.end());
    return;
  }
  // Seen before: add the labels this row has and the earlier ones lacked.
  InfoEntry& e = info_[id];
  size_t before = info_pairs_.size();
  for (const LabelView& l : labels) {
    bool has = false;
    for (uint32_t j = e.first; j < e.first + e.count; ++j) has = has || info_pairs_[j].first == l.first;
    if (!has) info_pairs_.push_back(l);
  }
  if (info_pairs_.size() == before) return;
  // Move the entry to the end so its labels stay contiguous.
  std::vector<LabelView> merged(info_pairs_.begin() + e.first, info_pairs_.begin() + e.first + e.count);
  merged.insert(merged.end(), info_pairs_.begin() + static_cast<std::ptrdiff_t>(before), info_pairs_.end());
  info_pairs_.resize(before);
  SortLabels(merged);
  e.first = static_cast<uint32_t>(info_pairs_.size());
  e.count = static_cast<uint32_t>(merged.size());
  info_pairs_.insert(info_pairs_.end(), merged.begin(), merged.end());
}

std::pair<uint32_t, uint32_t> Translator::ListsFor(uint32_t label_set, uint32_t mapping) {
  const MetricMapping& m = table_.mappings()[mapping];
  LabelSet& ls = label_sets_[label_set];
  if (m.rename_labels.empty()) {
    if (ls.base_labels == CanonicalOutput::kNoLabels) ls.base_labels = out_.AddLabels(Base(ls));
    return {ls.base_labels, ExtraLabels(mapping)};
  }
  uint64_t key = (static_cast<uint64_t>(label_set) << 32) | mapping;
  auto [it, inserted] = renamed_lists_.try_emplace(key, CanonicalOutput::kNoLabels);
  if (inserted) {
    Translate(ls, &m, scratch_labels_, nullptr);
    it->second = out_.AddLabels(scratch_labels_);
  }
  return {it->second, CanonicalOutput::kNoLabels};
}

void Translator::OnSample(const ExpoSample& s) {
  ++report_.input_samples;
  NameEntry& ne = names_[LookupName(s.name)];
  uint32_t ls = known_label_set_;
  known_label_set_ = UINT32_MAX;
  if (s.labels_parsed) {
    // Parsed: the set may still be known (a line without '{', or one whose
    // first '}' lay inside a value).
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
          for (const auto& [name, value] : Input(label_sets_[ls])) {
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
  if (!plausible_[mapping].Contains(value)) {
    ++report_.absurd;
    return;
  }
  auto [base, extra] = ListsFor(ls, mapping);
  ++label_sets_[ls].samples;
  out_.Add(m->def->name, base, extra, value, s.timestamp_ms);
}

void Translator::Finish() {
  for (const InfoEntry& e : info_) {
    std::span<const LabelView> labels(info_pairs_.data() + e.first, e.count);
    out_.Add(e.def->name, out_.AddLabels(labels), CanonicalOutput::kNoLabels, 1.0, std::nullopt);
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
    for (uint32_t k = ls.dropped_first; k < ls.dropped_first + ls.dropped_count; ++k) {
      report_.dropped_labels[dropped_names_[dropped_ids_[k]]] += ls.samples;
    }
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
  Translator t(table, opts, origin, input, output, report);
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
  // Distinct label sets rarely take an eighth of the input.
  output.Reserve(input.size() / 8);
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
