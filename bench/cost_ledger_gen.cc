// A month of one-minute metering for bench/cost_report_vs_victoriametrics.py,
// written straight into the meter's tables (not through ingest: metering a
// month of 1,000 GPUs through remote write would take hours on the bench's
// cores; what ingest costs is bench/cost_meter_bench's question) and, with
// --vm-json, the same canonical series as VictoriaMetrics /api/v1/import
// JSON lines.
//
// The fleet: --gpus GPUs, 8 per node; nodes in three price groups (node
// names "ga-*", "gb-*", "gc-*", priced by the bench's site file); each GPU
// runs a sequence of jobs (one pod each, 2 to 48 h, team and namespace drawn
// from 8 teams x 2 namespaces) with unallocated gaps of up to 6 h between
// them, switching at any minute. Every GPU reports every minute (gpu_up,
// utilization, bandwidth, energy); the holder reports gpu_workload_info.
// Deterministic per GPU (seeded by its index).
//
// Series in --vm-json (the minimum the allocation-basis report needs):
//   gpu_up{node, gpu, gpu_uuid, cloud, model}              one sample a minute
//   gpu_workload_info{... device, workload_*}              one a minute while held
//   gpufleet_cost_device_usd_per_hour{node, gpu, gpu_uuid} one an hour
// Sample timestamps are the minute's start + 30 s.
//
// --hours-only writes the hourly rollup rows (as the meter builds them from
// the minutes: minutes grouped by holder) and no minute rows: for the
// 10,000-GPU report, whose minute rows (about 40 GB) would not fit the bench
// machine's disk. A report over whole hours reads only the hourly rows.
//
// Usage: cost_ledger_gen --gpus 1000 --days 30 --start-s 1793491200 --db FILE
//          [--vm-json FILE] [--hours-only]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cost/meter.h"
#include "store/state_db.h"

namespace {

using namespace gpufleet;

struct Segment {
  int64_t from_min = 0, to_min = 0;  // minute indices, [from, to)
  int64_t holder = 0;                // 0: unallocated
  int team = 0, ns = 0;
};

struct Args {
  int gpus = 1000;
  int days = 30;
  int64_t start_s = 1793491200;  // 2026-11-01T00:00:00Z
  std::string db, vm_json;
  bool hours_only = false;
};

const char* kGroups[] = {"ga", "gb", "gc"};
const char* kClouds[] = {"aws", "gcp", "azure"};

std::string Node(int gpu) {
  return std::string(kGroups[(gpu / 8) % 3]) + "-" + std::to_string(gpu / 8);
}

std::vector<Segment> Timeline(int gpu, int64_t minutes, int64_t& next_holder) {
  std::mt19937_64 rng(1000003ULL * static_cast<uint64_t>(gpu) + 17);
  std::vector<Segment> out;
  int64_t t = 0;
  while (t < minutes) {
    int64_t gap = static_cast<int64_t>(rng() % (6 * 60));
    if (gap > 0) {
      out.push_back({t, std::min(minutes, t + gap), 0, 0, 0});
      t += gap;
    }
    if (t >= minutes) break;
    int64_t len = 120 + static_cast<int64_t>(rng() % (46 * 60));
    Segment s{t, std::min(minutes, t + len), next_holder++, static_cast<int>(rng() % 8),
              static_cast<int>(rng() % 2)};
    out.push_back(s);
    t += len;
  }
  return out;
}

int Fail(const Status& st) {
  std::fprintf(stderr, "cost_ledger_gen: %s\n", st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cost_ledger_gen: %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--gpus")
      a.gpus = std::atoi(next().c_str());
    else if (k == "--days")
      a.days = std::atoi(next().c_str());
    else if (k == "--start-s")
      a.start_s = std::atoll(next().c_str());
    else if (k == "--db")
      a.db = next();
    else if (k == "--vm-json")
      a.vm_json = next();
    else if (k == "--hours-only")
      a.hours_only = true;
    else {
      std::fprintf(stderr, "cost_ledger_gen: unknown argument %s\n", k.c_str());
      return 2;
    }
  }
  if (a.db.empty() || a.gpus <= 0 || a.days <= 0 || a.start_s % 3600 != 0) {
    std::fprintf(stderr,
                 "usage: cost_ledger_gen --gpus N --days D --start-s S (whole hour) --db FILE "
                 "[--vm-json FILE] [--hours-only]\n");
    return 2;
  }
  auto opened = StateDb::Open(a.db, cost::CostMigrations());
  if (!opened.ok()) return Fail(opened.status());
  StateDb& db = **opened;
  db.Exec("PRAGMA synchronous=OFF").IgnoreError();
  FILE* vm = a.vm_json.empty() ? nullptr : std::fopen(a.vm_json.c_str(), "w");
  if (!a.vm_json.empty() && vm == nullptr) {
    std::perror(a.vm_json.c_str());
    return 1;
  }
  const int64_t minutes = static_cast<int64_t>(a.days) * 1440;
  auto prep = [&](const char* sql) {
    auto st = db.Prepare(sql);
    if (!st.ok()) std::exit(Fail(st.status()));
    return std::move(*st);
  };
  Status st = db.Exec("BEGIN");
  if (!st.ok()) return Fail(st);
  Statement dev = prep(
      "INSERT INTO cost_devices (id, key, gpu_uuid, node, cloud, region, model, vendor, "
      "partition_kind, partition_id, partition_profile) VALUES (?, ?, ?, ?, ?, ?, 'h100-sxm', "
      "'nvidia', '', '', '')");
  Statement hol = prep(
      "INSERT INTO cost_holders (id, key, namespace, pod, container, workload, team, slurm_job, "
      "slurm_user, slurm_account) VALUES (?, ?, ?, ?, 'c', ?, ?, '', '', '')");
  Statement min = prep(
      "INSERT INTO cost_minutes (device, minute, present, util_sum, util_n, bw_sum, bw_n, "
      "energy_j, last_up_ms, last_util_ms, last_bw_ms) VALUES (?, ?, 1, ?, 1, ?, 1, ?, ?, ?, ?)");
  Statement hmin = prep(
      "INSERT INTO cost_holder_minutes (device, minute, holder, present, util_sum, util_n, "
      "last_info_ms, last_util_ms) VALUES (?, ?, ?, 1, 0, 0, ?, -1)");
  Statement hour = prep(
      "INSERT INTO cost_hours (device, hour, minutes, first_minute, blocks, groups, "
      "energy_pos_j) VALUES (?, ?, 60, ?, 1, ?, ?)");
  int64_t next_holder = 1;
  int64_t rows = 0;
  std::string line;
  for (int g = 0; g < a.gpus; ++g) {
    const int64_t id = g + 1;
    const std::string node = Node(g), gpu = std::to_string(g % 8),
                      uuid = "GPU-" + std::to_string(100000 + g), cloud = kClouds[(g / 8) % 3];
    Status s = dev.Reset();
    if (s.ok())
      s = dev.Bind(1, id)
              .Bind(2, node + "/" + gpu)
              .Bind(3, uuid)
              .Bind(4, node)
              .Bind(5, cloud)
              .Bind(6, std::string(cloud) + "-1")
              .Run();
    if (!s.ok()) return Fail(s);
    std::vector<Segment> segs = Timeline(g, minutes, next_holder);
    for (const Segment& seg : segs) {
      if (seg.holder == 0) continue;
      const std::string ns = "team" + std::to_string(seg.team) + "-ns" + std::to_string(seg.ns);
      const std::string pod = "job-" + std::to_string(seg.holder);
      s = hol.Reset();
      if (s.ok())
        s = hol.Bind(1, seg.holder)
                .Bind(2, ns + "/" + pod + "/c")
                .Bind(3, ns)
                .Bind(4, pod)
                .Bind(5, pod)
                .Bind(6, "team" + std::to_string(seg.team))
                .Run();
      if (!s.ok()) return Fail(s);
    }
    // Minute rows (all, or only in hours where the holder changes).
    std::mt19937_64 rng(7919ULL * static_cast<uint64_t>(g) + 3);
    std::uniform_real_distribution<double> unit(0, 1);
    size_t k = 0;
    for (int64_t hr = 0; hr < minutes / 60; ++hr) {
      while (k + 1 < segs.size() && segs[k].to_min <= hr * 60) ++k;
      const int64_t hour_s = a.start_s + hr * 3600;
      double energy = 0;
      size_t kk = k;
      // The hour's minutes grouped by holder, as the meter's rollup encodes them.
      std::string groups;
      int64_t group_holder = -1, group_count = 0, group_first = 0;
      auto flush = [&]() {
        if (group_count == 0) return;
        if (!groups.empty()) groups += ';';
        groups += std::to_string(group_count) + '@' + std::to_string(group_first) + ':' +
                  (group_holder != 0 ? std::to_string(group_holder) : std::string());
      };
      for (int64_t m = hr * 60; m < (hr + 1) * 60; ++m) {
        while (segs[kk].to_min <= m) ++kk;
        const double e = 20000 + 20000 * unit(rng);
        energy += e;
        const int64_t minute_s = a.start_s + m * 60, ts = minute_s * 1000 + 30000;
        if (segs[kk].holder != group_holder) {
          flush();
          group_holder = segs[kk].holder;
          group_count = 0;
          group_first = minute_s;
        }
        group_count++;
        if (a.hours_only) continue;
        Status s = min.Reset();
        if (s.ok()) {
          s = min.Bind(1, id)
                  .Bind(2, minute_s)
                  .Bind(3, unit(rng))
                  .Bind(4, unit(rng))
                  .Bind(5, e)
                  .Bind(6, ts)
                  .Bind(7, ts)
                  .Bind(8, ts)
                  .Run();
        }
        if (s.ok() && segs[kk].holder != 0) {
          s = hmin.Reset();
          if (s.ok())
            s = hmin.Bind(1, id).Bind(2, minute_s).Bind(3, segs[kk].holder).Bind(4, ts).Run();
        }
        if (!s.ok()) return Fail(s);
        rows++;
      }
      flush();
      if (a.hours_only) {
        Status s = hour.Reset();
        if (s.ok())
          s = hour.Bind(1, id)
                  .Bind(2, hour_s)
                  .Bind(3, hour_s)
                  .Bind(4, groups)
                  .Bind(5, energy)
                  .Run();
        if (!s.ok()) return Fail(s);
      }
    }
    if (vm != nullptr) {
      const std::string dev_labels = "\"node\":\"" + node + "\",\"gpu\":\"" + gpu +
                                     "\",\"gpu_uuid\":\"" + uuid + "\",\"cloud\":\"" + cloud +
                                     "\",\"model\":\"h100-sxm\"";
      auto series = [&](const std::string& labels, int64_t from_min, int64_t to_min,
                        int64_t step_min, const char* value) {
        std::fprintf(vm, "{\"metric\":{%s},\"values\":[", labels.c_str());
        for (int64_t m = from_min; m < to_min; m += step_min)
          std::fprintf(vm, m == from_min ? "%s" : ",%s", value);
        std::fputs("],\"timestamps\":[", vm);
        for (int64_t m = from_min; m < to_min; m += step_min) {
          std::fprintf(vm, m == from_min ? "%lld" : ",%lld",
                       static_cast<long long>((a.start_s + m * 60) * 1000 + 30000));
        }
        std::fputs("]}\n", vm);
      };
      series("\"__name__\":\"gpu_up\"," + dev_labels, 0, minutes, 1, "1");
      const char* price = (g / 8) % 3 == 0 ? "2.4" : (g / 8) % 3 == 1 ? "3.12" : "6";
      series("\"__name__\":\"gpufleet_cost_device_usd_per_hour\"," + dev_labels, 0, minutes, 60,
             price);
      for (const Segment& seg : segs) {
        if (seg.holder == 0) continue;
        const std::string ns = "team" + std::to_string(seg.team) + "-ns" + std::to_string(seg.ns);
        series("\"__name__\":\"gpu_workload_info\"," + dev_labels + ",\"workload_namespace\":\"" +
                   ns + "\",\"workload_pod\":\"job-" + std::to_string(seg.holder) +
                   "\",\"workload_container\":\"c\"," + "\"workload_team\":\"team" +
                   std::to_string(seg.team) + "\"",
               seg.from_min, seg.to_min, 1, "1");
      }
    }
  }
  if (a.hours_only) {
    Statement done = prep("INSERT INTO cost_hours_done (hour) VALUES (?)");
    for (int64_t hr = 0; hr < minutes / 60; ++hr) {
      Status s = done.Reset();
      if (s.ok()) s = done.Bind(1, a.start_s + hr * 3600).Run();
      if (!s.ok()) return Fail(s);
    }
  }
  st = db.Exec("COMMIT");
  if (!st.ok()) return Fail(st);
  if (vm != nullptr) std::fclose(vm);
  std::printf("{\"gpus\": %d, \"days\": %d, \"minute_rows\": %lld, \"holders\": %lld}\n", a.gpus,
              a.days, static_cast<long long>(rows), static_cast<long long>(next_holder - 1));
  return 0;
}
