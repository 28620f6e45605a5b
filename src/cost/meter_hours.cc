// The meter's rollup (see meter.h): building the rows of closed hours from
// the minutes and of closed days from the hours, dropping them when a write
// touches their span, and scanning a period from whole days, whole hours at
// their edges and minutes at the ragged ends.
#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>
#include <unordered_set>

#include "cost/meter.h"

namespace gpufleet::cost {
namespace {

constexpr int64_t kHourS = 3600;
constexpr int64_t kDayS = 86400;

int64_t FloorTo(int64_t s, int64_t span) {
  return (s >= 0 ? s / span : (s - span + 1) / span) * span;
}
int64_t CeilTo(int64_t s, int64_t span) {
  return FloorTo(s, span) == s ? s : FloorTo(s, span) + span;
}
int64_t FloorHour(int64_t s) { return FloorTo(s, kHourS); }

uint64_t SpanKey(int64_t device, int64_t start_s, int64_t span_s) {
  return (static_cast<uint64_t>(device) << 32) ^ static_cast<uint32_t>(start_s / span_s);
}

// Minutes of one span with the same holders.
struct Group {
  int64_t count = 0;
  int64_t first_minute_s = 0;
  std::vector<int64_t> holders;
};

// One device-span (hour or day) as it is being built.
struct SpanAgg {
  int64_t start_s = 0;
  int64_t minutes = 0;
  int64_t first_minute_s = 0;
  bool blocks = true;  // no minute splits by per-holder utilization
  std::vector<Group> groups;
  double energy_pos_j = 0;
};

// The rollup's levels, finest first, with their statements and the
// statement cache slots they use (Meter::Cached).
struct RollupLevel {
  int index;
  int64_t span_s;
  const char* table;
  int slot_select;
  const char* sql_select;
  int slot_delete;
  const char* sql_delete;
  int slot_undone;
  const char* sql_undone;
  int slot_done;
  const char* sql_done;
  int slot_mark;
  const char* sql_mark;
};

constexpr RollupLevel kLevels[] = {
    {0, kHourS, "cost_hours", 19,
     "SELECT hour, minutes, first_minute, blocks, groups, energy_pos_j FROM cost_hours "
     "WHERE device = ? AND hour >= ? AND hour < ? ORDER BY hour",
     17, "DELETE FROM cost_hours WHERE device = ? AND hour = ?", 18,
     "DELETE FROM cost_hours_done WHERE hour = ?", 14,
     "SELECT hour FROM cost_hours_done WHERE hour >= ? AND hour < ?", 16,
     "INSERT OR IGNORE INTO cost_hours_done (hour) VALUES (?)"},
    {1, kDayS, "cost_days", 25,
     "SELECT day, minutes, first_minute, blocks, groups, energy_pos_j FROM cost_days "
     "WHERE device = ? AND day >= ? AND day < ? ORDER BY day",
     22, "DELETE FROM cost_days WHERE device = ? AND day = ?", 23,
     "DELETE FROM cost_days_done WHERE day = ?", 26,
     "SELECT day FROM cost_days_done WHERE day >= ? AND day < ?", 27,
     "INSERT OR IGNORE INTO cost_days_done (day) VALUES (?)"},
};
static_assert(std::size(kLevels) == kRollupLevels);

// Counts `g` into the group with its holders, or appends it (groups stay in
// order of first minute when spans are added in time order).
void AddGroup(Group g, std::vector<Group>& into) {
  auto it = std::find_if(into.begin(), into.end(),
                         [&](const Group& x) { return x.holders == g.holders; });
  if (it == into.end()) {
    into.push_back(std::move(g));
  } else {
    it->count += g.count;
  }
}

std::string EncodeGroups(const std::vector<Group>& groups) {
  std::string out;
  for (const Group& g : groups) {
    if (!out.empty()) out += ';';
    out += std::to_string(g.count) + '@' + std::to_string(g.first_minute_s) + ':';
    for (size_t i = 0; i < g.holders.size(); ++i) {
      if (i > 0) out += ',';
      out += std::to_string(g.holders[i]);
    }
  }
  return out;
}

// Reads "count@first:id,id;..." into `out` (cleared first); false when the
// text is not what EncodeGroups writes.
bool ParseGroups(std::string_view text, std::vector<Group>& out) {
  out.clear();
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    Group& g = out.emplace_back();
    auto r = std::from_chars(p, end, g.count);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != '@') return false;
    r = std::from_chars(r.ptr + 1, end, g.first_minute_s);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != ':') return false;
    p = r.ptr + 1;
    while (p < end && *p != ';') {
      int64_t v = 0;
      r = std::from_chars(p, end, v);
      if (r.ec != std::errc()) return false;
      g.holders.push_back(v);
      p = r.ptr;
      if (p < end && *p == ',') ++p;
    }
    if (p < end) ++p;  // ';'
  }
  return true;
}

// Writes the built rows of one device.
Status InsertSpans(Statement* ins, int64_t device, const std::vector<SpanAgg>& spans) {
  for (const SpanAgg& g : spans) {
    RETURN_IF_ERROR(ins->Reset());
    RETURN_IF_ERROR(ins->Bind(1, device)
                        .Bind(2, g.start_s)
                        .Bind(3, g.minutes)
                        .Bind(4, g.first_minute_s)
                        .Bind(5, static_cast<int64_t>(g.blocks ? 1 : 0))
                        .Bind(6, g.blocks ? EncodeGroups(g.groups) : std::string())
                        .Bind(7, g.energy_pos_j)
                        .Run());
  }
  return ins->Reset();
}

}  // namespace

struct Meter::ScanState {
  BlockOk block_ok;
  int64_t from_s[kRollupLevels] = {};  // the level's whole closed spans: [from_s, to_s)
  int64_t to_s[kRollupLevels] = {};
  std::unordered_set<int64_t> done[kRollupLevels];  // spans with rows built, in that range
};

Status Meter::InvalidateRollupLocked(const std::vector<std::pair<int64_t, int64_t>>& touched) {
  if (touched.empty()) return OkStatus();
  // Inside the write's transaction (BEGIN IMMEDIATE): no build can commit
  // between this read and the write's commit.
  ASSIGN_OR_RETURN(Statement * ep, Cached(20, "SELECT epoch FROM cost_hours_epoch WHERE id = 1"));
  RETURN_IF_ERROR(ep->Reset());
  ASSIGN_OR_RETURN(bool row, ep->Step());
  const int64_t epoch = row ? ep->ColumnInt64(0) : 0;
  RETURN_IF_ERROR(ep->Reset());
  if (epoch != rollup_epoch_) {
    // Rows were built since (here or by another process): delete again.
    ForgetAbsentRows();
    rollup_epoch_ = epoch;
  }
  for (const auto& [device, minute_s] : touched) {
    for (const RollupLevel& level : kLevels) {
      const int64_t start = FloorTo(minute_s, level.span_s);
      if (absent_[level.index].insert(SpanKey(device, start, level.span_s)).second) {
        ASSIGN_OR_RETURN(Statement * del, Cached(level.slot_delete, level.sql_delete));
        RETURN_IF_ERROR(del->Reset());
        RETURN_IF_ERROR(del->Bind(1, device).Bind(2, start).Run());
        RETURN_IF_ERROR(del->Reset());
      }
      if (done_absent_[level.index].insert(start).second) {
        ASSIGN_OR_RETURN(Statement * del, Cached(level.slot_undone, level.sql_undone));
        RETURN_IF_ERROR(del->Reset());
        RETURN_IF_ERROR(del->Bind(1, start).Run());
        RETURN_IF_ERROR(del->Reset());
      }
    }
  }
  return OkStatus();
}

void Meter::ForgetAbsentRows() {
  for (auto& s : absent_) s.clear();
  for (auto& s : done_absent_) s.clear();
}

Status Meter::DeviceMinutesLocked(int64_t device, int64_t from_s, int64_t to_s,
                                  const std::function<void(const DeviceMinute&)>& fn) {
  if (from_s >= to_s) return OkStatus();
  ASSIGN_OR_RETURN(Statement * q,
                   Cached(10,
                          "SELECT minute, present, util_sum, util_n, bw_sum, bw_n, energy_j "
                          "FROM cost_minutes WHERE device = ? AND minute >= ? AND minute < ? "
                          "ORDER BY minute"));
  ASSIGN_OR_RETURN(Statement * h,
                   Cached(11,
                          "SELECT minute, holder, present, util_sum, util_n FROM "
                          "cost_holder_minutes WHERE device = ? AND minute >= ? AND minute < ? "
                          "ORDER BY minute, holder"));
  RETURN_IF_ERROR(q->Reset());
  RETURN_IF_ERROR(h->Reset());
  q->Bind(1, device).Bind(2, from_s).Bind(3, to_s);
  h->Bind(1, device).Bind(2, from_s).Bind(3, to_s);
  ASSIGN_OR_RETURN(bool hrow, h->Step());
  DeviceMinute m;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    // The same values Scan hands over, computed the same way.
    m.device = device;
    m.minute_s = q->ColumnInt64(0);
    int64_t present = q->ColumnInt64(1);
    m.util_mean = q->ColumnInt64(3) > 0 ? q->ColumnDouble(2) / q->ColumnInt64(3) : -1;
    m.bw_mean = q->ColumnInt64(5) > 0 ? q->ColumnDouble(4) / q->ColumnInt64(5) : -1;
    m.energy_j = q->ColumnDouble(6);
    m.holders.clear();
    while (hrow && h->ColumnInt64(0) < m.minute_s) {
      ASSIGN_OR_RETURN(hrow, h->Step());
    }
    while (hrow && h->ColumnInt64(0) == m.minute_s) {
      if (h->ColumnInt64(2) > 0) {
        HolderMinute hm;
        hm.holder = h->ColumnInt64(1);
        if (h->ColumnInt64(4) > 0) hm.util_mean = h->ColumnDouble(3) / h->ColumnInt64(4);
        m.holders.push_back(hm);
      }
      ASSIGN_OR_RETURN(hrow, h->Step());
    }
    if (present > 0) fn(m);
  }
  RETURN_IF_ERROR(q->Reset());
  return h->Reset();
}

// The ids of the metered devices, ascending (not LoadLocked: its cursor
// queries scan the whole minute tables, which a reader does not need).
static StatusOr<std::vector<int64_t>> DeviceIds(StateDb* db) {
  ASSIGN_OR_RETURN(Statement q, db->Prepare("SELECT id FROM cost_devices ORDER BY id"));
  std::vector<int64_t> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.push_back(q.ColumnInt64(0));
  }
  return out;
}

StatusOr<std::pair<int64_t, int64_t>> Meter::MinuteRangeLocked(const std::vector<int64_t>& devices) {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (int64_t dev : devices) {
    for (int slot : {12, 13}) {
      ASSIGN_OR_RETURN(Statement * b,
                       Cached(slot, slot == 12 ? "SELECT MIN(minute) FROM cost_minutes WHERE "
                                                 "device = ?"
                                               : "SELECT MAX(minute) FROM cost_minutes WHERE "
                                                 "device = ?"));
      RETURN_IF_ERROR(b->Reset());
      b->Bind(1, dev);
      ASSIGN_OR_RETURN(bool row, b->Step());
      if (row && b->ColumnText(0) != "") {
        int64_t v = b->ColumnInt64(0);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      RETURN_IF_ERROR(b->Reset());
    }
  }
  return std::pair<int64_t, int64_t>{lo, hi};
}

StatusOr<std::unordered_set<int64_t>> Meter::DoneLocked(int level, int64_t a_s, int64_t b_s) {
  const RollupLevel& L = kLevels[level];
  ASSIGN_OR_RETURN(Statement * done, Cached(L.slot_done, L.sql_done));
  RETURN_IF_ERROR(done->Reset());
  done->Bind(1, a_s).Bind(2, b_s);
  std::unordered_set<int64_t> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, done->Step());
    if (!row) break;
    out.insert(done->ColumnInt64(0));
  }
  RETURN_IF_ERROR(done->Reset());
  return out;
}

// [start, end) of the spans of `span_s` in [a_s, b_s) missing from `built`.
static std::vector<std::pair<int64_t, int64_t>> MissingRuns(
    int64_t a_s, int64_t b_s, int64_t span_s, const std::unordered_set<int64_t>& built) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t t = a_s; t < b_s; t += span_s) {
    if (built.count(t) != 0) continue;
    if (!runs.empty() && runs.back().second == t) {
      runs.back().second = t + span_s;
    } else {
      runs.push_back({t, t + span_s});
    }
  }
  return runs;
}

Status Meter::MarkBuiltLocked(int level, const std::vector<std::pair<int64_t, int64_t>>& runs) {
  const RollupLevel& L = kLevels[level];
  ASSIGN_OR_RETURN(Statement * mark, Cached(L.slot_mark, L.sql_mark));
  for (const auto& [a, b] : runs) {
    for (int64_t t = a; t < b; t += L.span_s) {
      RETURN_IF_ERROR(mark->Reset());
      RETURN_IF_ERROR(mark->Bind(1, t).Run());
    }
  }
  RETURN_IF_ERROR(mark->Reset());
  ASSIGN_OR_RETURN(Statement * bump,
                   Cached(21, "UPDATE cost_hours_epoch SET epoch = epoch + 1 WHERE id = 1"));
  RETURN_IF_ERROR(bump->Reset());
  RETURN_IF_ERROR(bump->Run());
  return bump->Reset();
}

Status Meter::BuildHoursLocked(int64_t h0_s, int64_t h1_s) {
  ASSIGN_OR_RETURN(std::unordered_set<int64_t> built, DoneLocked(0, h0_s, h1_s));
  if (MissingRuns(h0_s, h1_s, kHourS, built).empty()) return OkStatus();
  ASSIGN_OR_RETURN(std::vector<int64_t> devices, DeviceIds(db_));
  // Where any minute lies, so that a period far wider than the data does not
  // mark (or rebuild) empty hours.
  ASSIGN_OR_RETURN(auto range, MinuteRangeLocked(devices));
  if (range.first > range.second) return OkStatus();
  h0_s = std::max(h0_s, FloorHour(range.first));
  h1_s = std::min(h1_s, FloorHour(range.second) + kHourS);
  const std::vector<std::pair<int64_t, int64_t>> runs = MissingRuns(h0_s, h1_s, kHourS, built);
  if (runs.empty()) return OkStatus();

  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(Statement * ins,
                   Cached(15,
                          "INSERT OR REPLACE INTO cost_hours (device, hour, minutes, "
                          "first_minute, blocks, groups, energy_pos_j) VALUES (?, ?, ?, ?, ?, "
                          "?, ?)"));
  std::vector<SpanAgg> hours;
  for (int64_t dev : devices) {
    for (const auto& [a, b] : runs) {
      hours.clear();
      RETURN_IF_ERROR(DeviceMinutesLocked(dev, a, b, [&](const DeviceMinute& m) {
        const int64_t hour = FloorHour(m.minute_s);
        std::vector<int64_t> ids;
        // Per-holder weights (every holder reports its utilization) make
        // minutes differ: such an hour is read minute by minute.
        bool weighted = m.holders.size() > 1;
        for (const HolderMinute& hm : m.holders) {
          ids.push_back(hm.holder);
          weighted = weighted && hm.util_mean >= 0;
        }
        if (hours.empty() || hours.back().start_s != hour) {
          SpanAgg& g = hours.emplace_back();
          g.start_s = hour;
          g.first_minute_s = m.minute_s;
        }
        SpanAgg& g = hours.back();
        g.minutes++;
        if (weighted) g.blocks = false;
        g.energy_pos_j += std::max(0.0, m.energy_j);
        AddGroup(Group{1, m.minute_s, std::move(ids)}, g.groups);
      }));
      RETURN_IF_ERROR(InsertSpans(ins, dev, hours));
    }
  }
  RETURN_IF_ERROR(MarkBuiltLocked(0, runs));
  RETURN_IF_ERROR(tx.Commit());
  // Rows now exist again: the next write into any span must delete its rows.
  ForgetAbsentRows();
  return OkStatus();
}

Status Meter::BuildDaysLocked(int64_t d0_s, int64_t d1_s) {
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  // Everything below is read inside the transaction: a write that lands
  // between BuildHoursLocked and here has deleted the rows (and the done
  // marks) of its hour, and such a day is not built.
  ASSIGN_OR_RETURN(std::unordered_set<int64_t> built, DoneLocked(1, d0_s, d1_s));
  if (MissingRuns(d0_s, d1_s, kDayS, built).empty()) return OkStatus();
  ASSIGN_OR_RETURN(std::vector<int64_t> devices, DeviceIds(db_));
  ASSIGN_OR_RETURN(auto range, MinuteRangeLocked(devices));
  {
    // Hours with rows count as data too (a database written by
    // bench/cost_ledger_gen --hours-only has rows without minutes).
    ASSIGN_OR_RETURN(Statement q, db_->Prepare("SELECT MIN(hour), MAX(hour) FROM cost_hours_done"));
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (row && q.ColumnText(0) != "") {
      range.first = std::min(range.first, q.ColumnInt64(0));
      range.second = std::max(range.second, q.ColumnInt64(1) + kHourS - 60);
    }
  }
  if (range.first > range.second) return OkStatus();
  const int64_t first_hour = FloorHour(range.first), end_hour = FloorHour(range.second) + kHourS;
  d0_s = std::max(d0_s, FloorTo(range.first, kDayS));
  d1_s = std::min(d1_s, FloorTo(range.second, kDayS) + kDayS);
  ASSIGN_OR_RETURN(std::unordered_set<int64_t> hours_built, DoneLocked(0, d0_s, d1_s));
  std::unordered_set<int64_t> ready = built;  // days built, or not to build now
  for (int64_t d = d0_s; d < d1_s; d += kDayS) {
    for (int64_t h = std::max(d, first_hour); h < std::min(d + kDayS, end_hour); h += kHourS) {
      if (hours_built.count(h) == 0) {
        ready.insert(d);  // an hour of it has no rows: leave the day to its hours
        break;
      }
    }
  }
  const std::vector<std::pair<int64_t, int64_t>> runs = MissingRuns(d0_s, d1_s, kDayS, ready);
  if (runs.empty()) return OkStatus();
  ASSIGN_OR_RETURN(Statement * q, Cached(kLevels[0].slot_select, kLevels[0].sql_select));
  ASSIGN_OR_RETURN(Statement * ins,
                   Cached(24,
                          "INSERT OR REPLACE INTO cost_days (device, day, minutes, "
                          "first_minute, blocks, groups, energy_pos_j) VALUES (?, ?, ?, ?, ?, "
                          "?, ?)"));
  std::vector<SpanAgg> days;
  std::vector<Group> groups;
  for (int64_t dev : devices) {
    for (const auto& [a, b] : runs) {
      days.clear();
      RETURN_IF_ERROR(q->Reset());
      q->Bind(1, dev).Bind(2, a).Bind(3, b);
      while (true) {
        ASSIGN_OR_RETURN(bool row, q->Step());
        if (!row) break;
        const int64_t day = FloorTo(q->ColumnInt64(0), kDayS);
        if (days.empty() || days.back().start_s != day) {
          SpanAgg& g = days.emplace_back();
          g.start_s = day;
          g.first_minute_s = q->ColumnInt64(2);
        }
        SpanAgg& g = days.back();
        g.minutes += q->ColumnInt64(1);
        g.energy_pos_j += q->ColumnDouble(5);
        if (q->ColumnInt64(3) == 0) g.blocks = false;
        if (!g.blocks) continue;
        if (!ParseGroups(q->ColumnText(4), groups)) {
          return InternalError(db_->path() + ": cost_hours row of device " + std::to_string(dev) +
                               " at " + std::to_string(q->ColumnInt64(0)) +
                               " has unreadable groups");
        }
        for (Group& x : groups) AddGroup(std::move(x), g.groups);
      }
      RETURN_IF_ERROR(q->Reset());
      RETURN_IF_ERROR(InsertSpans(ins, dev, days));
    }
  }
  RETURN_IF_ERROR(MarkBuiltLocked(1, runs));
  RETURN_IF_ERROR(tx.Commit());
  ForgetAbsentRows();
  return OkStatus();
}

Status Meter::ScanLevelLocked(int level, int64_t dev, int64_t a_s, int64_t b_s,
                              const ScanState& st,
                              const std::function<void(const DeviceMinute&)>& fn) {
  if (a_s >= b_s) return OkStatus();
  if (level < 0) return DeviceMinutesLocked(dev, a_s, b_s, fn);
  const RollupLevel& L = kLevels[level];
  const int64_t lo = std::max(CeilTo(a_s, L.span_s), st.from_s[level]);
  const int64_t hi = std::min(FloorTo(b_s, L.span_s), st.to_s[level]);
  if (lo >= hi) return ScanLevelLocked(level - 1, dev, a_s, b_s, st, fn);
  RETURN_IF_ERROR(ScanLevelLocked(level - 1, dev, a_s, lo, st, fn));
  const std::unordered_set<int64_t>& done = st.done[level];
  // Spans without a row hold no minutes when built; the others go down a level.
  auto unbuilt = [&](int64_t x0, int64_t x1) -> Status {
    for (int64_t x = x0; x < x1; x += L.span_s) {
      if (done.count(x) == 0) RETURN_IF_ERROR(ScanLevelLocked(level - 1, dev, x, x + L.span_s, st, fn));
    }
    return OkStatus();
  };
  ASSIGN_OR_RETURN(Statement * q, Cached(L.slot_select, L.sql_select));
  RETURN_IF_ERROR(q->Reset());
  q->Bind(1, dev).Bind(2, lo).Bind(3, hi);
  DeviceMinute block;
  block.device = dev;
  std::vector<Group> groups;
  int64_t t = lo;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    const int64_t start = q->ColumnInt64(0);
    RETURN_IF_ERROR(unbuilt(t, start));
    t = start + L.span_s;
    if (q->ColumnInt64(3) == 0 || done.count(start) == 0 ||
        !st.block_ok(dev, start, L.span_s, q->ColumnDouble(5))) {
      RETURN_IF_ERROR(ScanLevelLocked(level - 1, dev, start, start + L.span_s, st, fn));
      continue;
    }
    if (!ParseGroups(q->ColumnText(4), groups)) {
      return InternalError(db_->path() + ": " + L.table + " row of device " + std::to_string(dev) +
                           " at " + std::to_string(start) + " has unreadable groups");
    }
    for (Group& g : groups) {
      block.repeat = g.count;
      block.minute_s = g.first_minute_s;
      block.holders.clear();
      for (int64_t h : g.holders) block.holders.push_back({h, -1});
      fn(block);
    }
  }
  RETURN_IF_ERROR(q->Reset());
  RETURN_IF_ERROR(unbuilt(t, hi));
  return ScanLevelLocked(level - 1, dev, hi, b_s, st, fn);
}

Status Meter::ScanHours(int64_t from_s, int64_t to_s, int64_t cache_before_s,
                        const BlockOk& block_ok,
                        const std::function<void(const DeviceMinute&)>& fn) {
  std::lock_guard<std::mutex> lock(mu_);
  Status st = [&]() -> Status {
    RETURN_IF_ERROR(FoldLocked());  // the journal's writes, into the minutes
    ScanState state;
    state.block_ok = block_ok;
    // Whole closed spans of each level in [from_s, to_s): hours, then days.
    const int64_t closed = std::min(to_s, cache_before_s);
    for (const RollupLevel& L : kLevels) {
      state.from_s[L.index] = CeilTo(from_s, L.span_s);
      state.to_s[L.index] = FloorTo(closed, L.span_s);
      if (state.from_s[L.index] >= state.to_s[L.index]) state.from_s[L.index] = state.to_s[L.index];
    }
    if (state.from_s[0] < state.to_s[0])
      RETURN_IF_ERROR(BuildHoursLocked(state.from_s[0], state.to_s[0]));
    if (state.from_s[1] < state.to_s[1])
      RETURN_IF_ERROR(BuildDaysLocked(state.from_s[1], state.to_s[1]));
    // One read snapshot: a write from another process between the builds and
    // here deletes rows and their done marks together, and the scan reads
    // such spans from the level below.
    Transaction snapshot(db_);
    RETURN_IF_ERROR(snapshot.BeginRead());
    for (const RollupLevel& L : kLevels) {
      ASSIGN_OR_RETURN(state.done[L.index], DoneLocked(L.index, state.from_s[L.index], state.to_s[L.index]));
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> devices, DeviceIds(db_));
    for (int64_t dev : devices) {
      RETURN_IF_ERROR(ScanLevelLocked(1, dev, from_s, to_s, state, fn));
    }
    return snapshot.Commit();
  }();
  if (!st.ok()) ForgetAbsentRows();  // a failed build rolled back
  return st;
}

}  // namespace gpufleet::cost
