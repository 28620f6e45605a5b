#include "cost/meter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "cost/meter_journal.h"
#include "cost/work_meter.h"
#include "detect/device_series.h"

namespace gpufleet::cost {
namespace {

enum class Kind { kNone, kUp, kUtil, kBandwidth, kEnergy, kHolder, kHolderUtil };

constexpr std::pair<std::string_view, Kind> kMetered[] = {
    {"gpu_up", Kind::kUp},
    {"gpu_utilization_ratio", Kind::kUtil},
    {"gpu_memory_bandwidth_utilization_ratio", Kind::kBandwidth},
    {"gpu_energy_joules_total", Kind::kEnergy},
    {"gpu_workload_info", Kind::kHolder},
    {"gpu_process_utilization_ratio", Kind::kHolderUtil},
};

Kind KindOf(std::string_view name) {
  for (const auto& [n, kind] : kMetered) {
    if (n == name) return kind;
  }
  return Kind::kNone;
}

// The value of label `name` in any range of (name, value) pairs.
template <typename Pairs>
std::string_view LabelOf(const Pairs& pairs, std::string_view name) {
  for (const auto& [n, v] : pairs) {
    if (n == name) return v;
  }
  return {};
}

// FNV-1a over the series' label pairs: a stable id for its cursor row.
template <typename Pairs>
uint64_t SeriesId(const Pairs& pairs) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view s, unsigned char end) {
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
    h ^= end;
    h *= 1099511628211ull;
  };
  for (const auto& [name, value] : pairs) {
    mix(name, 0);
    mix(value, 1);
  }
  return h;
}

std::string HolderKey(const Labels& l) {
  std::string_view job = l.Get("workload_slurm_job");
  if (!job.empty()) return "slurm:" + std::string(job);
  return std::string(l.Get("workload_namespace")) + "/" + std::string(l.Get("workload_pod")) + "/" +
         std::string(l.Get("workload_container"));
}

template <typename Pairs>
MeterKey KeyOf(const Pairs& pairs) {
  const std::string_view name = LabelOf(pairs, "__name__");
  const Kind kind = KindOf(name);
  if (kind == Kind::kNone) return {.work = IsWorkSeries(name)};
  const bool has_holder =
      !LabelOf(pairs, "workload_pod").empty() || !LabelOf(pairs, "workload_slurm_job").empty();
  if ((kind == Kind::kHolder || kind == Kind::kHolderUtil) && !has_holder) return {};
  return {.kind = static_cast<uint8_t>(kind), .series = SeriesId(pairs)};
}

// The key of a gauge's cursor floor after a restart: (device, kind, holder).
uint64_t FloorKey(int64_t device, Kind kind, int64_t holder) {
  return (static_cast<uint64_t>(device) << 24) ^ (static_cast<uint64_t>(holder) << 4) ^
         static_cast<uint64_t>(kind);
}

}  // namespace

MeterKey MeterKeyOf(const Labels& labels) { return KeyOf(labels.pairs()); }

MeterKey MeterKeyOf(std::span<const LabelView> labels) { return KeyOf(labels); }

std::vector<std::string_view> MeteredMetricNames() {
  std::vector<std::string_view> out;
  for (const auto& m : kMetered) out.push_back(m.first);
  return out;
}

const std::vector<Migration>& CostMigrations() {
  static const std::vector<Migration> kMigrations = {
      {"cost", 1,
       "CREATE TABLE cost_devices (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, "
       "gpu_uuid TEXT, node TEXT, cloud TEXT, region TEXT, model TEXT, vendor TEXT, "
       "partition_kind TEXT, partition_id TEXT, partition_profile TEXT);"
       "CREATE TABLE cost_holders (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, "
       "namespace TEXT, pod TEXT, container TEXT, workload TEXT, team TEXT, slurm_job TEXT, "
       "slurm_user TEXT, slurm_account TEXT);"
       "CREATE TABLE cost_minutes (device INTEGER NOT NULL, minute INTEGER NOT NULL, "
       "present INTEGER NOT NULL DEFAULT 0, util_sum REAL NOT NULL DEFAULT 0, "
       "util_n INTEGER NOT NULL DEFAULT 0, bw_sum REAL NOT NULL DEFAULT 0, "
       "bw_n INTEGER NOT NULL DEFAULT 0, energy_j REAL NOT NULL DEFAULT 0, "
       "last_up_ms INTEGER NOT NULL DEFAULT -1, last_util_ms INTEGER NOT NULL DEFAULT -1, "
       "last_bw_ms INTEGER NOT NULL DEFAULT -1, "
       "PRIMARY KEY (device, minute)) WITHOUT ROWID;"
       "CREATE TABLE cost_holder_minutes (device INTEGER NOT NULL, minute INTEGER NOT NULL, "
       "holder INTEGER NOT NULL, present INTEGER NOT NULL DEFAULT 0, "
       "util_sum REAL NOT NULL DEFAULT 0, util_n INTEGER NOT NULL DEFAULT 0, "
       "last_info_ms INTEGER NOT NULL DEFAULT -1, last_util_ms INTEGER NOT NULL DEFAULT -1, "
       "PRIMARY KEY (device, minute, holder)) WITHOUT ROWID;"
       "CREATE TABLE cost_cursors (series INTEGER PRIMARY KEY, last_ms INTEGER NOT NULL, "
       "last_value REAL NOT NULL);"},
      // The hourly rollup (meter_hours.cc), a cache of cost_minutes.
      {"cost", 2,
       "CREATE TABLE cost_hours (device INTEGER NOT NULL, hour INTEGER NOT NULL, "
       "minutes INTEGER NOT NULL, first_minute INTEGER NOT NULL, blocks INTEGER NOT NULL, "
       "groups TEXT NOT NULL, energy_pos_j REAL NOT NULL, "
       "PRIMARY KEY (device, hour)) WITHOUT ROWID;"
       "CREATE TABLE cost_hours_done (hour INTEGER PRIMARY KEY);"
       "CREATE TABLE cost_hours_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), "
       "epoch INTEGER NOT NULL);"
       "INSERT INTO cost_hours_epoch (id, epoch) VALUES (1, 0);"},
      // The daily rollup (meter_hours.cc), a cache of cost_hours.
      {"cost", 3,
       "CREATE TABLE cost_days (device INTEGER NOT NULL, day INTEGER NOT NULL, "
       "minutes INTEGER NOT NULL, first_minute INTEGER NOT NULL, blocks INTEGER NOT NULL, "
       "groups TEXT NOT NULL, energy_pos_j REAL NOT NULL, "
       "PRIMARY KEY (device, day)) WITHOUT ROWID;"
       "CREATE TABLE cost_days_done (day INTEGER PRIMARY KEY);"},
      // Counter cursors keyed by device first: a write's devices are
      // neighbours in the table, so a commit rewrites a few pages instead of
      // one page per series hash (most of the table at fleet scale). Rows
      // carried over keep device 0; a series' newest row wins on load.
      {"cost", 4,
       "CREATE TABLE cost_counter_cursors (device INTEGER NOT NULL, series INTEGER NOT NULL, "
       "last_ms INTEGER NOT NULL, last_value REAL NOT NULL, "
       "PRIMARY KEY (device, series)) WITHOUT ROWID;"
       "INSERT INTO cost_counter_cursors (device, series, last_ms, last_value) "
       "SELECT 0, series, last_ms, last_value FROM cost_cursors;"
       "DROP TABLE cost_cursors;"},
      // The journal (cost/meter_journal.h): one row per metered write until
      // a fold adds it to the tables above.
      {"cost", 5, "CREATE TABLE cost_journal (id INTEGER PRIMARY KEY, body BLOB NOT NULL);"},
      // HAMi core / memory limits of a holder (cost/shares.h). Components of
      // their own, so they number apart from the rollup's "cost" versions.
      {"cost_hami", 1,
       "ALTER TABLE cost_holders ADD COLUMN hami_gpucores TEXT NOT NULL DEFAULT '';"
       "ALTER TABLE cost_holders ADD COLUMN hami_gpumem_percentage TEXT NOT NULL DEFAULT '';"},
      // Units of work per workload and minute (cost/work_meter.h).
      {"cost_work", 1,
       "CREATE TABLE cost_work_minutes (series TEXT NOT NULL, minute INTEGER NOT NULL, "
       "workload TEXT NOT NULL, team TEXT NOT NULL, steps INTEGER NOT NULL DEFAULT 0, "
       "step_seconds REAL NOT NULL DEFAULT 0, tokens REAL NOT NULL DEFAULT 0, "
       "last_ms INTEGER NOT NULL, last_value REAL NOT NULL, "
       "PRIMARY KEY (series, minute)) WITHOUT ROWID;"
       "CREATE INDEX cost_work_by_minute ON cost_work_minutes (minute);"},
  };
  return kMigrations;
}

Meter::Meter(StateDb* db) : db_(db) {
  // WAL + NORMAL: a commit survives the process dying (kill -9) without an
  // fsync per write; a power cut may lose the last writes, which the
  // senders then send again.
  db_->Exec("PRAGMA synchronous=NORMAL").IgnoreError();
}

StatusOr<Statement*> Meter::Cached(int slot, const char* sql) {
  auto it = statements_.find(slot);
  if (it == statements_.end()) {
    ASSIGN_OR_RETURN(Statement st, db_->Prepare(sql));
    it = statements_.emplace(slot, std::move(st)).first;
  }
  return &it->second;
}

Status Meter::LoadLocked() {
  if (loaded_) return OkStatus();
  // What the journal holds is part of the tables the cursors come from.
  RETURN_IF_ERROR(FoldLocked());
  // Everything a restarted meter needs in memory, in five queries: ids of
  // known devices and holders, counter cursors, and per (device, kind[,
  // holder]) the last metered timestamp, below which a resent gauge sample
  // is a duplicate.
  ASSIGN_OR_RETURN(Statement d, db_->Prepare("SELECT id, key FROM cost_devices"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, d.Step());
    if (!row) break;
    device_ids_[d.ColumnText(1)] = d.ColumnInt64(0);
  }
  ASSIGN_OR_RETURN(Statement h, db_->Prepare("SELECT id, key FROM cost_holders"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, h.Step());
    if (!row) break;
    holder_ids_[h.ColumnText(1)] = h.ColumnInt64(0);
  }
  // SQLite takes the bare columns of a MAX() aggregate from the row holding
  // the maximum: each series' newest cursor.
  ASSIGN_OR_RETURN(Statement c, db_->Prepare("SELECT series, MAX(last_ms), last_value FROM "
                                             "cost_counter_cursors GROUP BY series"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, c.Step());
    if (!row) break;
    bool fresh = false;
    Cursor& k = CursorOf(static_cast<uint64_t>(c.ColumnInt64(0)), fresh);
    k.last_ms = c.ColumnInt64(1);
    k.last_value = c.ColumnDouble(2);
  }
  ASSIGN_OR_RETURN(Statement m, db_->Prepare("SELECT device, MAX(last_up_ms), MAX(last_util_ms), "
                                             "MAX(last_bw_ms) FROM cost_minutes GROUP BY device"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, m.Step());
    if (!row) break;
    int64_t dev = m.ColumnInt64(0);
    floors_[FloorKey(dev, Kind::kUp, 0)] = m.ColumnInt64(1);
    floors_[FloorKey(dev, Kind::kUtil, 0)] = m.ColumnInt64(2);
    floors_[FloorKey(dev, Kind::kBandwidth, 0)] = m.ColumnInt64(3);
  }
  ASSIGN_OR_RETURN(Statement hm,
                   db_->Prepare("SELECT device, holder, MAX(last_info_ms), MAX(last_util_ms) "
                                "FROM cost_holder_minutes GROUP BY device, holder"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, hm.Step());
    if (!row) break;
    floors_[FloorKey(hm.ColumnInt64(0), Kind::kHolder, hm.ColumnInt64(1))] = hm.ColumnInt64(2);
    floors_[FloorKey(hm.ColumnInt64(0), Kind::kHolderUtil, hm.ColumnInt64(1))] = hm.ColumnInt64(3);
  }
  loaded_ = true;
  return OkStatus();
}

StatusOr<int64_t> Meter::IdOf(std::unordered_map<std::string, int64_t>& ids, std::string key,
                              int slot, const char* sql, const Labels& labels,
                              std::initializer_list<std::string_view> names) {
  auto it = ids.find(key);
  if (it != ids.end()) return it->second;
  ASSIGN_OR_RETURN(Statement * ins, Cached(slot, sql));
  RETURN_IF_ERROR(ins->Reset());
  int i = 1;
  ins->Bind(i++, key);
  for (std::string_view name : names) ins->Bind(i++, std::string(labels.Get(name)));
  ASSIGN_OR_RETURN(bool row, ins->Step());
  if (!row) return InternalError(db_->path() + ": no id for '" + key + "'");
  int64_t id = ins->ColumnInt64(0);
  RETURN_IF_ERROR(ins->Reset());  // an unfinished statement would block COMMIT
  ids.emplace(std::move(key), id);
  return id;
}

StatusOr<int64_t> Meter::DeviceId(const Labels& labels) {
  return IdOf(device_ids_, detect::DeviceKey(labels), 0,
              "INSERT INTO cost_devices (key, gpu_uuid, node, cloud, region, model, vendor, "
              "partition_kind, partition_id, partition_profile) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
              "?, ?) RETURNING id",
              labels,
              {"gpu_uuid", "node", "cloud", "region", "model", "vendor", "partition_kind",
               "partition_id", "partition_profile"});
}

StatusOr<int64_t> Meter::HolderId(const Labels& labels) {
  return IdOf(
      holder_ids_, HolderKey(labels), 1,
      "INSERT INTO cost_holders (key, namespace, pod, container, workload, team, "
      "slurm_job, slurm_user, slurm_account, hami_gpucores, hami_gpumem_percentage) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      labels,
      {"workload_namespace", "workload_pod", "workload_container", "workload_name", "workload_team",
       "workload_slurm_job", "workload_slurm_user", "workload_slurm_account",
       "workload_hami_gpucores", "workload_hami_gpumem_percentage"});
}

Status Meter::Record(const std::vector<RemoteWriteSeries>& series) {
  std::vector<MeterKey> keys;
  keys.reserve(series.size());
  for (const RemoteWriteSeries& s : series) keys.push_back(MeterKeyOf(s.labels));
  return Record(series, keys);
}

Status Meter::Record(const std::vector<RemoteWriteSeries>& series,
                     const std::vector<MeterKey>& keys) {
  return Record(series, keys, {});
}

bool Meter::Knows(uint64_t sid) const {
  std::shared_lock lock(known_mu_);
  return known_.contains(sid);
}

Status Meter::Record(const std::vector<RemoteWriteSeries>& series,
                     const std::vector<MeterKey>& keys, std::span<const KeyedSamples> keyed) {
  if (keys.size() != series.size()) {
    return InvalidArgumentError("cost meter: " + std::to_string(keys.size()) + " keys for " +
                                std::to_string(series.size()) + " series");
  }
  std::lock_guard<std::mutex> lock(mu_);
  MeterCounters delta;
  Status st = RecordLocked(series, keys, keyed, delta);
  if (!st.ok()) {
    counters_.write_errors++;
    // Ids and cursors of a rolled-back transaction are gone with it: start
    // again from what the database holds.
    device_ids_.clear();
    holder_ids_.clear();
    cursors_.clear();
    cursor_index_.Clear();
    {
      std::unique_lock known_lock(known_mu_);
      known_.clear();
    }
    floors_.clear();
    ForgetAbsentRows();  // the rolled-back deletes of rollup rows
    loaded_ = false;
    return st;
  }
  counters_.samples_metered += delta.samples_metered;
  counters_.samples_duplicate += delta.samples_duplicate;
  counters_.counter_resets += delta.counter_resets;
  if (FoldDueLocked()) {
    // The write is committed (in the journal) whatever the fold does; a
    // failed fold rolled back and the next one takes the same rows.
    if (!FoldLocked().ok()) {
      counters_.fold_errors++;
      ForgetAbsentRows();
    }
  }
  return OkStatus();
}

Meter::Cursor& Meter::CursorOf(uint64_t sid, bool& fresh) {
  uint32_t id = cursor_index_.Find(sid, [&](uint32_t i) { return cursors_[i].series == sid; });
  fresh = id == FlatIndex::kNotFound;
  if (fresh) {
    id = cursor_index_.Insert(sid);
    cursors_.push_back(Cursor{.series = sid});
  }
  return cursors_[id];
}

Status Meter::RecordLocked(const std::vector<RemoteWriteSeries>& series,
                           const std::vector<MeterKey>& keys, std::span<const KeyedSamples> keyed,
                           MeterCounters& delta) {
  RETURN_IF_ERROR(LoadLocked());
  // First the metered series, starting the loads of their cursors' index
  // slots, so the lookups below overlap their cache misses.
  struct Metered {
    const Labels* labels;  // null for keyed samples: their cursor names the device
    std::span<const RemoteWriteSample> samples;
    Kind kind;
    uint64_t sid;
  };
  std::vector<Metered> metered;
  auto add = [&](const Labels* labels, std::span<const RemoteWriteSample> samples, MeterKey key) {
    if (key.kind == 0 || samples.empty()) return;
    metered.push_back({labels, samples, static_cast<Kind>(key.kind), key.series});
    cursor_index_.Prefetch(key.series);
  };
  for (size_t i = 0; i < series.size(); ++i) add(&series[i].labels, series[i].samples, keys[i]);
  for (const KeyedSamples& k : keyed) add(nullptr, k.samples, k.key);
  if (metered.empty()) return OkStatus();
  MeterDeltas d;
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  for (const auto& [labels, samples, kind, sid] : metered) {
    const bool held = kind == Kind::kHolder || kind == Kind::kHolderUtil;
    bool fresh = false;
    Cursor& c = CursorOf(sid, fresh);
    if (c.device == 0) {
      if (labels == nullptr) {
        // Knows() said yes, then a failed write forgot the cursors.
        return UnavailableError("cost meter: a series' cursor is gone (send the write again)");
      }
      ASSIGN_OR_RETURN(c.device, DeviceId(*labels));
      if (held) {
        ASSIGN_OR_RETURN(c.holder, HolderId(*labels));
      }
      if (auto f = floors_.find(FloorKey(c.device, kind, c.holder)); fresh && f != floors_.end()) {
        c.last_ms = f->second;  // a gauge first seen since a restart
      }
      std::unique_lock known_lock(known_mu_);
      known_.insert(sid);
    }
    const int64_t dev = c.device, holder = c.holder;
    for (const RemoteWriteSample& p : samples) {
      if (p.timestamp_ms <= c.last_ms || !std::isfinite(p.value)) {
        delta.samples_duplicate++;
        continue;
      }
      int64_t minute =
          (p.timestamp_ms >= 0 ? p.timestamp_ms / 60000 : (p.timestamp_ms - 59999) / 60000) * 60;
      delta.samples_metered++;
      switch (kind) {
        case Kind::kUp: {
          MinuteDelta& m = d.minutes[{dev, minute}];
          m.present++;
          m.last_up_ms = std::max(m.last_up_ms, p.timestamp_ms);
          break;
        }
        case Kind::kUtil: {
          MinuteDelta& m = d.minutes[{dev, minute}];
          m.util_sum += p.value;
          m.util_n++;
          m.last_util_ms = std::max(m.last_util_ms, p.timestamp_ms);
          break;
        }
        case Kind::kBandwidth: {
          MinuteDelta& m = d.minutes[{dev, minute}];
          m.bw_sum += p.value;
          m.bw_n++;
          m.last_bw_ms = std::max(m.last_bw_ms, p.timestamp_ms);
          break;
        }
        case Kind::kEnergy:
          if (c.last_ms >= 0) {
            double e = p.value - c.last_value;
            if (e < 0) {
              e = p.value;
              delta.counter_resets++;
            }
            d.minutes[{dev, minute}].energy_j += e;
          }
          break;
        case Kind::kHolder: {
          HolderDelta& h = d.holders[{dev, minute, holder}];
          h.present++;
          h.last_info_ms = std::max(h.last_info_ms, p.timestamp_ms);
          break;
        }
        case Kind::kHolderUtil: {
          HolderDelta& h = d.holders[{dev, minute, holder}];
          h.util_sum += p.value;
          h.util_n++;
          h.last_util_ms = std::max(h.last_util_ms, p.timestamp_ms);
          break;
        }
        case Kind::kNone:
          break;
      }
      c.last_ms = p.timestamp_ms;
      c.last_value = p.value;
    }
    if (kind == Kind::kEnergy)
      d.cursors[{dev, static_cast<int64_t>(sid)}] = {c.last_ms, c.last_value};
  }
  if (!d.empty()) {
    ASSIGN_OR_RETURN(Statement * ins, Cached(5, "INSERT INTO cost_journal (body) VALUES (?)"));
    RETURN_IF_ERROR(ins->Reset());
    RETURN_IF_ERROR(ins->BindBlob(1, EncodeDeltas(d)).Run());
    RETURN_IF_ERROR(ins->Reset());
  }
  RETURN_IF_ERROR(tx.Commit());
  if (!d.empty()) {
    journal_rows_++;
    const auto [first, last] = d.MinuteRange();
    journal_first_minute_ = std::min(journal_first_minute_, first);
    journal_last_minute_ = std::max(journal_last_minute_, last);
  }
  return OkStatus();
}

bool Meter::FoldDueLocked() const {
  // Writes of one device-minute come every scrape interval until the minute
  // is over: fold once the journal's first minute is two minutes behind its
  // last (late samples become one more delta), or when it is long (a
  // backfill sending many minutes at once).
  // (A journal of counter cursors alone names no minute: first > last.)
  if (journal_rows_ == 0) return false;
  if (journal_rows_ >= kFoldRows) return true;
  return journal_first_minute_ <= journal_last_minute_ &&
         journal_last_minute_ - journal_first_minute_ >= 120;
}

Status Meter::FoldLocked() {
  // Reads fold first: an empty journal (the usual case for them) costs one
  // read, not a write lock.
  ASSIGN_OR_RETURN(Statement * any, Cached(8, "SELECT 1 FROM cost_journal LIMIT 1"));
  RETURN_IF_ERROR(any->Reset());
  ASSIGN_OR_RETURN(bool pending, any->Step());
  RETURN_IF_ERROR(any->Reset());
  if (pending) {
    Transaction tx(db_);
    RETURN_IF_ERROR(tx.Begin());
    ASSIGN_OR_RETURN(Statement * q, Cached(6, "SELECT id, body FROM cost_journal ORDER BY id"));
    RETURN_IF_ERROR(q->Reset());
    MeterDeltas all;
    int64_t last_id = -1;
    while (true) {
      ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      last_id = q->ColumnInt64(0);
      RETURN_IF_ERROR(DecodeDeltasInto(
          q->ColumnBlob(1), db_->path() + ": cost_journal row " + std::to_string(last_id), all));
    }
    RETURN_IF_ERROR(q->Reset());
    if (last_id >= 0) {  // another process may have folded since the check
      RETURN_IF_ERROR(WriteDeltasLocked(all));
      ASSIGN_OR_RETURN(Statement * del, Cached(7, "DELETE FROM cost_journal WHERE id <= ?"));
      RETURN_IF_ERROR(del->Reset());
      RETURN_IF_ERROR(del->Bind(1, last_id).Run());
      RETURN_IF_ERROR(del->Reset());
    }
    RETURN_IF_ERROR(tx.Commit());
  }
  journal_rows_ = 0;
  journal_first_minute_ = std::numeric_limits<int64_t>::max();
  journal_last_minute_ = std::numeric_limits<int64_t>::min();
  return OkStatus();
}

Status Meter::WriteDeltasLocked(const MeterDeltas& d) {
  std::vector<std::pair<int64_t, int64_t>> touched;
  touched.reserve(d.minutes.size() + d.holders.size());
  for (const auto& [k, m] : d.minutes) touched.push_back(k);
  for (const auto& [k, h] : d.holders) touched.push_back({std::get<0>(k), std::get<1>(k)});
  RETURN_IF_ERROR(InvalidateRollupLocked(touched));
  ASSIGN_OR_RETURN(Statement * up_minute_ptr,
                   Cached(2,
                          "INSERT INTO cost_minutes (device, minute, present, util_sum, "
                          "util_n, bw_sum, "
                          "bw_n, energy_j, last_up_ms, last_util_ms, last_bw_ms) VALUES (?, ?, "
                          "?, ?, ?, "
                          "?, ?, ?, ?, ?, ?) ON CONFLICT (device, minute) DO UPDATE SET "
                          "present = "
                          "present + excluded.present, util_sum = util_sum + "
                          "excluded.util_sum, "
                          "util_n = util_n + excluded.util_n, bw_sum = bw_sum + "
                          "excluded.bw_sum, "
                          "bw_n = bw_n + excluded.bw_n, energy_j = energy_j + "
                          "excluded.energy_j, "
                          "last_up_ms = MAX(last_up_ms, excluded.last_up_ms), last_util_ms = "
                          "MAX(last_util_ms, excluded.last_util_ms), last_bw_ms = "
                          "MAX(last_bw_ms, "
                          "excluded.last_bw_ms)"));
  Statement& up_minute = *up_minute_ptr;
  RETURN_IF_ERROR(up_minute.Reset());
  for (const auto& [k, m] : d.minutes) {
    RETURN_IF_ERROR(up_minute.Bind(1, k.first)
                        .Bind(2, k.second)
                        .Bind(3, m.present)
                        .Bind(4, m.util_sum)
                        .Bind(5, m.util_n)
                        .Bind(6, m.bw_sum)
                        .Bind(7, m.bw_n)
                        .Bind(8, m.energy_j)
                        .Bind(9, m.last_up_ms)
                        .Bind(10, m.last_util_ms)
                        .Bind(11, m.last_bw_ms)
                        .Run());
    RETURN_IF_ERROR(up_minute.Reset());
  }
  ASSIGN_OR_RETURN(Statement * up_holder_ptr,
                   Cached(3,
                          "INSERT INTO cost_holder_minutes (device, minute, holder, "
                          "present, util_sum, util_n, last_info_ms, last_util_ms) VALUES "
                          "(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (device, minute, holder) DO "
                          "UPDATE SET present = present + excluded.present, util_sum = "
                          "util_sum + excluded.util_sum, util_n = util_n + excluded.util_n, "
                          "last_info_ms = MAX(last_info_ms, excluded.last_info_ms), "
                          "last_util_ms = MAX(last_util_ms, excluded.last_util_ms)"));
  Statement& up_holder = *up_holder_ptr;
  RETURN_IF_ERROR(up_holder.Reset());
  for (const auto& [k, h] : d.holders) {
    RETURN_IF_ERROR(up_holder.Bind(1, std::get<0>(k))
                        .Bind(2, std::get<1>(k))
                        .Bind(3, std::get<2>(k))
                        .Bind(4, h.present)
                        .Bind(5, h.util_sum)
                        .Bind(6, h.util_n)
                        .Bind(7, h.last_info_ms)
                        .Bind(8, h.last_util_ms)
                        .Run());
    RETURN_IF_ERROR(up_holder.Reset());
  }
  ASSIGN_OR_RETURN(Statement * up_cursor_ptr,
                   Cached(4,
                          "INSERT INTO cost_counter_cursors (device, series, last_ms, last_value) "
                          "VALUES (?, ?, ?, ?) ON CONFLICT (device, series) DO UPDATE SET "
                          "last_ms = excluded.last_ms, last_value = excluded.last_value"));
  Statement& up_cursor = *up_cursor_ptr;
  RETURN_IF_ERROR(up_cursor.Reset());
  for (const auto& [k, c] : d.cursors) {
    RETURN_IF_ERROR(up_cursor.Bind(1, k.first)
                        .Bind(2, k.second)
                        .Bind(3, c.last_ms)
                        .Bind(4, c.last_value)
                        .Run());
    RETURN_IF_ERROR(up_cursor.Reset());
  }
  return OkStatus();
}

StatusOr<std::vector<MeteredDevice>> Meter::Devices() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement q,
                   db_->Prepare("SELECT id, key, gpu_uuid, node, cloud, region, model, vendor, "
                                "partition_kind, partition_id, partition_profile FROM "
                                "cost_devices ORDER BY id"));
  std::vector<MeteredDevice> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    MeteredDevice d;
    d.id = q.ColumnInt64(0);
    d.key = q.ColumnText(1);
    d.gpu_uuid = q.ColumnText(2);
    d.node = q.ColumnText(3);
    d.cloud = q.ColumnText(4);
    d.region = q.ColumnText(5);
    d.model = q.ColumnText(6);
    d.vendor = q.ColumnText(7);
    d.partition_kind = q.ColumnText(8);
    d.partition_id = q.ColumnText(9);
    d.partition_profile = q.ColumnText(10);
    out.push_back(std::move(d));
  }
  return out;
}

StatusOr<std::shared_ptr<const std::vector<Holder>>> Meter::Holders() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement q,
                   db_->Prepare("SELECT id, key, namespace, pod, container, workload, team, "
                                "slurm_job, slurm_user, slurm_account, hami_gpucores, "
                                "hami_gpumem_percentage FROM cost_holders WHERE id > ? "
                                "ORDER BY id"));
  const int64_t last = holders_ && !holders_->empty() ? holders_->back().id : 0;
  q.Bind(1, last);
  std::vector<Holder> added;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    Holder h;
    h.id = q.ColumnInt64(0);
    h.key = q.ColumnText(1);
    h.namespace_ = q.ColumnText(2);
    h.pod = q.ColumnText(3);
    h.container = q.ColumnText(4);
    h.workload = q.ColumnText(5);
    h.team = q.ColumnText(6);
    h.slurm_job = q.ColumnText(7);
    h.slurm_user = q.ColumnText(8);
    h.slurm_account = q.ColumnText(9);
    h.hami_gpucores = q.ColumnText(10);
    h.hami_gpumem_percentage = q.ColumnText(11);
    added.push_back(std::move(h));
  }
  if (added.empty() && holders_) return holders_;
  // Copy on write: reports still reading the previous vector keep it.
  auto next = std::make_shared<std::vector<Holder>>();
  next->reserve((holders_ ? holders_->size() : 0) + added.size());
  if (holders_) next->insert(next->end(), holders_->begin(), holders_->end());
  next->insert(next->end(), std::make_move_iterator(added.begin()),
               std::make_move_iterator(added.end()));
  holders_ = std::move(next);
  return holders_;
}

Status Meter::Scan(int64_t from_s, int64_t to_s,
                   const std::function<void(const DeviceMinute&)>& fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Status st = FoldLocked(); !st.ok()) {
    ForgetAbsentRows();
    return st;
  }
  ASSIGN_OR_RETURN(Statement q,
                   db_->Prepare("SELECT device, minute, present, util_sum, util_n, bw_sum, bw_n, "
                                "energy_j FROM cost_minutes WHERE minute >= ? AND minute < ? "
                                "ORDER BY device, minute"));
  q.Bind(1, from_s).Bind(2, to_s);
  ASSIGN_OR_RETURN(Statement h,
                   db_->Prepare("SELECT device, minute, holder, present, util_sum, util_n FROM "
                                "cost_holder_minutes WHERE minute >= ? AND minute < ? ORDER BY "
                                "device, minute, holder"));
  h.Bind(1, from_s).Bind(2, to_s);
  ASSIGN_OR_RETURN(bool hrow, h.Step());
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    DeviceMinute m;
    m.device = q.ColumnInt64(0);
    m.minute_s = q.ColumnInt64(1);
    int64_t present = q.ColumnInt64(2);
    if (q.ColumnInt64(4) > 0) m.util_mean = q.ColumnDouble(3) / q.ColumnInt64(4);
    if (q.ColumnInt64(6) > 0) m.bw_mean = q.ColumnDouble(5) / q.ColumnInt64(6);
    m.energy_j = q.ColumnDouble(7);
    auto key = std::make_pair(m.device, m.minute_s);
    // Holder rows of minutes without a device row are skipped (no presence).
    while (hrow && std::make_pair(h.ColumnInt64(0), h.ColumnInt64(1)) < key) {
      ASSIGN_OR_RETURN(hrow, h.Step());
    }
    while (hrow && std::make_pair(h.ColumnInt64(0), h.ColumnInt64(1)) == key) {
      if (h.ColumnInt64(3) > 0) {
        HolderMinute hm;
        hm.holder = h.ColumnInt64(2);
        if (h.ColumnInt64(5) > 0) hm.util_mean = h.ColumnDouble(4) / h.ColumnInt64(5);
        m.holders.push_back(hm);
      }
      ASSIGN_OR_RETURN(hrow, h.Step());
    }
    if (present > 0) fn(m);
  }
  return OkStatus();
}

MeterCounters Meter::counters() {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace gpufleet::cost
