#include "normalize/exposition_translator.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/big_vector.h"
#include "core/flat_index.h"
#include "expo/exposition_parser.h"
#include "normalize/canonical_output.h"
#include "normalize/info_series.h"
#include "normalize/label_rules.h"
#include "normalize/label_view.h"
#include "normalize/mapping_table.h"
#include "normalize/normalizer.h"
#include "normalize/stable_text.h"
#include "normalize/uuid_alias.h"
#include "schema/device.h"

// The exporter sniffing and the entry points that pick a table by it are in
// exporter_sniff.cc.

namespace gpufleet {

namespace {

// Translator: the ExpositionHandler that translates one exporter text into
// canonical series (see exposition_translator.h for what it does; this is
// how). Not thread-safe, one per translation.
//
// For each sample line: the metric name is looked up once per name
// (MetricNames); the label text once per distinct set (LabelSets), whose
// canonical labels are computed when it is first seen and rendered into the
// output once, per mapping that renames labels (SeriesLists); each new set
// also feeds the info series (InfoSeries). Then the first mapping of the
// name that matches is applied: rate-derived, sentinel and implausible
// values are counted instead, the rest are added to the output.
// Internal linkage on purpose: the per-sample calls inline into OnSample.
class Translator final : public ExpositionHandler {
 public:
  // `input` is the text being parsed: views into it stay valid throughout.
  // All arguments must outlive this object.
  Translator(const MappingTable& table, const TranslateOptions& opts, std::string_view origin,
             std::string_view input, CanonicalOutput& out, TranslateReport& report);

  void OnSample(const ExpoSample& s) override;
  size_t KnownLabelSet(std::string_view rest) override;
  void OnError(const ExpoError& e) override {
    report_.AddError(e.ToString(origin_), opts_.max_error_messages);
  }
  // Adds the info series to the output and moves the per-name and per-set
  // counts into the report.
  void Finish();

 private:
  // Input metric names, each looked up in the table once.
  struct MetricNames {
    struct Entry {
      std::string name;
      const std::vector<uint32_t>* mappings = nullptr;  // nullptr: not mapped
      uint64_t unmapped = 0;                            // samples no mapping accepted
    };
    std::vector<Entry> entries;
    StringMap<uint32_t> index;
    uint32_t last = UINT32_MAX;  // lines of one family come together
  };

  // Distinct input label sets (by their raw text), each translated once.
  struct LabelSets {
    struct Set {
      std::string_view raw;        // as written in the input (the key in `index`)
      uint32_t next = UINT32_MAX;  // the set that followed this one last time
      uint32_t base_labels = CanonicalOutput::kNoLabels;  // `base` in out_, made on first use
      // Input order, in input_pairs; views into the input or StableText
      // (values unescaped).
      uint32_t input_first = 0;
      uint32_t input_count = 0;
      // Canonical labels without per-metric parts, computed once (sorted by
      // name, in base_pairs): most input series are distinct, so per-series
      // work must stay small and allocate nothing.
      uint32_t base_first = 0;
      uint32_t base_count = 0;
      uint32_t dropped_first = 0;  // into dropped_ids (LabelRules dropped-name ids)
      uint32_t dropped_count = 0;
      uint32_t target_first = 0;  // into target_names (scrape-target pod labels)
      uint32_t target_count = 0;
      uint64_t samples = 0;  // mapped samples that used this set
    };
    std::span<const LabelView> Input(const Set& s) const {
      return std::span<const LabelView>(input_pairs.data() + s.input_first, s.input_count);
    }
    std::span<const LabelView> Base(const Set& s) const {
      return std::span<const LabelView>(base_pairs.data() + s.base_first, s.base_count);
    }
    // The set with this raw text, or UINT32_MAX when new; remembers it as
    // the one that followed the last.
    uint32_t Lookup(std::string_view raw);

    std::vector<Set> sets;
    FlatIndex index;  // raw label text -> set
    uint32_t last = UINT32_MAX;
    uint32_t known = UINT32_MAX;  // answer of the last KnownLabelSet()
    BigVector<LabelView> input_pairs;
    BigVector<LabelView> base_pairs;
    std::vector<uint32_t> dropped_ids;
    std::vector<std::string_view> target_names;  // views into the input or StableText
  };

  // Label lists rendered into out_ for the series of one mapping.
  struct SeriesLists {
    std::vector<uint32_t> extra;  // per mapping: its own labels (empty until first use)
    // (label set, mapping) -> label list, for mappings that rename labels
    // (their labels are translated per series, so once is enough).
    std::unordered_map<uint64_t, uint32_t> renamed;
  };

  uint32_t LookupName(std::string_view name);
  uint32_t AddLabelSet(const ExpoSample& s);
  uint32_t ExtraLabels(uint32_t mapping);
  // The (base, extra) label lists of the series of `mapping` on `label_set`.
  std::pair<uint32_t, uint32_t> ListsFor(uint32_t label_set, uint32_t mapping);
  // Canonical labels of a series into `out` (sorted by name). `m` may be
  // nullptr (device labels only). Values are views into the input, the table
  // or text_. Dropped labels' ids are appended to `dropped` when given.
  void Translate(const LabelSets::Set& ls, const MetricMapping* m, std::vector<LabelView>& out,
                 std::vector<uint32_t>* dropped);

  // Set at construction.
  const MappingTable& table_;
  const TranslateOptions& opts_;
  std::string_view origin_;
  CanonicalOutput& out_;
  TranslateReport& report_;
  std::vector<PlausibleRange> plausible_;  // per mapping

  // Built as the input is read.
  StableText text_;
  LabelRules rules_;
  MetricNames names_;
  LabelSets label_sets_;
  SeriesLists lists_;
  InfoSeries info_;
  UuidAliases aliases_;  // real UUIDs of devices also listed under a null one

  // Scratch space reused across label sets.
  std::vector<LabelView> scratch_labels_;
  std::vector<LabelView> scratch_fallback_;
};

Translator::Translator(const MappingTable& table, const TranslateOptions& opts,
                       std::string_view origin, std::string_view input, CanonicalOutput& out,
                       TranslateReport& report)
    : table_(table),
      opts_(opts),
      origin_(origin),
      out_(out),
      report_(report),
      text_(input),
      rules_(table),
      info_(table.source(), input.size()) {
  // Room (address space only until used) for the label pairs of a
  // typical exporter text, so these arrays do not copy as they grow.
  size_t pairs = input.size() / 64;
  label_sets_.input_pairs.reserve(pairs);
  label_sets_.base_pairs.reserve(pairs);
  for (const MetricMapping& m : table_.mappings()) plausible_.push_back(PlausibleRangeOf(*m.def));
  aliases_.Scan(input, table_, opts_.node);
}

uint32_t Translator::LookupName(std::string_view name) {
  MetricNames& n = names_;
  if (n.last != UINT32_MAX && n.entries[n.last].name == name) return n.last;
  auto it = n.index.find(name);
  if (it == n.index.end()) {
    MetricNames::Entry e;
    e.name = std::string(name);
    e.mappings = table_.FindAll(name);
    it = n.index.emplace(e.name, static_cast<uint32_t>(n.entries.size())).first;
    n.entries.push_back(std::move(e));
  }
  n.last = it->second;
  return n.last;
}

uint32_t Translator::LabelSets::Lookup(std::string_view raw) {
  // Exporters print every family's series in the same order, so the set that
  // followed the previous one last time is almost always the next one.
  uint32_t id = UINT32_MAX;
  if (last != UINT32_MAX) {
    const Set& prev = sets[last];
    if (prev.next != UINT32_MAX && sets[prev.next].raw == raw) id = prev.next;
  }
  if (id == UINT32_MAX) {
    id = index.Find(std::hash<std::string_view>()(raw),
                    [&](uint32_t k) { return sets[k].raw == raw; });
    if (id == FlatIndex::kNotFound) return UINT32_MAX;
  }
  if (last != UINT32_MAX) sets[last].next = id;
  last = id;
  return id;
}

size_t Translator::KnownLabelSet(std::string_view rest) {
  LabelSets& ls = label_sets_;
  // Exporters print every family's series in the same order, so the set
  // that followed the previous one last time is almost always the next one:
  // compare it in place, without looking for the '}' first.
  if (ls.last != UINT32_MAX) {
    uint32_t next = ls.sets[ls.last].next;
    if (next != UINT32_MAX) {
      std::string_view raw = ls.sets[next].raw;
      if (rest.size() > raw.size() && rest[raw.size()] == '}' && rest.starts_with(raw)) {
        ls.known = ls.last = next;
        return raw.size();
      }
    }
  }
  // Else a known set ends at the first '}' (sets with '}' inside a value
  // are found by the comparison above, or parsed).
  size_t close = rest.find('}');
  if (close == std::string_view::npos) return close;
  ls.known = ls.Lookup(rest.substr(0, close));
  return ls.known == UINT32_MAX ? std::string_view::npos : close;
}

uint32_t Translator::AddLabelSet(const ExpoSample& s) {
  LabelSets& sets = label_sets_;
  LabelSets::Set ls;
  ls.raw = text_.Stable(s.raw_labels);
  ls.input_first = static_cast<uint32_t>(sets.input_pairs.size());
  ls.input_count = static_cast<uint32_t>(s.labels.size());
  for (const ExpoLabel& l : s.labels) {
    sets.input_pairs.emplace_back(text_.Stable(l.name), text_.Stable(l.value));
  }
  ls.dropped_first = static_cast<uint32_t>(sets.dropped_ids.size());
  Translate(ls, nullptr, scratch_labels_, &sets.dropped_ids);
  ls.dropped_count = static_cast<uint32_t>(sets.dropped_ids.size() - ls.dropped_first);
  ls.base_first = static_cast<uint32_t>(sets.base_pairs.size());
  ls.base_count = static_cast<uint32_t>(scratch_labels_.size());
  sets.base_pairs.insert(sets.base_pairs.end(), scratch_labels_.begin(), scratch_labels_.end());
  uint32_t id = sets.index.Insert(std::hash<std::string_view>()(ls.raw));
  ls.target_first = static_cast<uint32_t>(sets.target_names.size());
  sets.sets.push_back(ls);
  info_.Add(sets.Base(sets.sets.back()), sets.Input(sets.sets.back()), rules_,
            &sets.target_names);
  sets.sets.back().target_count =
      static_cast<uint32_t>(sets.target_names.size() - sets.sets.back().target_first);
  return id;
}

uint32_t Translator::ExtraLabels(uint32_t mapping) {
  // kNotMade: not rendered yet (kNoLabels is a valid answer: no extra labels).
  constexpr uint32_t kNotMade = CanonicalOutput::kNoLabels - 1;
  if (lists_.extra.empty()) lists_.extra.assign(table_.mappings().size(), kNotMade);
  uint32_t& id = lists_.extra[mapping];
  if (id == kNotMade) {
    const MetricMapping& m = table_.mappings()[mapping];
    Labels extra = m.labels;
    if (!m.method.empty()) extra.Set("method", m.method);
    id = extra.empty() ? CanonicalOutput::kNoLabels : out_.AddLabels(extra);
  }
  return id;
}

void Translator::Translate(const LabelSets::Set& ls, const MetricMapping* m,
                           std::vector<LabelView>& out, std::vector<uint32_t>* dropped) {
  out.clear();
  std::vector<LabelView>& fallback = scratch_fallback_;
  fallback.clear();
  std::span<const LabelView> input = label_sets_.Input(ls);
  bool null_uuid = false;
  for (size_t k = 0; k < input.size(); ++k) {
    const auto& [name, value] = input[k];
    if (value.empty()) continue;  // Prometheus: empty == absent
    const LabelRules::Rule& rule = rules_.For(name, k);
    if (rule.info != nullptr) continue;  // carried by an info series
    std::optional<std::string_view> canon;
    if (m != nullptr) {
      if (const std::string* r = m->RenamedLabel(name)) canon = *r;
    }
    if (!canon) canon = rule.canon;
    if (canon) {
      std::string_view v = table_.MapLabelValue(*canon, value);
      if (*canon == "pci_bus_id") {
        v = text_.Keep(CanonicalPciBusId(v));
      } else if (*canon == "gpu_uuid" && IsNullUuid(v)) {
        // AMD SR-IOV guests report an all-zero UUID; it identifies nothing.
        null_uuid = true;
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
  if (!HasLabel(out, "gpu_uuid") && null_uuid && !aliases_.empty()) {
    // The same device listed again under its real UUID (see uuid_alias.h).
    std::string key;
    for (const auto& [name, value] : fallback) UuidAliases::AppendKey(name, value, key);
    std::string_view node = opts_.node;
    for (const auto& [name, value] : out) {
      if (name == "node") node = value;
    }
    std::string_view real = aliases_.Find(node, key);
    if (!real.empty()) SetLabel(out, "gpu_uuid", real);
  }
  if (!HasLabel(out, "gpu_uuid")) {
    for (const auto& [name, value] : fallback) SetLabel(out, name, value);
  }
  // Partition id/profile mean nothing without a partition kind (e.g. AMD SPX
  // mode reports gpu_partition_id="0" for a whole GPU), nor on a reading of
  // the whole GPU (its copies on each partition become one series).
  if (m != nullptr && m->whole_device) SetLabel(out, "partition_kind", {});
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

std::pair<uint32_t, uint32_t> Translator::ListsFor(uint32_t label_set, uint32_t mapping) {
  const MetricMapping& m = table_.mappings()[mapping];
  LabelSets::Set& ls = label_sets_.sets[label_set];
  if (m.rename_labels.empty() && !m.whole_device) {
    if (ls.base_labels == CanonicalOutput::kNoLabels) {
      ls.base_labels = out_.AddLabels(label_sets_.Base(ls));
    }
    return {ls.base_labels, ExtraLabels(mapping)};
  }
  uint64_t key = (static_cast<uint64_t>(label_set) << 32) | mapping;
  auto [it, inserted] = lists_.renamed.try_emplace(key, CanonicalOutput::kNoLabels);
  if (inserted) {
    Translate(ls, &m, scratch_labels_, nullptr);
    it->second = out_.AddLabels(scratch_labels_);
  }
  return {it->second, CanonicalOutput::kNoLabels};
}

void Translator::OnSample(const ExpoSample& s) {
  ++report_.input_samples;
  MetricNames::Entry& ne = names_.entries[LookupName(s.name)];
  uint32_t ls = label_sets_.known;
  label_sets_.known = UINT32_MAX;
  if (s.labels_parsed) {
    // Parsed: the set may still be known (a line without '{', or one whose
    // first '}' lay inside a value).
    ls = label_sets_.Lookup(s.raw_labels);
    if (ls == UINT32_MAX) {
      ls = AddLabelSet(s);
      if (label_sets_.last != UINT32_MAX) label_sets_.sets[label_sets_.last].next = ls;
      label_sets_.last = ls;
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
          for (const auto& [name, value] : label_sets_.Input(label_sets_.sets[ls])) {
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
  ++label_sets_.sets[ls].samples;
  out_.Add(m->def->name, base, extra, value, s.timestamp_ms);
}

void Translator::Finish() {
  info_.AddTo(out_);
  for (const MetricNames::Entry& ne : names_.entries) {
    if (ne.unmapped == 0) continue;
    if (table_.IgnoreReason(ne.name) != nullptr) {
      report_.ignored[ne.name] += ne.unmapped;
    } else {
      report_.unmapped[ne.name] += ne.unmapped;
    }
  }
  for (const LabelSets::Set& ls : label_sets_.sets) {
    if (ls.samples == 0) continue;
    for (uint32_t k = ls.dropped_first; k < ls.dropped_first + ls.dropped_count; ++k) {
      report_.dropped_labels[rules_.dropped_name(label_sets_.dropped_ids[k])] += ls.samples;
    }
    for (uint32_t k = ls.target_first; k < ls.target_first + ls.target_count; ++k) {
      report_.dropped_labels[std::string(label_sets_.target_names[k]) + " (scrape target)"] +=
          ls.samples;
    }
  }
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

}  // namespace gpufleet
