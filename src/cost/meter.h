// Meter: the cost ledger's per-minute rollup, per device, in the SQLite
// state database (component "cost"): whether the device reported in the
// minute, its mean utilization and memory-bandwidth utilization, its energy,
// and who held it (gpu_workload_info: namespace / pod / container, team,
// workload, Slurm job / user / account) with each holder's own utilization
// (gpu_process_utilization_ratio) when the source reports it.
//
// Write-through and idempotent: Record() meters one acknowledged write in
// one transaction and returns only when it is committed (WAL with
// synchronous=NORMAL: survives kill -9 of the process; a power cut can lose
// the last commits), so the caller acknowledges the write after it. The
// transaction adds one row to the journal (cost/meter_journal.h: the
// write's per-minute deltas and counter cursors); a fold adds the journal's
// rows to the minute tables and deletes them in one transaction, once the
// journal spans two minutes or 4,096 rows, before every Scan / ScanHours,
// and when the meter loads its state.
// A sample at or before its series' cursor (the last metered timestamp) is a
// duplicate, so a write sent again (a retry after a lost response, a replay
// after a restart) is not counted twice. Cursors live in memory; what makes
// them durable is in the same transaction: each minute row keeps the last
// timestamp per kind, from which a restarted meter takes the cursor of a
// gauge (the same for every series of one kind on one device, which share
// scrape times), and counters (energy) keep per-series cursors with their
// last value (cost_counter_cursors, keyed by device then series), so
// per-minute deltas continue across restarts; a counter that goes down is
// a reset (the new value is the delta).
//
// Metered series: gpu_up (presence), gpu_utilization_ratio,
// gpu_memory_bandwidth_utilization_ratio, gpu_energy_joules_total,
// gpu_workload_info (with HAMi's limits when labelled),
// gpu_process_utilization_ratio. Everything else is
// ignored. Devices are named by detect::DeviceKey (node/gpu[/pN]), as in
// incidents.
//
// Rollup (cost_hours and cost_days, beside the per-minute truth): per
// device and hour, the number of metered minutes, the first of them, the
// energy, and the minutes grouped by their holders ("count@first_minute:
// id,id;..." in order of first minute) unless some minute splits among
// several holders by their own utilization (then the hour is read minute by
// minute); per device and UTC day the same, summed from the day's hours. It
// is a cache derived from the minutes:
// ScanHours builds the rows of closed hours, then of closed days, it lacks
// (one transaction each; a day only when every hour of it has rows), and a
// Record that writes into a span deletes that span's rows in the same
// transaction as the minutes, so after a restart or kill -9 the rollup never
// disagrees with the minutes (a span is rebuilt, never counted twice).
// Another process (gpufleet cost report --db) may build rows too: each build
// bumps an epoch that a write reads in its transaction, so a writer never
// trusts what it knew about rows built elsewhere; a scan reads in one
// snapshot and takes a span whose rows are missing from the level below.
//
// Thread safety: Record, Scan and ScanHours are serialized by an internal mutex; the
// StateDb must not be used by anything else concurrently. Another process
// may fold the same journal (each fold takes the rows present in its own
// transaction).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/flat_index.h"
#include "core/status.h"
#include "expo/remote_write.h"
#include "store/state_db.h"

namespace gpufleet::cost {

const std::vector<Migration>& CostMigrations();

struct MeterDeltas;  // cost/meter_journal.h

// Levels of the rollup: hours and days.
inline constexpr int kRollupLevels = 2;

// The names of the metered series (above), in a fixed order.
std::vector<std::string_view> MeteredMetricNames();

// What Meter::Record needs from one series' labels: which metered series it
// is (kind 0: not metered, or a holder series without a holder) and its id.
// A caller that reads every series' labels anyway (the ingester, storing
// them) computes it there, while they are in the cache.
struct MeterKey {
  uint8_t kind = 0;
  bool work = false;  // a series the WorkMeter (cost/work_meter.h) reads
  uint64_t series = 0;
};
MeterKey MeterKeyOf(const Labels& labels);
// The same from decoded label views (sorted by name, as they were sent).
MeterKey MeterKeyOf(std::span<const LabelView> labels);
// A metered series a receiver did not decode: its key and samples. Record
// meters it through a cursor that already names its device (Knows): only
// labels create cursors.
struct KeyedSamples {
  MeterKey key;
  std::vector<RemoteWriteSample> samples;
};

struct MeteredDevice {
  int64_t id = 0;
  std::string key;  // detect::DeviceKey
  std::string gpu_uuid, node, cloud, region, model, vendor;
  std::string partition_kind, partition_id, partition_profile;
};

struct Holder {
  int64_t id = 0;
  std::string key;  // namespace/pod/container or slurm:<job>
  std::string namespace_, pod, container, workload, team;
  std::string slurm_job, slurm_user, slurm_account;
  // HAMi limits as labelled (workload_hami_gpucores: percent of the GPU's
  // cores; workload_hami_gpumem_percentage: percent of its memory); "" when
  // absent. cost/shares.h turns them into a share.
  std::string hami_gpucores, hami_gpumem_percentage;
};

struct HolderMinute {
  int64_t holder = 0;
  double util_mean = -1;  // -1: the source reports no per-holder utilization
};

struct DeviceMinute {
  int64_t device = 0;
  int64_t minute_s = 0;   // unix seconds of the minute's start
  double util_mean = -1;  // -1: not reported in this minute
  double bw_mean = -1;
  double energy_j = 0;
  std::vector<HolderMinute> holders;
  // A block from the rollup when > 1 or from ScanHours' blocks: `repeat`
  // metered minutes of one hour or day, minute_s the first, all with these
  // holders (equal weights) and no readings; ComputeLedger charges it as
  // `repeat` such minutes.
  int64_t repeat = 1;
};

// Whether ScanHours may hand over a span of `device` as blocks (one per
// group of minutes with the same holders): (device id, span start, span
// length in seconds (3600 or 86400), energy in the span in joules, counting
// only positive minutes).
using BlockOk =
    std::function<bool(int64_t device, int64_t start_s, int64_t span_s, double energy_pos_j)>;

struct MeterCounters {
  uint64_t samples_metered = 0;
  uint64_t samples_duplicate = 0;  // at or before the series' cursor
  uint64_t counter_resets = 0;
  uint64_t write_errors = 0;
  uint64_t fold_errors = 0;  // journal folds that failed (the next one retries)
};

class Meter {
 public:
  // `db` must outlive the meter and have CostMigrations() applied.
  explicit Meter(StateDb* db);

  // Meters the metered series of one write (see above); one transaction.
  Status Record(const std::vector<RemoteWriteSeries>& series);
  // The same, with keys[i] == MeterKeyOf(series[i].labels) from the caller.
  Status Record(const std::vector<RemoteWriteSeries>& series, const std::vector<MeterKey>& keys);
  // The same, with `keyed` series too (in the same transaction). A keyed
  // series whose cursor is gone (a failed write in between forgot it)
  // fails the write with Unavailable, so the sender sends it again.
  Status Record(const std::vector<RemoteWriteSeries>& series, const std::vector<MeterKey>& keys,
                std::span<const KeyedSamples> keyed);
  // Whether series `sid` (MeterKey::series) has a cursor that names its
  // device, so a write may pass it as KeyedSamples. Does not wait for a
  // write in progress.
  bool Knows(uint64_t sid) const;

  // Devices and holders known to the ledger. Holders are ordered by id and
  // never change once written, so the meter keeps them between calls and
  // reads only the rows added since (a fleet's history holds many).
  StatusOr<std::vector<MeteredDevice>> Devices();
  StatusOr<std::shared_ptr<const std::vector<Holder>>> Holders();
  // Calls fn for every metered device-minute in [from_s, to_s), ordered by
  // device then minute, holders attached. Memory: one minute at a time.
  Status Scan(int64_t from_s, int64_t to_s, const std::function<void(const DeviceMinute&)>& fn);

  // Like Scan, but whole days and hours in [from_s, to_s) that end at or
  // before `cache_before_s` come from the rollup (built first where
  // missing): a day or hour that `block_ok` accepts is one block per holder
  // group (DeviceMinute::repeat), a day it refuses is read hour by hour, an
  // hour it refuses and the ragged edges minute by minute. Ordered by
  // device, then time.
  Status ScanHours(int64_t from_s, int64_t to_s, int64_t cache_before_s, const BlockOk& block_ok,
                   const std::function<void(const DeviceMinute&)>& fn);

  MeterCounters counters();

 private:
  // Per metered series (keyed by SeriesId): the last metered sample and,
  // once a write has named them, the ids of its device and holder (0: not
  // yet resolved, as for cursors loaded from the database), so a series
  // seen before costs one lookup.
  struct Cursor {
    uint64_t series = 0;  // SeriesId
    int64_t last_ms = -1;
    double last_value = 0;
    int64_t device = 0;
    int64_t holder = 0;
  };
  // The cursor of series `sid`; a new one (fresh) when unknown.
  Cursor& CursorOf(uint64_t sid, bool& fresh);
  // Updates cursors_ in place: Record forgets them all when the
  // transaction fails.
  Status RecordLocked(const std::vector<RemoteWriteSeries>& series,
                      const std::vector<MeterKey>& keys, std::span<const KeyedSamples> keyed,
                      MeterCounters& delta);
  Status LoadLocked();
  // The journal: FoldLocked adds every row of cost_journal to the minute
  // tables and deletes them, in one transaction; WriteDeltasLocked is its
  // write (inside it). FoldDueLocked: whether a write should fold now.
  Status FoldLocked();
  Status WriteDeltasLocked(const MeterDeltas& d);
  bool FoldDueLocked() const;
  // Minutes of one device in [from_s, to_s), as Scan hands them over.
  Status DeviceMinutesLocked(int64_t device, int64_t from_s, int64_t to_s,
                             const std::function<void(const DeviceMinute&)>& fn);
  // Builds the missing rows of hours [h0_s, h1_s) from the minutes, and of
  // days [d0_s, d1_s) from the hours (one transaction each).
  Status BuildHoursLocked(int64_t h0_s, int64_t h1_s);
  Status BuildDaysLocked(int64_t d0_s, int64_t d1_s);
  // The first and last metered minute of any of `devices` (first > last: none).
  StatusOr<std::pair<int64_t, int64_t>> MinuteRangeLocked(const std::vector<int64_t>& devices);
  // Spans of rollup `level` in [a_s, b_s) whose rows are built.
  StatusOr<std::unordered_set<int64_t>> DoneLocked(int level, int64_t a_s, int64_t b_s);
  // Marks spans of `level` built and bumps the epoch (inside a build).
  Status MarkBuiltLocked(int level, const std::vector<std::pair<int64_t, int64_t>>& runs);
  // Hands over [a_s, b_s) of `device` from rollup `level` (-1: minutes).
  struct ScanState;
  Status ScanLevelLocked(int level, int64_t device, int64_t a_s, int64_t b_s, const ScanState& st,
                         const std::function<void(const DeviceMinute&)>& fn);
  // Deletes the rollup rows of the spans a write touches (inside its
  // transaction).
  Status InvalidateRollupLocked(const std::vector<std::pair<int64_t, int64_t>>& device_minutes);
  void ForgetAbsentRows();
  // The hot statements, prepared once per slot.
  StatusOr<Statement*> Cached(int slot, const char* sql);
  // The id of the device / holder a series names, a new row when unknown.
  StatusOr<int64_t> DeviceId(const Labels& labels);
  StatusOr<int64_t> HolderId(const Labels& labels);
  StatusOr<int64_t> IdOf(std::unordered_map<std::string, int64_t>& ids, std::string key, int slot,
                         const char* sql, const Labels& labels,
                         std::initializer_list<std::string_view> names);

  std::mutex mu_;
  // SeriesIds whose cursor names its device (Knows); written under mu_,
  // read without it.
  mutable std::shared_mutex known_mu_;
  std::unordered_set<uint64_t> known_;                   // guarded by known_mu_
  StateDb* db_;                                          // guarded by mu_
  bool loaded_ = false;                                  // guarded by mu_
  // Cursors by id in order of first appearance (a write's series come
  // together, so its cursors are neighbours), found through cursor_index_
  // by SeriesId.
  std::vector<Cursor> cursors_;                          // guarded by mu_
  FlatIndex cursor_index_;                               // guarded by mu_
  std::unordered_map<uint64_t, int64_t> floors_;         // guarded by mu_
  std::unordered_map<std::string, int64_t> device_ids_;  // guarded by mu_
  std::unordered_map<std::string, int64_t> holder_ids_;  // guarded by mu_
  std::shared_ptr<const std::vector<Holder>> holders_;   // guarded by mu_; Holders()
  MeterCounters counters_;                               // guarded by mu_
  std::map<int, Statement> statements_;                  // guarded by mu_
  // Per rollup level (hours, days): (device, span) and spans whose rows are
  // known absent (deleted in a committed write, or never built since);
  // cleared by a build.
  std::unordered_set<uint64_t> absent_[kRollupLevels];      // guarded by mu_
  std::unordered_set<int64_t> done_absent_[kRollupLevels];  // guarded by mu_
  int64_t rollup_epoch_ = -1;                                // guarded by mu_; of the sets above
  // Rows this meter wrote to the journal since its last fold, and the
  // minutes they span (another process may have folded them already: then
  // the next fold finds fewer rows, which is harmless).
  static constexpr int64_t kFoldRows = 4096;
  int64_t journal_rows_ = 0;                                            // guarded by mu_
  int64_t journal_first_minute_ = std::numeric_limits<int64_t>::max();  // guarded by mu_
  int64_t journal_last_minute_ = std::numeric_limits<int64_t>::min();   // guarded by mu_
};

}  // namespace gpufleet::cost
