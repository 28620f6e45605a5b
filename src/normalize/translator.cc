#include "normalize/translator.h"

#include <functional>
#include <optional>

#include "schema/device.h"

namespace gpufleet {

namespace {

// AMD SR-IOV guests report an all-zero UUID; it identifies nothing.
bool IsNullUuid(std::string_view v) {
  return v.find_first_not_of("0-") == std::string_view::npos;
}

}  // namespace

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
  sets.sets.push_back(ls);
  info_.Add(sets.Base(sets.sets.back()), sets.Input(sets.sets.back()), rules_);
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

std::pair<uint32_t, uint32_t> Translator::ListsFor(uint32_t label_set, uint32_t mapping) {
  const MetricMapping& m = table_.mappings()[mapping];
  LabelSets::Set& ls = label_sets_.sets[label_set];
  if (m.rename_labels.empty()) {
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
  }
}

}  // namespace gpufleet
