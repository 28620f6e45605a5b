// Decode and encode throughput of the remote-write codec on a fleet-shaped request: GPUs
// with ~40 canonical series each and the labels an agent sends (gpu, uuid, node, cloud,
// model, vendor, method). Counters: bytes_per_second (compressed body, MB/s in the report)
// and samples_per_second. BM_DecodeRemoteWriteLibprotobuf is the anchor in the same run:
// libprotobuf's generated parser on an arena, without the validation DecodeRemoteWrite does.
#include <benchmark/benchmark.h>
#include <snappy.h>

#include <string>

#include "expo/prompb/remote.pb.h"
#include "expo/remote_write.h"
#include "google/protobuf/arena.h"

namespace gpufleet {
namespace {

constexpr const char* kMetrics[] = {
    "gpu_up", "gpu_power_watts", "gpu_energy_joules_total", "gpu_temperature_celsius",
    "gpu_memory_temperature_celsius", "gpu_memory_used_bytes", "gpu_memory_total_bytes",
    "gpu_utilization_ratio", "gpu_sm_active_ratio", "gpu_memory_bandwidth_utilization_ratio",
    "gpu_clock_sm_hertz", "gpu_clock_memory_hertz", "gpu_pcie_rx_bytes_total",
    "gpu_pcie_tx_bytes_total", "gpu_ecc_errors_total", "gpu_throttle_reasons_info"};
constexpr int kSeriesPerGpu = 40;

RemoteWriteRequest FleetRequest(int gpus, int64_t timestamp_ms) {
  RemoteWriteRequest request;
  request.series.reserve(static_cast<size_t>(gpus) * kSeriesPerGpu);
  for (int g = 0; g < gpus; ++g) {
    const int vendor = g % 3;
    for (int m = 0; m < kSeriesPerGpu; ++m) {
      RemoteWriteSeries& s = request.series.emplace_back();
      const char* metric = kMetrics[m % std::size(kMetrics)];
      s.labels = Labels{
          {"__name__", metric},
          {"cloud", g % 2 ? "aws" : "gcp"},
          {"gpu", std::to_string(g % 8)},
          {"method", vendor == 0 ? "nvml" : vendor == 1 ? "amdsmi" : "levelzero"},
          {"model", vendor == 0 ? "H100-SXM5-80GB" : vendor == 1 ? "MI300X" : "Max-1550"},
          {"node", "node-" + std::to_string(g / 8)},
          {"uuid", "GPU-" + std::to_string(1'000'000 + g) + "-a1b2c3d4-e5f6"},
          {"vendor", vendor == 0 ? "nvidia" : vendor == 1 ? "amd" : "intel"},
          {"slot", std::to_string(m / std::size(kMetrics))},
      };
      s.samples = {{timestamp_ms, 100.0 + g * 0.25 + m}};
    }
  }
  return request;
}

const std::string& Body() {
  static const std::string* body =
      new std::string(EncodeRemoteWrite(FleetRequest(1000, 1'764'547'200'000)));
  return *body;
}

void BM_DecodeRemoteWrite(benchmark::State& state) {
  const std::string& body = Body();
  size_t samples = 0;
  for (auto _ : state) {
    RemoteWriteDecodeStats stats;
    auto decoded = DecodeRemoteWrite(body, RemoteWriteLimits{}, &stats);
    if (!decoded.ok() || stats.series_rejected != 0) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(decoded);
    samples += stats.samples_accepted;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
  state.counters["samples_per_second"] =
      benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DecodeRemoteWrite)->Unit(benchmark::kMillisecond);

void BM_DecodeRemoteWriteLibprotobuf(benchmark::State& state) {
  const std::string& body = Body();
  std::string raw;
  size_t samples = 0;
  for (auto _ : state) {
    snappy::Uncompress(body.data(), body.size(), &raw);
    google::protobuf::Arena arena;
    auto* request = google::protobuf::Arena::CreateMessage<prompb::WriteRequest>(&arena);
    if (!request->ParseFromString(raw)) state.SkipWithError("parse failed");
    for (const auto& ts : request->timeseries()) samples += ts.samples_size();
    benchmark::DoNotOptimize(request);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
  state.counters["samples_per_second"] =
      benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DecodeRemoteWriteLibprotobuf)->Unit(benchmark::kMillisecond);

void BM_EncodeRemoteWrite(benchmark::State& state) {
  const RemoteWriteRequest request = FleetRequest(1000, 1'764'547'200'000);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string body = EncodeRemoteWrite(request);
    bytes += body.size();
    benchmark::DoNotOptimize(body);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["samples_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations() * request.series.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EncodeRemoteWrite)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpufleet

BENCHMARK_MAIN();
