// Templates of CanonicalOutput's implementation that more than one of its
// files use. Private to canonical_output*.cc.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "normalize/canonical_output.h"

namespace gpufleet {
namespace canonical_output_internal {

// WriteLabels copies label text in blocks of kCopyBlock bytes, which is much
// cheaper than a memcpy call per piece (pieces average ~60 bytes, and there
// are a few per line): it may read up to kCopyBlock - 1 bytes past a piece
// (the arena keeps that much room past its end) and write as far past the
// labels (callers leave that much room in the output).
constexpr size_t kCopyBlock = 32;

inline void CopyInBlocks(char* dst, const char* src, size_t n) {
  for (size_t i = 0; i < n; i += kCopyBlock) std::memcpy(dst + i, src + i, kCopyBlock);
}

}  // namespace canonical_output_internal

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

}  // namespace gpufleet
