#include "normalize/canonical_output.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <numeric>

#include "core/strings.h"

namespace gpufleet {

namespace {

constexpr size_t kChunkBytes = 1 << 20;

// WriteLabels copies label text in blocks of kCopyBlock bytes, which is much
// cheaper than a memcpy call per piece (pieces average ~60 bytes, and there
// are a few per line): it may read up to kCopyBlock - 1 bytes past a piece
// (the arena keeps that much room past its end) and write as far past the
// labels (callers leave that much room in the output).
constexpr size_t kCopyBlock = 32;

inline void CopyInBlocks(char* dst, const char* src, size_t n) {
  for (size_t i = 0; i < n; i += kCopyBlock) std::memcpy(dst + i, src + i, kCopyBlock);
}

}  // namespace

uint32_t CanonicalOutput::AddLabels(const Labels& labels) {
  std::vector<LabelView>& views = scratch_views_;
  views.clear();
  for (const auto& [name, value] : labels.pairs()) views.emplace_back(name, value);
  return AddLabels(views);
}

uint32_t CanonicalOutput::AddLabels(std::span<const LabelView> labels) {
  LabelList list{static_cast<uint32_t>(fragments_.size()), static_cast<uint32_t>(labels.size()),
                 0, 0};
  list.names = NamesId(labels);
  const size_t start = arena_.size();
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) arena_.push_back(',');
    first = false;
    Fragment f{arena_.size(), 0, static_cast<uint32_t>(name.size())};
    AppendLabelPair(name, value, arena_);
    f.size = static_cast<uint32_t>(arena_.size() - f.offset);
    fragments_.push_back(f);
  }
  list.size = static_cast<uint32_t>(arena_.size() - start);
  lists_.push_back(list);
  if (keep_labels_) {
    Labels kept;
    for (const auto& [name, value] : labels) kept.Set(name, value);
    list_labels_.push_back(std::move(kept));
  }
  return static_cast<uint32_t>(lists_.size() - 1);
}

uint32_t CanonicalOutput::NamesId(std::span<const LabelView> labels) {
  // Lists mostly repeat the names of one of the last two lists (device
  // lists in a row; info series of two kinds in turn): compare with those.
  for (size_t back = 1; back <= 2 && back <= lists_.size(); ++back) {
    const LabelList& l = lists_[lists_.size() - back];
    if (l.count != labels.size()) continue;
    bool same = true;
    for (uint32_t k = 0; k < l.count && same; ++k) {
      same = FragmentName(fragments_[l.first + k]) == labels[k].first;
    }
    if (same) return l.names;
  }
  names_key_.clear();
  for (const auto& [name, value] : labels) {
    names_key_.append(name);
    names_key_.push_back('\0');
  }
  return names_index_.try_emplace(names_key_, static_cast<uint32_t>(names_index_.size()))
      .first->second;
}

uint32_t CanonicalOutput::FamilyFor(std::string_view name) {
  if (last_family_ != UINT32_MAX) {
    std::string_view last = families_[last_family_].name;
    if (last.data() == name.data() && last.size() == name.size()) return last_family_;
  }
  // Few families: a scan is enough.
  for (uint32_t k = 0; k < families_.size(); ++k) {
    if (families_[k].name == name) return last_family_ = k;
  }
  // Room for as many entries as the largest family so far: exporters list
  // the same devices under every metric, so families grow to equal sizes.
  for (const Family& f : families_) largest_family_ = std::max(largest_family_, f.entries.size());
  families_.emplace_back();
  families_.back().name = name;
  families_.back().entries.reserve(largest_family_);
  return last_family_ = static_cast<uint32_t>(families_.size() - 1);
}

void CanonicalOutput::Add(std::string_view name, uint32_t base, uint32_t extra, double value,
                          std::optional<int64_t> timestamp_ms) {
  Family& f = families_[FamilyFor(name)];
  if (timestamp_ms.has_value() || !f.timestamps.empty()) {
    f.timestamps.resize(f.entries.size(), kNoTimestamp);
    f.timestamps.push_back(timestamp_ms.value_or(kNoTimestamp));
  }
  f.entries.push_back(Entry{base, extra, value});
}

std::string_view CanonicalOutput::Rendered(const LabelList& list) const {
  if (list.count == 0) return {};
  return std::string_view(arena_).substr(fragments_[list.first].offset, list.size);
}

template <typename F>
void CanonicalOutput::ForEachLabelPiece(const Entry& e, F&& f) const {
  const LabelList* a = e.base == kNoLabels ? nullptr : &lists_[e.base];
  const LabelList* b = e.extra == kNoLabels ? nullptr : &lists_[e.extra];
  if (a != nullptr && a->count == 0) a = nullptr;
  if (b != nullptr && b->count == 0) b = nullptr;
  if (a == nullptr || b == nullptr) {
    if (a != nullptr || b != nullptr) f(Rendered(a != nullptr ? *a : *b));
    return;
  }
  for (const MergeRun& r : PlanFor(*a, e.extra, *b).runs) {
    const LabelList& list = r.from_extra ? *b : *a;
    const Fragment& f0 = fragments_[list.first + r.first];
    const Fragment& f1 = fragments_[list.first + r.first + r.count - 1];
    // Fragments of one list lie back to back with ',' between them.
    f(std::string_view(arena_).substr(f0.offset, f1.offset + f1.size - f0.offset));
  }
}

size_t CanonicalOutput::LabelsSize(const Entry& e) const {
  size_t size = 0;
  size_t pieces = 0;
  ForEachLabelPiece(e, [&](std::string_view piece) {
    size += piece.size();
    ++pieces;
  });
  return pieces == 0 ? 0 : size + pieces + 1;  // braces and the commas between pieces
}

char* CanonicalOutput::WriteLabels(const Entry& e, char* p) const {
  bool first = true;
  ForEachLabelPiece(e, [&](std::string_view piece) {
    *p++ = first ? '{' : ',';
    first = false;
    CopyInBlocks(p, piece.data(), piece.size());
    p += piece.size();
  });
  if (!first) *p++ = '}';
  return p;
}

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

void CanonicalOutput::RenderLabels(const Entry& e, std::string& out) const {
  size_t old = out.size();
  size_t size = LabelsSize(e);
  out.resize(old + size + kCopyBlock);  // WriteLabels may write past the labels
  WriteLabels(e, out.data() + old);
  out.resize(old + size);
}

const CanonicalOutput::MergePlan& CanonicalOutput::PlanFor(const LabelList& a, uint32_t extra,
                                                           const LabelList& b) const {
  // The interleaving depends only on the label names of `a` and on `b`.
  uint64_t key = (static_cast<uint64_t>(a.names) << 32) | extra;
  if (key == last_plan_key_) return plans_[last_plan_];
  auto [it, inserted] = plan_index_.try_emplace(key, static_cast<uint32_t>(plans_.size()));
  if (inserted) {
    MergePlan plan;
    // Both lists are sorted by name: merge them, `b` winning on equal names.
    uint32_t i = 0, j = 0;
    auto push = [&plan](bool from_extra, uint32_t index) {
      if (!plan.runs.empty()) {
        MergeRun& last = plan.runs.back();
        if (last.from_extra == from_extra && last.first + last.count == index) {
          ++last.count;
          return;
        }
      }
      plan.runs.push_back(MergeRun{from_extra, index, 1});
    };
    while (i < a.count || j < b.count) {
      if (j == b.count) {
        push(false, i++);
      } else if (i == a.count) {
        push(true, j++);
      } else {
        int c = FragmentName(fragments_[a.first + i]).compare(FragmentName(fragments_[b.first + j]));
        if (c < 0) {
          push(false, i++);
        } else {
          if (c == 0) ++i;
          push(true, j++);
        }
      }
    }
    plans_.push_back(std::move(plan));
  }
  last_plan_key_ = key;
  last_plan_ = it->second;
  return plans_[last_plan_];
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

template <typename F>
uint64_t CanonicalOutput::ForEachSample(const Family& f, F&& fn) const {
  const size_t n = f.order.size();
  auto timestamp = [&f](uint32_t i) {
    return f.timestamps.empty() ? kNoTimestamp : f.timestamps[i];
  };
  if (f.joins.empty()) {
    for (uint32_t i : f.order) fn(f.entries[i], f.entries[i].value, timestamp(i));
    return 0;
  }
  uint64_t dropped = 0;
  std::vector<Record> records;
  for (size_t k = 0; k < n;) {
    size_t end = k + 1;
    while (end < n && f.joins[end] != 0) ++end;
    const Entry& first = f.entries[f.order[k]];
    if (end == k + 1) {
      fn(first, first.value, timestamp(f.order[k]));
      k = end;
      continue;
    }
    // One series with several values: by timestamp, the first in input
    // order winning where timestamps repeat.
    records.clear();
    for (size_t j = k; j < end; ++j) {
      uint32_t i = f.order[j];
      records.push_back(Record{timestamp(i), i, f.entries[i].value});
    }
    std::sort(records.begin(), records.end(), [](const Record& x, const Record& y) {
      if (x.timestamp_ms != y.timestamp_ms) return x.timestamp_ms < y.timestamp_ms;
      return x.position < y.position;
    });
    for (size_t j = 0; j < records.size(); ++j) {
      if (j > 0 && records[j].timestamp_ms == records[j - 1].timestamp_ms) {
        ++dropped;
        continue;
      }
      fn(first, records[j].value, records[j].timestamp_ms);
    }
    k = end;
  }
  return dropped;
}

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

void CanonicalOutput::Write(const MetricCatalog& catalog, ExpositionFormat format,
                            std::string* out, const ChunkSink* sink) const {
  // Sample lines are written straight into `out` at `used`, past which `out`
  // is kept longer than any line can be (so it is neither resized nor
  // zero-filled per line), and handed to `sink` once it passes kChunkBytes.
  // Metadata lines are written aside and copied in. The label string comes
  // from fragments rendered once, so nothing is allocated per sample.
  size_t used = out->size();
  std::string meta;
  ExpositionWriter writer(format, &meta);
  auto append_meta = [&] {
    if (used + meta.size() > out->size()) out->resize(used + std::max(meta.size(), kChunkBytes));
    std::memcpy(out->data() + used, meta.data(), meta.size());
    used += meta.size();
    meta.clear();
  };
  std::string_view name;
  auto text_size = [this](uint32_t list) -> size_t {
    return list == kNoLabels ? 0 : lists_[list].size;
  };
  auto write_line = [&](const Entry& e, double v, int64_t timestamp_ms) {
    // `{` base `,` extra `}` bounds the merged labels (the merge only drops
    // base labels the extra list replaces).
    size_t bound = name.size() + text_size(e.base) + text_size(e.extra) + 3 + kCopyBlock +
                   2 * (kMaxDoubleChars + 1) + 1;
    if (used + bound > out->size()) out->resize(used + std::max(bound, kChunkBytes));
    char* const begin = out->data() + used;
    char* p = begin;
    std::memcpy(p, name.data(), name.size());
    p = WriteLabels(e, p + name.size());
    *p++ = ' ';
    p += FormatDoubleTo(v, p);
    if (timestamp_ms != kNoTimestamp) {
      *p++ = ' ';
      if (format == ExpositionFormat::kOpenMetrics) {
        // OpenMetrics timestamps are seconds.
        p += FormatDoubleTo(static_cast<double>(timestamp_ms) / 1000.0, p);
      } else {
        p = std::to_chars(p, p + kMaxDoubleChars, timestamp_ms).ptr;
      }
    }
    *p++ = '\n';
    used += static_cast<size_t>(p - begin);
    if (sink != nullptr && used >= kChunkBytes) {
      (*sink)(std::string_view(out->data(), used));
      used = 0;
    }
  };
  for (const Family& f : families_) {
    if (f.entries.empty()) continue;
    const MetricDef* def = catalog.Find(f.name);
    GPUFLEET_CHECK(def != nullptr);
    writer.BeginFamily(FamilyMeta{def->name, MetricTypeName(def->type), def->unit, def->help});
    append_meta();
    name = f.name;
    ForEachSample(f, write_line);
  }
  writer.Finish();
  append_meta();
  out->resize(used);
  if (sink != nullptr) {
    (*sink)(*out);
    out->clear();
  }
}

Labels CanonicalOutput::EntryLabels(const Entry& e) const {
  Labels labels;
  if (e.base != kNoLabels) labels = list_labels_[e.base];
  if (e.extra != kNoLabels) labels.Merge(list_labels_[e.extra]);
  return labels;
}

void CanonicalOutput::AppendSamples(int64_t default_timestamp_ns, std::vector<Sample>* out) const {
  GPUFLEET_CHECK(keep_labels_);
  out->reserve(out->size() + output_samples_);
  for (const Family& f : families_) {
    ForEachSample(f, [&](const Entry& e, double value, int64_t timestamp_ms) {
      int64_t ts = timestamp_ms == kNoTimestamp ? default_timestamp_ns : timestamp_ms * 1000000;
      out->push_back(Sample{std::string(f.name), EntryLabels(e), value, ts});
    });
  }
}

}  // namespace gpufleet
