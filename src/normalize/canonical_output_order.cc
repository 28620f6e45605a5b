#include "normalize/canonical_output.h"

#include <algorithm>
#include <numeric>

#include "core/strings.h"
#include "normalize/canonical_output_inl.h"

// Finalize(): ranks the label lists, then orders each family's samples by
// rank, verifies the order against the rendering and finds repeated series.

namespace gpufleet {

using canonical_output_internal::kCopyBlock;

int CanonicalOutput::CompareRendered(const Entry& x, const Entry& y) {
  // "{" piece "," piece ... "}" of each, compared without copying them.
  auto pieces = [this](const Entry& e, std::vector<std::string_view>& out) {
    out.clear();
    ForEachLabelPiece(e, [&out](std::string_view piece) {
      out.push_back(out.empty() ? "{" : ",");
      out.push_back(piece);
    });
    if (!out.empty()) out.push_back("}");
  };
  std::vector<std::string_view>& a = scratch_pieces_[0];
  std::vector<std::string_view>& b = scratch_pieces_[1];
  pieces(x, a);
  pieces(y, b);
  size_t i = 0, j = 0, at_a = 0, at_b = 0;
  while (i < a.size() && j < b.size()) {
    size_t n = std::min(a[i].size() - at_a, b[j].size() - at_b);
    if (int c = std::memcmp(a[i].data() + at_a, b[j].data() + at_b, n); c != 0) return c;
    at_a += n;
    at_b += n;
    if (at_a == a[i].size()) ++i, at_a = 0;
    if (at_b == b[j].size()) ++j, at_b = 0;
  }
  return (i == a.size() ? 0 : 1) - (j == b.size() ? 0 : 1);
}

void CanonicalOutput::RankLabelLists() {
  std::vector<std::pair<std::string_view, uint32_t>> texts(lists_.size());
  for (uint32_t id = 0; id < lists_.size(); ++id) texts[id] = {Rendered(lists_[id]), id};
  SortTextsWithIds(texts);
  // Renumber the lists in rendered order and lay their fragments and text out
  // again in that order: ordering and writing then read lists, fragments and
  // arena front to back instead of jumping around them.
  std::vector<uint32_t> new_id(lists_.size());
  BigVector<LabelList> lists;
  BigVector<Fragment> fragments;
  std::vector<Labels> list_labels;
  BigString arena;
  lists.reserve(lists_.size());
  fragments.reserve(fragments_.size());
  // A comma after each list, and room for CopyInBlocks to read past the end.
  arena.reserve(arena_.size() + lists_.size() + kCopyBlock);
  uint32_t rank = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (i > 0 && texts[i - 1].first != texts[i].first) ++rank;
    uint32_t old = texts[i].second;
    new_id[old] = static_cast<uint32_t>(i);
    LabelList list = lists_[old];
    list.rank = rank + 1;  // 0 is "no labels"
    uint32_t first = static_cast<uint32_t>(fragments.size());
    if (list.count > 0) {
      uint64_t old_start = fragments_[list.first].offset;
      uint64_t new_start = arena.size();
      arena.append(texts[i].first);
      arena.push_back(',');
      for (uint32_t f = list.first; f < list.first + list.count; ++f) {
        Fragment frag = fragments_[f];
        frag.offset = frag.offset - old_start + new_start;
        fragments.push_back(frag);
      }
    }
    list.first = first;
    lists.push_back(list);
    if (keep_labels_) list_labels.push_back(std::move(list_labels_[old]));
  }
  texts.clear();
  lists_ = std::move(lists);
  fragments_ = std::move(fragments);
  arena_ = std::move(arena);
  if (keep_labels_) list_labels_ = std::move(list_labels);
  for (Family& f : families_) {
    for (Entry& e : f.entries) {
      if (e.base != kNoLabels) e.base = new_id[e.base];
      if (e.extra != kNoLabels) e.extra = new_id[e.extra];
    }
  }
  // Memos keyed by list ids are stale.
  plans_.clear();
  plan_index_.clear();
  last_plan_key_ = UINT64_MAX;
  overlap_key_ = UINT64_MAX;
  overlap_memo_.clear();
}

bool CanonicalOutput::NamesOverlap(uint32_t base, uint32_t extra) {
  uint64_t key = (static_cast<uint64_t>(lists_[base].names) << 32) | extra;
  if (key == overlap_key_) return overlap_;
  if (auto it = overlap_memo_.find(key); it != overlap_memo_.end()) {
    overlap_key_ = key;
    return overlap_ = it->second;
  }
  const LabelList& a = lists_[base];
  const LabelList& b = lists_[extra];
  bool overlap = false;
  for (uint32_t i = a.first; i < a.first + a.count && !overlap; ++i) {
    for (uint32_t j = b.first; j < b.first + b.count; ++j) {
      if (FragmentName(fragments_[i]) == FragmentName(fragments_[j])) {
        overlap = true;
        break;
      }
    }
  }
  overlap_key_ = key;
  overlap_ = overlap;
  overlap_memo_.emplace(key, overlap);
  return overlap;
}

int CanonicalOutput::KnownOrder(const Entry& x, const Entry& y) {
  // With the same extra list and base lists of the same label names, the
  // merged renderings differ exactly where the bases do, unless the extra
  // list replaces one of the base labels.
  // Symmetrically, with the same base and extra lists of the same names
  // (sensor="gpu" / sensor="memory"), they differ exactly where the extras do.
  if (x.extra != y.extra) {
    if (x.base != y.base || x.extra == kNoLabels || y.extra == kNoLabels) return kUnknownOrder;
    const LabelList& a = lists_[x.extra];
    const LabelList& b = lists_[y.extra];
    if (a.names != b.names || a.count == 0) return kUnknownOrder;
    if (x.base != kNoLabels && (NamesOverlap(x.base, x.extra) || NamesOverlap(y.base, y.extra))) {
      return kUnknownOrder;
    }
    return a.rank < b.rank ? -1 : (a.rank > b.rank ? 1 : 0);
  }
  if (x.base == y.base) return 0;
  if (x.base == kNoLabels || y.base == kNoLabels) return kUnknownOrder;
  const LabelList& a = lists_[x.base];
  const LabelList& b = lists_[y.base];
  if (a.names != b.names) return kUnknownOrder;
  if (x.extra != kNoLabels && NamesOverlap(x.base, x.extra)) return kUnknownOrder;
  return a.rank < b.rank ? -1 : (a.rank > b.rank ? 1 : 0);
}

namespace {

// Stable counting sort of `ids` by key(id) < `range`.
template <typename Key>
void CountingSort(BigVector<uint32_t>& ids, BigVector<uint32_t>& tmp, size_t range,
                  const Key& key) {
  std::vector<uint32_t> begin(range + 1, 0);
  for (uint32_t id : ids) ++begin[key(id) + 1];
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  tmp.resize(ids.size());
  for (uint32_t id : ids) tmp[begin[key(id)]++] = id;
  ids.swap(tmp);
}

}  // namespace

void CanonicalOutput::SortByRank(Family& f) {
  const BigVector<Entry>& entries = f.entries;
  auto rank = [this](uint32_t list) -> uint32_t {
    return list == kNoLabels ? 0u : lists_[list].rank;
  };
  // Major is the base list's rank, unless the family's extra labels sort
  // before its base labels (domain="sm" before gpu_uuid=...): then the extra
  // list's. Either way this only predicts the rendered order; OrderFamily
  // verifies it.
  bool extra_major = false;
  for (const Entry& e : entries) {
    if (e.base == kNoLabels || e.extra == kNoLabels) continue;
    const LabelList& a = lists_[e.base];
    const LabelList& b = lists_[e.extra];
    if (a.count == 0 || b.count == 0) continue;
    extra_major = FragmentName(fragments_[b.first]) < FragmentName(fragments_[a.first]);
    break;
  }
  auto major = [&](uint32_t i) { return rank(extra_major ? entries[i].extra : entries[i].base); };
  auto minor = [&](uint32_t i) { return rank(extra_major ? entries[i].base : entries[i].extra); };
  const size_t n = entries.size();
  const size_t ranks = lists_.size() + 1;
  f.order.resize(n);
  std::iota(f.order.begin(), f.order.end(), 0);
  if (n * 4 < ranks) {
    // Few samples for many lists: a comparison sort beats counting.
    std::vector<std::pair<uint64_t, uint32_t>> keys(n);
    for (uint32_t i = 0; i < n; ++i) keys[i] = {(uint64_t{major(i)} << 32) | minor(i), i};
    std::sort(keys.begin(), keys.end());
    for (size_t k = 0; k < n; ++k) f.order[k] = keys[k].second;
    return;
  }
  // Stable counting sorts, least significant key first (ranks are dense, so
  // this is linear). Most families have one extra list: then the minor key
  // is the same for all and one sort is enough.
  BigVector<uint32_t> tmp;
  bool one_minor = true;
  for (uint32_t i = 1; i < n && one_minor; ++i) one_minor = minor(i) == minor(0);
  if (!one_minor) CountingSort(f.order, tmp, ranks, minor);
  CountingSort(f.order, tmp, ranks, major);
}

void CanonicalOutput::SortByRendering(Family& f) {
  const size_t n = f.entries.size();
  std::string text;
  std::vector<size_t> offset(n + 1);
  for (size_t i = 0; i < n; ++i) {
    offset[i] = text.size();
    RenderLabels(f.entries[i], text);
  }
  offset[n] = text.size();
  auto rendered = [&](size_t i) {
    return std::string_view(text).substr(offset[i], offset[i + 1] - offset[i]);
  };
  std::iota(f.order.begin(), f.order.end(), 0);
  std::stable_sort(f.order.begin(), f.order.end(),
                   [&](uint32_t x, uint32_t y) { return rendered(x) < rendered(y); });
  f.joins.assign(n, 0);
  for (size_t k = 1; k < n; ++k) f.joins[k] = rendered(f.order[k - 1]) == rendered(f.order[k]);
}

bool CanonicalOutput::SameRankOrder(const Family& f, const Family& prev) {
  // Both orders are then the base lists' rank order (a constant extra rank
  // changes nothing whether it is the major or the minor key), ties in
  // input order. Exporters list the same devices in the same order under
  // every metric, so most families take this path.
  const size_t n = f.entries.size();
  if (!f.one_extra || !prev.one_extra || prev.entries.size() != n || n == 0 ||
      f.bases_hash != prev.bases_hash) {
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    if (f.entries[i].base != prev.entries[i].base) return false;
  }
  return true;
}

void CanonicalOutput::Summarize(Family& f) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the base ids
  f.one_extra = true;
  for (const Entry& e : f.entries) {
    h = (h ^ e.base) * 0x100000001b3ull;
    f.one_extra = f.one_extra && e.extra == f.entries[0].extra;
  }
  f.bases_hash = h;
}

uint64_t CanonicalOutput::OrderFamily(Family& f, std::span<const Family> ordered,
                                      uint64_t* duplicates) {
  Summarize(f);
  // Only families that were sorted themselves are worth comparing with.
  auto same = std::find_if(ordered.begin(), ordered.end(), [&f](const Family& g) {
    return !g.reused && SameRankOrder(f, g);
  });
  f.reused = same != ordered.end();
  if (!f.reused) {
    SortByRank(f);
    VerifyOrder(f);
  } else {
    f.order = same->order;
    // Where the ranks alone decided every neighbour there, they decide
    // alike here (same bases, all with the same label names), unless this
    // family's extra list replaces one of those labels.
    const Entry& e = f.entries[0];
    bool replaces = e.extra != kNoLabels && (e.base == kNoLabels || NamesOverlap(e.base, e.extra));
    if (same->by_ranks && !replaces) {
      f.joins = same->joins;
      f.by_ranks = true;
    } else {
      VerifyOrder(f);
    }
  }
  if (f.joins.empty()) return f.entries.size();
  uint64_t dropped = ForEachSample(f, [](const Entry&, double, int64_t) {});
  *duplicates += dropped;
  return f.entries.size() - dropped;
}

void CanonicalOutput::VerifyOrder(Family& f) {
  // The rank order is almost always the rendered order; verify it (rendering
  // only where the ranks cannot tell), marking entries of one series.
  f.joins.clear();
  f.by_ranks = true;
  for (size_t k = 1; k < f.order.size(); ++k) {
    const Entry& x = f.entries[f.order[k - 1]];
    const Entry& y = f.entries[f.order[k]];
    int c = KnownOrder(x, y);
    if (c == kUnknownOrder) {
      f.by_ranks = false;
      c = CompareRendered(x, y);
    }
    if (c > 0) {
      f.by_ranks = false;
      SortByRendering(f);
      return;
    }
    if (c == 0) {
      if (f.joins.empty()) f.joins.assign(f.order.size(), 0);
      f.joins[k] = 1;
    }
  }
}

void CanonicalOutput::Finalize(uint64_t* duplicates, uint64_t* output_samples) {
  RankLabelLists();
  std::sort(families_.begin(), families_.end(),
            [](const Family& x, const Family& y) { return x.name < y.name; });
  last_family_ = UINT32_MAX;
  uint64_t kept = 0;
  for (size_t k = 0; k < families_.size(); ++k) {
    kept += OrderFamily(families_[k], std::span<const Family>(families_.data(), k), duplicates);
  }
  output_samples_ = kept;
  *output_samples += kept;
}

}  // namespace gpufleet
