#include "normalize/canonical_output.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "core/strings.h"
#include "normalize/canonical_output_inl.h"

// Rendering label strings from their fragments (to order what the ranks
// cannot, and to write), and writing the exposition and the samples.

namespace gpufleet {

namespace {

constexpr size_t kChunkBytes = 1 << 20;

}  // namespace

using canonical_output_internal::CopyInBlocks;
using canonical_output_internal::kCopyBlock;

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
        int c =
            FragmentName(fragments_[a.first + i]).compare(FragmentName(fragments_[b.first + j]));
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
