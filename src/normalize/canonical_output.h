// CanonicalOutput: collects translated samples, then writes them sorted
// (metric name, then rendered label string) so output is deterministic
// whatever the input order. Private to normalize/.
//
// Speed: a translated exposition has few distinct label lists (one per input
// label set, one per mapping's extra labels) but a series for almost every
// sample. Label lists are therefore rendered once (AddLabels) and a sample
// names a (base, extra) pair of them; samples are kept per metric family in
// 16 bytes each, ordered within their family by integer ranks of those
// lists, and the rendered order is only verified (and repaired by a string
// sort where the ranks disagree with it). A family's samples are a small
// working set, so ordering and writing stay in cache.
//
// Thread safety: none; one per translation.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/big_vector.h"
#include "core/labels.h"
#include "core/sample.h"
#include "expo/exposition_writer.h"
#include "normalize/label_view.h"
#include "normalize/mapping_table.h"
#include "schema/metric_catalog.h"

namespace gpufleet {

class CanonicalOutput {
 public:
  static constexpr uint32_t kNoLabels = UINT32_MAX;

  // `keep_labels`: AppendSamples() will be used (text output needs only the
  // rendered label fragments, so it does not keep the Labels).
  explicit CanonicalOutput(bool keep_labels = false) : keep_labels_(keep_labels) {}

  // Room for about `label_bytes` of rendered labels and their lists
  // (untouched room costs only address space), so large inputs do not copy
  // as these buffers grow.
  void Reserve(size_t label_bytes) {
    arena_.reserve(label_bytes);
    fragments_.reserve(label_bytes / 16);
    lists_.reserve(label_bytes / 64);
  }
  // Renders a label list once; the id can be shared by any number of series.
  uint32_t AddLabels(const Labels& labels);
  // Same for views. REQUIRES: sorted by name, names unique, values non-empty.
  uint32_t AddLabels(std::span<const LabelView> labels);
  // One sample of the series labelled `base` with `extra` added (extra wins
  // on equal names); either may be kNoLabels. `name` must outlive this
  // object (catalog names). REQUIRES: `name` is in the catalog used for Write().
  void Add(std::string_view name, uint32_t base, uint32_t extra, double value,
           std::optional<int64_t> timestamp_ms);
  void Add(std::string_view name, const Labels& labels, double value,
           std::optional<int64_t> timestamp_ms) {
    Add(name, AddLabels(labels), kNoLabels, value, timestamp_ms);
  }

  // Orders samples, merges series whose rendered labels are equal, drops
  // repeated (series, timestamp) pairs (first in input order wins) and
  // reports how many were dropped through `duplicates`, and how many remain.
  // Renumbers label lists: ids returned by AddLabels are void after.
  void Finalize(uint64_t* duplicates, uint64_t* output_samples);
  // Writes the exposition to `out`; with a `sink`, hands `out` to it whenever
  // it passes about a megabyte and at the end, and clears it.
  // REQUIRES: Finalize() was called.
  void Write(const MetricCatalog& catalog, ExpositionFormat format, std::string* out,
             const ChunkSink* sink = nullptr) const;
  // Appends samples; records without a timestamp get `default_timestamp_ns`.
  // REQUIRES: Finalize() was called and keep_labels was set.
  void AppendSamples(int64_t default_timestamp_ns, std::vector<Sample>* out) const;

 private:
  static constexpr int64_t kNoTimestamp = INT64_MIN;
  // `name="escaped value"` in arena_; the name is its first name_size bytes.
  struct Fragment {
    uint64_t offset;
    uint32_t size;
    uint32_t name_size;
  };
  // Fragments [first, first + count), sorted by name and stored back to back
  // in arena_ with ',' between them, so the list renders as one substring.
  struct LabelList {
    uint32_t first;
    uint32_t count;
    uint32_t names;     // equal for lists with the same label names
    uint32_t size;      // bytes of the rendering (fragments and commas)
    uint32_t rank = 0;  // position in rendered order; equal for equal renderings
  };
  // One sample; its series is (family name, base, extra).
  struct Entry {
    uint32_t base;
    uint32_t extra;
    double value;
  };
  struct Family {
    std::string_view name;
    BigVector<Entry> entries;         // input order
    std::vector<int64_t> timestamps;  // per entry once any entry has one, else empty
    // Filled by Finalize(): entries in output order, and where an entry
    // renders like the one before it (same series; empty when none does).
    BigVector<uint32_t> order;
    std::vector<uint8_t> joins;
    // Every neighbour in `order` was told apart (or joined) by list ranks
    // alone, with no rendering and no repair.
    bool by_ranks = false;
    bool reused = false;  // `order` was taken from another family
    // Set by Summarize(): a hash of the base lists in input order, and
    // whether all entries have the same extra list.
    uint64_t bases_hash = 0;
    bool one_extra = false;
  };
  // A value of a series with several: when, and the entry's input position.
  struct Record {
    int64_t timestamp_ms;
    uint32_t position;
    double value;
  };

  // How the sorted fragments of a base list and an extra list interleave:
  // runs of consecutive fragments of one list, in output order.
  struct MergeRun {
    bool from_extra;
    uint32_t first;  // relative to the list's first fragment
    uint32_t count;
  };
  struct MergePlan {
    std::vector<MergeRun> runs;
  };

  uint32_t FamilyFor(std::string_view name);
  // LabelList::names for lists with these label names.
  uint32_t NamesId(std::span<const LabelView> labels);
  std::string_view Rendered(const LabelList& list) const {
    if (list.count == 0) return {};
    return std::string_view(arena_).substr(fragments_[list.first].offset, list.size);
  }
  // The plan for base list `a` (any list with a's label names) and extra list
  // `b` (id `extra`), computed once per pair.
  const MergePlan& PlanFor(const LabelList& a, uint32_t extra, const LabelList& b) const;
  std::string_view FragmentName(const Fragment& f) const {
    return std::string_view(arena_).substr(f.offset, f.name_size);
  }
  // Calls f(text) for each run of the entry's rendered labels, in order;
  // "{" + runs joined by "," + "}" is the label string (nothing when none).
  template <typename F>
  void ForEachLabelPiece(const Entry& e, F&& f) const;
  // Size of the entry's "{...}" (0 for no labels), and writing it at `p`
  // (returns the end). WriteLabels may write up to kCopyBlock - 1 bytes past
  // the end, and REQUIRES: Finalize() was called (the arena's slack).
  size_t LabelsSize(const Entry& e) const;
  char* WriteLabels(const Entry& e, char* p) const;
  // Compares two entries' "{...}" renderings (<0, 0, >0) without copying.
  int CompareRendered(const Entry& x, const Entry& y);
  // Appends "{...}" (nothing for no labels) of an entry.
  void RenderLabels(const Entry& e, std::string& out) const;
  void RankLabelLists();
  // The order of two entries' series known from their lists' ranks without
  // rendering: <0, 0 or >0, or kUnknownOrder.
  static constexpr int kUnknownOrder = 2;
  int KnownOrder(const Entry& x, const Entry& y);
  bool NamesOverlap(uint32_t base, uint32_t extra);
  // Fills f.order and f.joins; returns the family's samples after dropping
  // repeated timestamps, counting those in `*duplicates`.
  // `ordered`: the families ordered so far (one may share f's order).
  uint64_t OrderFamily(Family& f, std::span<const Family> ordered, uint64_t* duplicates);
  // Checks f.order against rendered order, repairing it where they differ;
  // fills f.joins and f.by_ranks.
  void VerifyOrder(Family& f);
  // Sorts f.order by rank (major list, then minor), stable.
  void SortByRank(Family& f);
  // True when f's rank order must equal prev's (same base lists in the same
  // input order, one extra list each), so prev.order can be reused. Cheap:
  // families that differ usually differ in size or in their first entry.
  // REQUIRES: both were summarized.
  static bool SameRankOrder(const Family& f, const Family& prev);
  static void Summarize(Family& f);
  // Where rank order is not rendered order: sorts f.order by rendered labels.
  void SortByRendering(Family& f);
  // Calls f(entry, timestamp) for each sample of `f` in output order, a
  // series' values by timestamp with repeated timestamps dropped (the first
  // in input order kept); returns how many were dropped.
  template <typename F>
  uint64_t ForEachSample(const Family& f, F&& fn) const;
  Labels EntryLabels(const Entry& e) const;

  bool keep_labels_;
  BigString arena_;
  BigVector<Fragment> fragments_;
  BigVector<LabelList> lists_;
  StringMap<uint32_t> names_index_;  // label names joined by '\0' -> LabelList::names
  std::string names_key_;            // scratch
  std::vector<LabelView> scratch_views_;
  std::vector<std::string_view> scratch_pieces_[2];
  // NamesOverlap() answers by (names id, extra list), and the last one.
  std::unordered_map<uint64_t, bool> overlap_memo_;
  uint64_t overlap_key_ = UINT64_MAX;
  bool overlap_ = false;
  std::vector<Labels> list_labels_;  // per list, only with keep_labels_
  std::vector<Family> families_;     // first-seen order; Finalize() sorts them by name
  size_t largest_family_ = 0;        // entries of the largest family so far
  uint32_t last_family_ = UINT32_MAX;
  uint64_t output_samples_ = 0;
  // Merge plans, memoized by RenderLabels (logically const).
  mutable std::vector<MergePlan> plans_;
  mutable std::unordered_map<uint64_t, uint32_t> plan_index_;  // (names, extra) -> plan
  mutable uint64_t last_plan_key_ = UINT64_MAX;
  mutable uint32_t last_plan_ = 0;
};

}  // namespace gpufleet
