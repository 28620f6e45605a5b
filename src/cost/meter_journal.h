// The meter's journal (cost/meter.h): what one acknowledged write adds to
// the ledger, as one compact row of `cost_journal`, folded into the minute
// tables later (several writes of one device-minute become one row update).
//
// Body of a journal row, little-endian, fixed width:
//   u8 version (1)
//   u32 n, then n minute deltas:  i64 device, i64 minute, i64 present,
//       f64 util_sum, i64 util_n, f64 bw_sum, i64 bw_n, f64 energy_j,
//       i64 last_up_ms, i64 last_util_ms, i64 last_bw_ms
//   u32 n, then n holder deltas:  i64 device, i64 minute, i64 holder,
//       i64 present, f64 util_sum, i64 util_n, i64 last_info_ms, i64 last_util_ms
//   u32 n, then n counter cursors: i64 device, i64 series, i64 last_ms, f64 last_value
// Internal to the cost component.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/status.h"

namespace gpufleet::cost {

struct MinuteDelta {
  int64_t present = 0;
  double util_sum = 0;
  int64_t util_n = 0;
  double bw_sum = 0;
  int64_t bw_n = 0;
  double energy_j = 0;
  int64_t last_up_ms = -1, last_util_ms = -1, last_bw_ms = -1;
};

struct HolderDelta {
  int64_t present = 0;
  double util_sum = 0;
  int64_t util_n = 0;
  int64_t last_info_ms = -1, last_util_ms = -1;
};

struct CounterCursor {
  int64_t last_ms = -1;
  double last_value = 0;
};

// What one or more writes add, ordered by device for the minute tables'
// keys.
struct MeterDeltas {
  std::map<std::pair<int64_t, int64_t>, MinuteDelta> minutes;            // (device, minute)
  std::map<std::tuple<int64_t, int64_t, int64_t>, HolderDelta> holders;  // + holder
  std::map<std::pair<int64_t, int64_t>, CounterCursor> cursors;          // (device, series)

  bool empty() const { return minutes.empty() && holders.empty() && cursors.empty(); }
  // The first and last minute (unix seconds) any delta names; first > last
  // when none.
  std::pair<int64_t, int64_t> MinuteRange() const;
};

std::string EncodeDeltas(const MeterDeltas& d);
// Adds the body's deltas to `into` (sums add, last timestamps take the
// maximum, a cursor takes the later body's; a negative or overflowing count
// is an error). `where` names the row in errors;
// after an error `into` may hold part of the body and is to be dropped.
Status DecodeDeltasInto(std::string_view body, std::string_view where, MeterDeltas& into);

}  // namespace gpufleet::cost
