#include "normalize/canonical_output.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <numeric>

#include "core/strings.h"

namespace gpufleet {

namespace {

constexpr size_t kChunkBytes = 1 << 20;

}  // namespace

uint32_t CanonicalOutput::AddLabels(const Labels& labels) {
  std::vector<LabelView>& views = scratch_views_;
  views.clear();
  for (const auto& [name, value] : labels.pairs()) views.emplace_back(name, value);
  return AddLabels(views);
}

uint32_t CanonicalOutput::AddLabels(std::span<const LabelView> labels) {
  LabelList list{static_cast<uint32_t>(fragments_.size()), static_cast<uint32_t>(labels.size()),
                 0};
  names_key_.clear();
  for (const auto& [name, value] : labels) {
    names_key_.append(name);
    names_key_.push_back('\0');
  }
  if (names_key_ != last_names_key_) {
    auto [it, inserted] =
        names_index_.try_emplace(names_key_, static_cast<uint32_t>(names_index_.size()));
    last_names_key_ = names_key_;
    last_names_ = it->second;
  }
  list.names = last_names_;
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) arena_.push_back(',');
    first = false;
    Fragment f{arena_.size(), 0, static_cast<uint32_t>(name.size())};
    arena_.append(name);
    arena_.append("=\"");
    AppendEscapedLabelValue(value, arena_);
    arena_.push_back('"');
    f.size = static_cast<uint32_t>(arena_.size() - f.offset);
    fragments_.push_back(f);
  }
  lists_.push_back(list);
  if (keep_labels_) {
    Labels kept;
    for (const auto& [name, value] : labels) kept.Set(name, value);
    list_labels_.push_back(std::move(kept));
  }
  return static_cast<uint32_t>(lists_.size() - 1);
}

uint32_t CanonicalOutput::AddSeries(std::string_view name, uint32_t base, uint32_t extra) {
  series_.push_back(Series{name, base, extra});
  return static_cast<uint32_t>(series_.size() - 1);
}

std::string_view CanonicalOutput::Rendered(const LabelList& list) const {
  if (list.count == 0) return {};
  const Fragment& first = fragments_[list.first];
  const Fragment& last = fragments_[list.first + list.count - 1];
  return std::string_view(arena_).substr(first.offset, last.offset + last.size - first.offset);
}

template <typename F>
void CanonicalOutput::ForEachLabelPiece(const Series& s, F&& f) const {
  const LabelList* a = s.base == kNoLabels ? nullptr : &lists_[s.base];
  const LabelList* b = s.extra == kNoLabels ? nullptr : &lists_[s.extra];
  if (a != nullptr && a->count == 0) a = nullptr;
  if (b != nullptr && b->count == 0) b = nullptr;
  if (a == nullptr || b == nullptr) {
    if (a != nullptr || b != nullptr) f(Rendered(a != nullptr ? *a : *b));
    return;
  }
  for (const MergeRun& r : PlanFor(*a, s.extra, *b).runs) {
    const LabelList& list = r.from_extra ? *b : *a;
    const Fragment& f0 = fragments_[list.first + r.first];
    const Fragment& f1 = fragments_[list.first + r.first + r.count - 1];
    // Fragments of one list lie back to back with ',' between them.
    f(std::string_view(arena_).substr(f0.offset, f1.offset + f1.size - f0.offset));
  }
}

size_t CanonicalOutput::LabelsSize(const Series& s) const {
  size_t size = 0;
  size_t pieces = 0;
  ForEachLabelPiece(s, [&](std::string_view piece) {
    size += piece.size();
    ++pieces;
  });
  return pieces == 0 ? 0 : size + pieces + 1;  // braces and the commas between pieces
}

char* CanonicalOutput::WriteLabels(const Series& s, char* p) const {
  bool first = true;
  ForEachLabelPiece(s, [&](std::string_view piece) {
    *p++ = first ? '{' : ',';
    first = false;
    std::memcpy(p, piece.data(), piece.size());
    p += piece.size();
  });
  if (!first) *p++ = '}';
  return p;
}

void CanonicalOutput::RenderLabels(const Series& s, std::string& out) const {
  size_t old = out.size();
  out.resize(old + LabelsSize(s));
  WriteLabels(s, out.data() + old);
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
  std::sort(texts.begin(), texts.end());
  // Renumber the lists in rendered order and lay their fragments and text out
  // again in that order: ordering and writing then read lists, fragments and
  // arena front to back instead of jumping around them.
  std::vector<uint32_t> new_id(lists_.size());
  BigVector<LabelList> lists;
  BigVector<Fragment> fragments;
  std::vector<Labels> list_labels;
  std::string arena;
  lists.reserve(lists_.size());
  fragments.reserve(fragments_.size());
  arena.reserve(arena_.size());
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
  for (Series& s : series_) {
    if (s.base != kNoLabels) s.base = new_id[s.base];
    if (s.extra != kNoLabels) s.extra = new_id[s.extra];
  }
  // Memos keyed by list ids are stale.
  plans_.clear();
  plan_index_.clear();
  last_plan_key_ = UINT64_MAX;
  overlap_key_ = UINT64_MAX;
}

bool CanonicalOutput::NamesOverlap(uint32_t base, uint32_t extra) {
  uint64_t key = (static_cast<uint64_t>(lists_[base].names) << 32) | extra;
  if (key == overlap_key_) return overlap_;
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
  return overlap;
}

int CanonicalOutput::KnownOrder(const Series& x, const Series& y) {
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

void CanonicalOutput::OrderFamily(std::vector<uint32_t>& ids, std::string& scratch) {
  // The rank order is almost always the rendered order; verify it (rendering
  // only where the ranks cannot tell), forming groups of equal renderings.
  std::string prev, cur;
  size_t groups_before = groups_.size();
  size_t series_before = group_series_.size();
  bool sorted = true;
  for (size_t k = 0; k < ids.size(); ++k) {
    int c = 1;
    if (k > 0) {
      c = -KnownOrder(series_[ids[k - 1]], series_[ids[k]]);
      if (c == -kUnknownOrder) {
        prev.clear();
        cur.clear();
        RenderLabels(series_[ids[k - 1]], prev);
        RenderLabels(series_[ids[k]], cur);
        c = cur.compare(prev);
      }
    }
    if (c < 0) {
      sorted = false;
      break;
    }
    if (c > 0) groups_.push_back(Group{static_cast<uint32_t>(group_series_.size()), 0});
    group_series_.push_back(ids[k]);
    ++groups_.back().count;
  }
  if (sorted) return;

  // Repair: sort by the rendered strings themselves.
  groups_.resize(groups_before);
  group_series_.resize(series_before);
  scratch.clear();
  std::vector<size_t> offset(ids.size() + 1);
  for (size_t k = 0; k < ids.size(); ++k) {
    offset[k] = scratch.size();
    RenderLabels(series_[ids[k]], scratch);
  }
  offset[ids.size()] = scratch.size();
  auto text = [&](size_t k) {
    return std::string_view(scratch).substr(offset[k], offset[k + 1] - offset[k]);
  };
  std::vector<uint32_t> pos(ids.size());
  std::iota(pos.begin(), pos.end(), 0);
  std::sort(pos.begin(), pos.end(), [&](uint32_t x, uint32_t y) {
    int c = text(x).compare(text(y));
    return c != 0 ? c < 0 : ids[x] < ids[y];
  });
  for (size_t k = 0; k < pos.size(); ++k) {
    if (k == 0 || text(pos[k]) != text(pos[k - 1])) {
      groups_.push_back(Group{static_cast<uint32_t>(group_series_.size()), 0});
    }
    group_series_.push_back(ids[pos[k]]);
    ++groups_.back().count;
  }
}

void CanonicalOutput::Finalize(uint64_t* duplicates, uint64_t* output_samples) {
  RankLabelLists();

  // Families in name order; few distinct names, so rank them first.
  std::vector<std::string_view> names;
  for (const Series& s : series_) {
    if (names.empty() || names.back() != s.name) names.push_back(s.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  BigVector<uint32_t> family(series_.size());
  std::string_view last_name;
  uint32_t last_rank = 0;
  for (uint32_t id = 0; id < series_.size(); ++id) {
    std::string_view n = series_[id].name;
    if (id == 0 || n.data() != last_name.data() || n != last_name) {
      last_name = n;
      last_rank = static_cast<uint32_t>(std::lower_bound(names.begin(), names.end(), n) -
                                        names.begin());
    }
    family[id] = last_rank;
  }
  // Series by (family, major rank, minor rank, id): three stable counting
  // sorts, least significant key first (ranks are dense, so this is linear).
  // Major is the base list's rank, unless the family's extra labels sort
  // before its base labels (domain="sm" before gpu_uuid=...): then the extra
  // list's. Either way this only predicts the rendered order; OrderFamily
  // verifies it.
  auto rank = [this](uint32_t list) -> uint32_t {
    return list == kNoLabels ? 0u : lists_[list].rank;
  };
  std::vector<int8_t> extra_major(names.size(), -1);  // -1: not decided yet
  for (uint32_t id = 0; id < series_.size(); ++id) {
    const Series& s = series_[id];
    int8_t& mode = extra_major[family[id]];
    if (mode != -1 || s.base == kNoLabels || s.extra == kNoLabels) continue;
    const LabelList& a = lists_[s.base];
    const LabelList& b = lists_[s.extra];
    if (a.count == 0 || b.count == 0) continue;
    mode = FragmentName(fragments_[b.first]) < FragmentName(fragments_[a.first]) ? 1 : 0;
  }
  auto major = [&](uint32_t id) {
    const Series& s = series_[id];
    return rank(extra_major[family[id]] == 1 ? s.extra : s.base);
  };
  auto minor = [&](uint32_t id) {
    const Series& s = series_[id];
    return rank(extra_major[family[id]] == 1 ? s.base : s.extra);
  };
  BigVector<uint32_t> order(series_.size());
  std::iota(order.begin(), order.end(), 0);
  BigVector<uint32_t> tmp;
  size_t ranks = lists_.size() + 1;
  CountingSort(order, tmp, ranks, minor);
  CountingSort(order, tmp, ranks, major);
  CountingSort(order, tmp, names.size(), [&](uint32_t id) { return family[id]; });
  // Renumber the series in that order, so that verifying the order and
  // writing read series and records front to back (gathering them here
  // costs far less than chasing them line by line later).
  {
    BigVector<Series> series(series_.size());
    BigVector<uint32_t> sorted_family(series_.size());
    for (size_t k = 0; k < order.size(); ++k) {
      series[k] = series_[order[k]];
      sorted_family[k] = family[order[k]];
    }
    bool one_each = records_.size() == series_.size();
    for (size_t k = 0; k < records_.size() && one_each; ++k) one_each = records_[k].series == k;
    if (one_each) {
      BigVector<Record> records(records_.size());
      for (size_t k = 0; k < order.size(); ++k) {
        records[k] = records_[order[k]];
        records[k].series = static_cast<uint32_t>(k);
      }
      records_ = std::move(records);
    } else {
      BigVector<uint32_t> new_id(order.size());
      for (size_t k = 0; k < order.size(); ++k) new_id[order[k]] = static_cast<uint32_t>(k);
      for (Record& r : records_) r.series = new_id[r.series];
    }
    series_ = std::move(series);
    family = std::move(sorted_family);
  }
  groups_.clear();
  group_series_.clear();
  std::string scratch;
  std::vector<uint32_t> ids;
  for (size_t begin = 0; begin < series_.size();) {
    size_t end = begin;
    while (end < series_.size() && family[end] == family[begin]) ++end;
    ids.resize(end - begin);
    std::iota(ids.begin(), ids.end(), static_cast<uint32_t>(begin));
    OrderFamily(ids, scratch);
    begin = end;
  }

  // Records by series (a stable counting sort keeps input order per series).
  record_begin_.assign(series_.size() + 1, 0);
  for (const Record& r : records_) ++record_begin_[r.series + 1];
  std::partial_sum(record_begin_.begin(), record_begin_.end(), record_begin_.begin());
  bool in_order = true;  // the usual case: one record per series, in series order
  for (size_t k = 0; k < records_.size() && in_order; ++k) in_order = records_[k].series == k;
  if (in_order) {
    sorted_records_ = std::move(records_);
  } else {
    std::vector<uint32_t> next(record_begin_.begin(), record_begin_.end() - 1);
    sorted_records_.resize(records_.size());
    for (const Record& r : records_) sorted_records_[next[r.series]++] = r;
  }
  records_.clear();
  records_.shrink_to_fit();

  uint64_t kept = 0;
  std::vector<Record> scratch_records;
  for (const Group& g : groups_) {
    uint32_t s = group_series_[g.first];
    if (g.count == 1 && record_begin_[s + 1] - record_begin_[s] <= 1) {
      kept += record_begin_[s + 1] - record_begin_[s];
      continue;
    }
    GroupRecords(g, scratch_records, duplicates);
    kept += scratch_records.size();
  }
  output_samples_ = kept;
  *output_samples += kept;
}

void CanonicalOutput::GroupRecords(const Group& g, std::vector<Record>& out,
                                   uint64_t* dropped) const {
  out.clear();
  for (uint32_t k = g.first; k < g.first + g.count; ++k) {
    uint32_t s = group_series_[k];
    out.insert(out.end(), sorted_records_.begin() + record_begin_[s],
               sorted_records_.begin() + record_begin_[s + 1]);
  }
  std::sort(out.begin(), out.end(), [](const Record& x, const Record& y) {
    if (x.timestamp_ms != y.timestamp_ms) return x.timestamp_ms < y.timestamp_ms;
    return x.input_index < y.input_index;
  });
  size_t kept = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    if (kept > 0 && out[k].timestamp_ms == out[kept - 1].timestamp_ms) {
      ++*dropped;
      continue;
    }
    out[kept++] = out[k];
  }
  out.resize(kept);
}

void CanonicalOutput::Write(const MetricCatalog& catalog, ExpositionFormat format,
                            std::string* out, const ChunkSink* sink) const {
  ExpositionWriter writer(format, out);
  std::string_view family;
  std::vector<Record> recs;
  uint64_t ignored = 0;
  // One line: `<name><labels> <value>[ <timestamp>]\n`, written with one
  // size change (this loop runs once per output sample).
  auto write_line = [&](const Series& s, size_t labels_size, const Record& r) {
    char value[kMaxDoubleChars];
    size_t value_size = FormatDoubleTo(r.value, value);
    char ts[kMaxDoubleChars];
    size_t ts_size = 0;
    if (r.timestamp_ms != kNoTimestamp) {
      if (format == ExpositionFormat::kOpenMetrics) {
        // OpenMetrics timestamps are seconds.
        ts_size = FormatDoubleTo(static_cast<double>(r.timestamp_ms) / 1000.0, ts);
      } else {
        ts_size = static_cast<size_t>(std::to_chars(ts, ts + sizeof(ts), r.timestamp_ms).ptr - ts);
      }
    }
    size_t old = out->size();
    out->resize(old + s.name.size() + labels_size + 1 + value_size +
                (ts_size > 0 ? ts_size + 1 : 0) + 1);
    char* p = out->data() + old;
    std::memcpy(p, s.name.data(), s.name.size());
    p = WriteLabels(s, p + s.name.size());
    *p++ = ' ';
    std::memcpy(p, value, value_size);
    p += value_size;
    if (ts_size > 0) {
      *p++ = ' ';
      std::memcpy(p, ts, ts_size);
      p += ts_size;
    }
    *p = '\n';
  };
  for (const Group& g : groups_) {
    uint32_t first = group_series_[g.first];
    const Series& s = series_[first];
    uint32_t n = record_begin_[first + 1] - record_begin_[first];
    if (g.count == 1 && n == 0) continue;
    if (family.empty() || (s.name.data() != family.data() && s.name != family)) {
      family = s.name;
      const MetricDef* def = catalog.Find(family);
      GPUFLEET_CHECK(def != nullptr);
      writer.BeginFamily(FamilyMeta{def->name, MetricTypeName(def->type), def->unit, def->help});
    }
    // Sample lines are written directly: the label string comes from
    // fragments rendered once, so this loop allocates nothing per sample.
    size_t labels_size = LabelsSize(s);
    if (g.count == 1 && n == 1) {
      write_line(s, labels_size, sorted_records_[record_begin_[first]]);
    } else {
      GroupRecords(g, recs, &ignored);
      for (const Record& r : recs) write_line(s, labels_size, r);
    }
    if (sink != nullptr && out->size() >= kChunkBytes) {
      (*sink)(*out);
      out->clear();
    }
  }
  writer.Finish();
  if (sink != nullptr) {
    (*sink)(*out);
    out->clear();
  }
}

Labels CanonicalOutput::SeriesLabels(const Series& s) const {
  Labels labels;
  if (s.base != kNoLabels) labels = list_labels_[s.base];
  if (s.extra != kNoLabels) labels.Merge(list_labels_[s.extra]);
  return labels;
}

void CanonicalOutput::AppendSamples(int64_t default_timestamp_ns, std::vector<Sample>* out) const {
  GPUFLEET_CHECK(keep_labels_);
  out->reserve(out->size() + output_samples_);
  std::vector<Record> recs;
  uint64_t ignored = 0;
  for (const Group& g : groups_) {
    const Series& s = series_[group_series_[g.first]];
    GroupRecords(g, recs, &ignored);
    if (recs.empty()) continue;
    Labels labels = SeriesLabels(s);
    for (const Record& r : recs) {
      int64_t ts = r.timestamp_ms == kNoTimestamp ? default_timestamp_ns : r.timestamp_ms * 1000000;
      out->push_back(Sample{std::string(s.name), labels, r.value, ts});
    }
  }
}

}  // namespace gpufleet
