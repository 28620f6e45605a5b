// The cost meter's share of ingest (issue 14: metering <= 5% of the
// server's ingest rate). Both benchmarks take the same remote-write batches
// as bench/remote_write_load (GPUs x 40 canonical series, 2,000 series per
// request, one sample each, 15 s apart per round):
//   BM_WindowAppend  the window store's Append of every sample (the anchor:
//                    what ingest does with a batch besides decoding it)
//   BM_MeterRecord   Meter::Record of the same batch (one SQLite
//                    transaction per request, WAL, synchronous=NORMAL)
//   BM_Ingest/0      the server's whole ingest path (Ingester::IngestRemoteWrite:
//                    snappy + protobuf decode, validation, window store) of the
//                    same batches as encoded remote-write bodies, no ledger (anchor)
//   BM_Ingest/1      the same with the cost ledger on (Meter and WorkMeter commit
//                    before the write is acknowledged, as in `gpufleet server`)
// Compare items/s of each pair in the same run: metering's share of ingest
// is 1 - items/s(BM_Ingest/1) / items/s(BM_Ingest/0).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/load_metrics.h"
#include "core/clock.h"
#include "cost/meter.h"
#include "cost/work_meter.h"
#include "expo/remote_write.h"
#include "server/ingest.h"
#include "store/window_store.h"

namespace {

using namespace gpufleet;


// Batches of one round for `gpus` GPUs.
std::vector<std::vector<RemoteWriteSeries>> Round(int gpus, int64_t ts_ms) {
  std::vector<std::vector<RemoteWriteSeries>> out(1);
  for (int g = 0; g < gpus; ++g) {
    for (int m = 0; m < 40; ++m) {
      if (out.back().size() == 2000) out.emplace_back();
      RemoteWriteSeries& s = out.back().emplace_back();
      s.labels = Labels{{"__name__", bench::kLoadMetrics[m % bench::kLoadMetricCount]},
                        {"cloud", g % 2 ? "aws" : "gcp"},
                        {"gpu", std::to_string(g % 8)},
                        {"index", std::to_string(m / bench::kLoadMetricCount)},
                        {"model", "H100-SXM5-80GB"},
                        {"node", "node-" + std::to_string(g / 8)},
                        {"uuid", "GPU-" + std::to_string(1'000'000 + g)}};
      s.samples = {{ts_ms, 100.0 + g * 0.25 + m}};
    }
  }
  return out;
}

void Shift(std::vector<std::vector<RemoteWriteSeries>>& batches, int64_t ms) {
  for (auto& b : batches) {
    for (auto& s : b) s.samples[0].timestamp_ms += ms;
  }
}

// A fresh ledger database in the temporary directory; null (and the
// benchmark skipped) when it cannot be opened.
std::unique_ptr<StateDb> FreshDb(benchmark::State& state, const char* name) {
  std::string path = std::filesystem::temp_directory_path() / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  auto db = StateDb::Open(path, cost::CostMigrations());
  if (!db.ok()) {
    state.SkipWithError(db.status().ToString().c_str());
    return nullptr;
  }
  return std::move(*db);
}

void BM_MeterRecord(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  std::unique_ptr<StateDb> db = FreshDb(state, "gpufleet_meter_bench.db");
  if (db == nullptr) return;
  cost::Meter meter(db.get());
  auto batches = Round(gpus, 1'800'000'000'000);
  int64_t samples = 0;
  for (auto _ : state) {
    for (const auto& b : batches) {
      if (!meter.Record(b).ok()) state.SkipWithError("record failed");
      samples += static_cast<int64_t>(b.size());
    }
    state.PauseTiming();
    Shift(batches, 15'000);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(samples);
}
BENCHMARK(BM_MeterRecord)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_WindowAppend(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  WindowStore window(WindowStoreOptions{});
  auto batches = Round(gpus, 1'800'000'000'000);
  int64_t samples = 0;
  for (auto _ : state) {
    for (const auto& b : batches) {
      for (const auto& s : b) {
        window.Append(s.labels, s.samples[0].timestamp_ms * 1'000'000, s.samples[0].value);
      }
      samples += static_cast<int64_t>(b.size());
    }
    state.PauseTiming();
    Shift(batches, 15'000);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(samples);
}
BENCHMARK(BM_WindowAppend)->Arg(1000)->Unit(benchmark::kMillisecond);

std::vector<std::string> Encode(const std::vector<std::vector<RemoteWriteSeries>>& batches) {
  std::vector<std::string> bodies;
  for (const auto& b : batches) {
    RemoteWriteRequest request;
    request.series = b;
    bodies.push_back(EncodeRemoteWrite(request));
  }
  return bodies;
}

void BM_Ingest(benchmark::State& state) {
  const bool ledger = state.range(0) != 0;
  const int gpus = static_cast<int>(state.range(1));
  std::unique_ptr<StateDb> db = FreshDb(state, "gpufleet_ingest_bench.db");
  if (db == nullptr) return;
  cost::Meter meter(db.get());
  cost::WorkMeter work(db.get());
  WindowStore window(WindowStoreOptions{});
  RealClock clock;
  Ingester ingester(window, nullptr, nullptr, clock, RemoteWriteLimits(), ledger ? &meter : nullptr,
                    nullptr, ledger ? &work : nullptr);
  auto batches = Round(gpus, 1'800'000'000'000);
  std::vector<std::string> bodies = Encode(batches);
  int64_t samples = 0;
  for (auto _ : state) {
    for (const std::string& body : bodies) {
      IngestResult r = ingester.IngestRemoteWrite(body);
      if (!r.status.ok()) state.SkipWithError(r.status.ToString().c_str());
      samples += static_cast<int64_t>(r.samples_accepted);
    }
    state.PauseTiming();
    Shift(batches, 15'000);
    bodies = Encode(batches);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(samples);
}
// Interleaved, so drift in the machine's load falls on both.
BENCHMARK(BM_Ingest)
    ->Args({0, 1000})
    ->Args({1, 1000})
    ->Args({0, 10000})
    ->Args({1, 10000})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
