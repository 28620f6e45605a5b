// The meter's hourly rollup (see meter.h): building the rows of closed
// hours from the minutes, dropping them when a write touches their hour, and
// scanning a period from whole hours plus minutes at the ragged edges.
#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "cost/meter.h"

namespace gpufleet::cost {
namespace {

constexpr int64_t kHourS = 3600;

int64_t FloorHour(int64_t s) { return (s >= 0 ? s / kHourS : (s - kHourS + 1) / kHourS) * kHourS; }
int64_t CeilHour(int64_t s) { return FloorHour(s) == s ? s : FloorHour(s) + kHourS; }

uint64_t HourKey(int64_t device, int64_t hour_s) {
  return (static_cast<uint64_t>(device) << 32) ^ static_cast<uint32_t>(hour_s / kHourS);
}

// Minutes of one hour with the same holders.
struct Group {
  int64_t count = 0;
  int64_t first_minute_s = 0;
  std::vector<int64_t> holders;
};

// One device-hour as it is being built from its minutes.
struct HourAgg {
  int64_t hour_s = 0;
  int64_t minutes = 0;
  int64_t first_minute_s = 0;
  bool blocks = true;  // no minute splits by per-holder utilization
  std::vector<Group> groups;
  double energy_pos_j = 0;
};

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

// Calls fn with one block per group of "count@first:id,id;..."; false when
// the text is not what EncodeGroups writes.
bool DecodeGroups(std::string_view text, DeviceMinute& block,
                  const std::function<void(const DeviceMinute&)>& fn) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    int64_t v = 0;
    auto r = std::from_chars(p, end, v);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != '@') return false;
    block.repeat = v;
    r = std::from_chars(r.ptr + 1, end, v);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != ':') return false;
    block.minute_s = v;
    block.holders.clear();
    p = r.ptr + 1;
    while (p < end && *p != ';') {
      r = std::from_chars(p, end, v);
      if (r.ec != std::errc()) return false;
      block.holders.push_back({v, -1});
      p = r.ptr;
      if (p < end && *p == ',') ++p;
    }
    if (p < end) ++p;  // ';'
    fn(block);
  }
  return true;
}

}  // namespace

Status Meter::InvalidateHoursLocked(const std::vector<std::pair<int64_t, int64_t>>& touched) {
  if (touched.empty()) return OkStatus();
  // Inside the write's transaction (BEGIN IMMEDIATE): no build can commit
  // between this read and the write's commit.
  ASSIGN_OR_RETURN(Statement * ep, Cached(20, "SELECT epoch FROM cost_hours_epoch WHERE id = 1"));
  RETURN_IF_ERROR(ep->Reset());
  ASSIGN_OR_RETURN(bool row, ep->Step());
  const int64_t epoch = row ? ep->ColumnInt64(0) : 0;
  RETURN_IF_ERROR(ep->Reset());
  if (epoch != hours_epoch_) {
    // Rows were built since (here or by another process): delete again.
    hours_absent_.clear();
    hours_done_absent_.clear();
    hours_epoch_ = epoch;
  }
  for (const auto& [device, minute_s] : touched) {
    const int64_t hour = FloorHour(minute_s);
    if (hours_absent_.insert(HourKey(device, hour)).second) {
      ASSIGN_OR_RETURN(Statement * del,
                       Cached(17, "DELETE FROM cost_hours WHERE device = ? AND hour = ?"));
      RETURN_IF_ERROR(del->Reset());
      RETURN_IF_ERROR(del->Bind(1, device).Bind(2, hour).Run());
      RETURN_IF_ERROR(del->Reset());
    }
    if (hours_done_absent_.insert(hour).second) {
      ASSIGN_OR_RETURN(Statement * del, Cached(18, "DELETE FROM cost_hours_done WHERE hour = ?"));
      RETURN_IF_ERROR(del->Reset());
      RETURN_IF_ERROR(del->Bind(1, hour).Run());
      RETURN_IF_ERROR(del->Reset());
    }
  }
  return OkStatus();
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

Status Meter::BuildHoursLocked(int64_t h0_s, int64_t h1_s) {
  ASSIGN_OR_RETURN(std::vector<int64_t> devices, DeviceIds(db_));
  // Where any minute lies, so that a period far wider than the data does not
  // mark (or rebuild) empty hours.
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
  if (lo > hi) return OkStatus();
  h0_s = std::max(h0_s, FloorHour(lo));
  h1_s = std::min(h1_s, FloorHour(hi) + kHourS);
  if (h0_s >= h1_s) return OkStatus();

  ASSIGN_OR_RETURN(Statement * done,
                   Cached(14, "SELECT hour FROM cost_hours_done WHERE hour >= ? AND hour < ?"));
  RETURN_IF_ERROR(done->Reset());
  done->Bind(1, h0_s).Bind(2, h1_s);
  std::set<int64_t> built;
  while (true) {
    ASSIGN_OR_RETURN(bool row, done->Step());
    if (!row) break;
    built.insert(done->ColumnInt64(0));
  }
  RETURN_IF_ERROR(done->Reset());
  std::vector<std::pair<int64_t, int64_t>> runs;  // [start, end) of missing hours
  for (int64_t h = h0_s; h < h1_s; h += kHourS) {
    if (built.count(h) != 0) continue;
    if (!runs.empty() && runs.back().second == h) {
      runs.back().second = h + kHourS;
    } else {
      runs.push_back({h, h + kHourS});
    }
  }
  if (runs.empty()) return OkStatus();

  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(Statement * ins,
                   Cached(15,
                          "INSERT OR REPLACE INTO cost_hours (device, hour, minutes, "
                          "first_minute, blocks, groups, energy_pos_j) VALUES (?, ?, ?, ?, ?, "
                          "?, ?)"));
  std::vector<HourAgg> hours;
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
        if (hours.empty() || hours.back().hour_s != hour) {
          HourAgg& g = hours.emplace_back();
          g.hour_s = hour;
          g.first_minute_s = m.minute_s;
        }
        HourAgg& g = hours.back();
        g.minutes++;
        if (weighted) g.blocks = false;
        g.energy_pos_j += std::max(0.0, m.energy_j);
        auto it = std::find_if(g.groups.begin(), g.groups.end(),
                               [&](const Group& x) { return x.holders == ids; });
        if (it == g.groups.end()) {
          g.groups.push_back({1, m.minute_s, std::move(ids)});
        } else {
          it->count++;
        }
      }));
      for (const HourAgg& g : hours) {
        RETURN_IF_ERROR(ins->Reset());
        RETURN_IF_ERROR(ins->Bind(1, dev)
                            .Bind(2, g.hour_s)
                            .Bind(3, g.minutes)
                            .Bind(4, g.first_minute_s)
                            .Bind(5, static_cast<int64_t>(g.blocks ? 1 : 0))
                            .Bind(6, g.blocks ? EncodeGroups(g.groups) : std::string())
                            .Bind(7, g.energy_pos_j)
                            .Run());
      }
      RETURN_IF_ERROR(ins->Reset());
    }
  }
  ASSIGN_OR_RETURN(Statement * mark,
                   Cached(16, "INSERT OR IGNORE INTO cost_hours_done (hour) VALUES (?)"));
  for (const auto& [a, b] : runs) {
    for (int64_t h = a; h < b; h += kHourS) {
      RETURN_IF_ERROR(mark->Reset());
      RETURN_IF_ERROR(mark->Bind(1, h).Run());
    }
  }
  RETURN_IF_ERROR(mark->Reset());
  ASSIGN_OR_RETURN(Statement * bump,
                   Cached(21, "UPDATE cost_hours_epoch SET epoch = epoch + 1 WHERE id = 1"));
  RETURN_IF_ERROR(bump->Reset());
  RETURN_IF_ERROR(bump->Run());
  RETURN_IF_ERROR(bump->Reset());
  RETURN_IF_ERROR(tx.Commit());
  // Rows now exist again: the next write into any hour must delete its rows.
  hours_absent_.clear();
  hours_done_absent_.clear();
  return OkStatus();
}

Status Meter::ScanHours(int64_t from_s, int64_t to_s, int64_t cache_before_s,
                        const BlockOk& block_ok,
                        const std::function<void(const DeviceMinute&)>& fn) {
  std::lock_guard<std::mutex> lock(mu_);
  Status st = [&]() -> Status {
    int64_t h0 = CeilHour(from_s);
    int64_t h1 = FloorHour(std::min(to_s, cache_before_s));
    if (h0 >= h1) h0 = h1 = to_s;  // no whole closed hour: minutes only
    if (h0 < h1) RETURN_IF_ERROR(BuildHoursLocked(h0, h1));
    ASSIGN_OR_RETURN(std::vector<int64_t> devices, DeviceIds(db_));
    ASSIGN_OR_RETURN(Statement * q,
                     Cached(19,
                            "SELECT hour, minutes, first_minute, blocks, groups, energy_pos_j "
                            "FROM cost_hours WHERE device = ? AND hour >= ? AND hour < ? "
                            "ORDER BY hour"));
    DeviceMinute block;
    for (int64_t dev : devices) {
      RETURN_IF_ERROR(DeviceMinutesLocked(dev, from_s, h0, fn));
      if (h0 < h1) {
        RETURN_IF_ERROR(q->Reset());
        q->Bind(1, dev).Bind(2, h0).Bind(3, h1);
        while (true) {
          ASSIGN_OR_RETURN(bool row, q->Step());
          if (!row) break;
          const int64_t hour = q->ColumnInt64(0);
          if (q->ColumnInt64(3) == 0 || !block_ok(dev, hour, q->ColumnDouble(5))) {
            RETURN_IF_ERROR(DeviceMinutesLocked(dev, hour, hour + kHourS, fn));
            continue;
          }
          block.device = dev;
          if (!DecodeGroups(q->ColumnText(4), block, fn)) {
            return InternalError(db_->path() + ": cost_hours row of device " + std::to_string(dev) +
                                 " at " + std::to_string(hour) + " has unreadable groups");
          }
        }
        RETURN_IF_ERROR(q->Reset());
      }
      RETURN_IF_ERROR(DeviceMinutesLocked(dev, h1, to_s, fn));
    }
    return OkStatus();
  }();
  if (!st.ok()) {
    // A failed build rolled back: forget what was taken as deleted.
    hours_absent_.clear();
    hours_done_absent_.clear();
  }
  return st;
}

}  // namespace gpufleet::cost
