// Translator: the ExpositionHandler that translates one exporter text into
// canonical series (see exposition_translator.h for what it does; this is
// how). Private to normalize/; not thread-safe, one per translation.
//
// For each sample line: the metric name is looked up once per name
// (MetricNames); the label text once per distinct set (LabelSets), whose
// canonical labels are computed when it is first seen and rendered into the
// output once, per mapping that renames labels (SeriesLists); each new set
// also feeds the info series (InfoSeries). Then the first mapping of the
// name that matches is applied: rate-derived, sentinel and implausible
// values are counted instead, the rest are added to the output.
#pragma once

#include <cstdint>
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
#include "normalize/translate_report.h"

namespace gpufleet {

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

  // Scratch space reused across label sets.
  std::vector<LabelView> scratch_labels_;
  std::vector<LabelView> scratch_fallback_;
};

}  // namespace gpufleet
