// GET /api/v1/series: a canonical metric's series over a time range, from the
// window store or, for ranges that start before the window, from the
// long-term store (server/longterm_reader.h). Query semantics and limits:
// server/series_query.h. Answer (unix seconds; null where a grid point has
// no value):
//   {"metric", "unit", "source": "window|longterm", "partial": bool,
//    "from", "to", "step", "truncated": n, ["warning": "..."],
//    "series": [{"labels": {...}, "t": [...], "v": [...]}]}
// "partial" is true when the range starts before the window and no
// long-term store answered (then "warning" says why); "truncated" counts
// series left out by `limit` (sorted by labels, the first `limit` kept).
//
// Thread safety: reads thread-safe stores; otherwise pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "server/longterm_reader.h"
#include "server/series_query.h"
#include "store/window_store.h"

namespace gpufleet {

struct SeriesAnswer {
  std::string source = "window";
  bool partial = false;
  std::string warning;
  size_t truncated = 0;
  std::vector<SeriesData> series;
};

// The window's series of `q` on q's grid (aggregated when q.aggregate is
// set), sorted by labels, at most q.limit (the rest counted in truncated).
SeriesAnswer EvaluateWindow(const WindowStore& window, const SeriesQuery& q);

// Picks the source as described above. `longterm` may be null (not configured).
StatusOr<SeriesAnswer> AnswerSeries(const WindowStore& window, LongtermReader* longterm,
                                    const SeriesQuery& q, int64_t now_ns);

std::string SeriesAnswerJson(const SeriesQuery& q, const SeriesAnswer& a);

}  // namespace gpufleet
