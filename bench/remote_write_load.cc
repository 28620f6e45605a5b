// Load generator for bench/ingest_vs_victoriametrics.py: builds remote-write bodies for a
// simulated fleet (GPUs x 40 canonical series with agent labels), then POSTs every body of
// every round to --url over --connections keep-alive connections and prints one JSON line:
//   {"samples": N, "seconds": S, "samples_per_second": R, "failed_requests": F, ...}
// Bodies are encoded before the clock starts, so only the receiver's ingest is measured.
// Round r carries timestamps start + r * 15 s, so no sample repeats an earlier one.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/load_metrics.h"
#include "expo/remote_write.h"
#include "net/http_client.h"
#include "net/url.h"

namespace {

constexpr int kSeriesPerGpu = 40;

}  // namespace

int main(int argc, char** argv) {
  using namespace gpufleet;
  std::string url;
  int gpus = 10000, rounds = 3, connections = 4, series_per_batch = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    const char* v = argv[i + 1];
    if (flag == "--url") url = v;
    else if (flag == "--gpus") gpus = std::atoi(v);
    else if (flag == "--rounds") rounds = std::atoi(v);
    else if (flag == "--connections") connections = std::atoi(v);
    else if (flag == "--series-per-batch") series_per_batch = std::atoi(v);
  }
  if (!gpufleet::ParseHttpUrl(url).ok() || gpus <= 0 || rounds <= 0 || connections <= 0 ||
      series_per_batch <= 0) {
    std::fprintf(stderr, "usage: %s --url http://host:port/api/v1/write [--gpus 10000] "
                 "[--rounds 3] [--connections 4] [--series-per-batch 2000]\n", argv[0]);
    return 2;
  }

  const int64_t start_ms =
      (std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch()).count() - rounds * 15 - 60) * 1000;
  std::vector<std::string> bodies;
  uint64_t samples_total = 0, raw_series = static_cast<uint64_t>(gpus) * kSeriesPerGpu;
  for (int r = 0; r < rounds; ++r) {
    RemoteWriteRequest batch;
    for (int g = 0; g < gpus; ++g) {
      const int vendor = g % 3;
      for (int m = 0; m < kSeriesPerGpu; ++m) {
        RemoteWriteSeries& s = batch.series.emplace_back();
        s.labels = Labels{
            {"__name__", bench::kLoadMetrics[m % bench::kLoadMetricCount]},
            {"cloud", g % 2 ? "aws" : "gcp"},
            {"gpu", std::to_string(g % 8)},
            {"method", vendor == 0 ? "nvml" : vendor == 1 ? "amdsmi" : "levelzero"},
            {"model", vendor == 0 ? "H100-SXM5-80GB" : vendor == 1 ? "MI300X" : "Max-1550"},
            {"node", "node-" + std::to_string(g / 8)},
            {"uuid", "GPU-" + std::to_string(1'000'000 + g) + "-a1b2c3d4-e5f6"},
            {"vendor", vendor == 0 ? "nvidia" : vendor == 1 ? "amd" : "intel"},
            {"index", std::to_string(m / bench::kLoadMetricCount)},
        };
        s.samples = {{start_ms + r * 15'000LL, 100.0 + g * 0.25 + m + r}};
        if (batch.series.size() == static_cast<size_t>(series_per_batch)) {
          samples_total += batch.series.size();
          bodies.push_back(EncodeRemoteWrite(batch));
          batch.series.clear();
        }
      }
    }
    if (!batch.series.empty()) {
      samples_total += batch.series.size();
      bodies.push_back(EncodeRemoteWrite(batch));
    }
  }
  uint64_t body_bytes = 0;
  for (const std::string& b : bodies) body_bytes += b.size();

  std::atomic<size_t> next{0};
  std::atomic<uint64_t> failed{0};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&] {
      std::unique_ptr<gpufleet::HttpClient> client = gpufleet::NewHttpClient({.keep_alive = true});
      gpufleet::HttpRequest request;
      request.method = "POST";
      request.url = url;
      request.content_type = "application/x-protobuf";
      request.timeout_ns = 60 * gpufleet::kNsPerSecond;
      request.headers = {{"Content-Encoding", "snappy"},
                         {"X-Prometheus-Remote-Write-Version", "0.1.0"}};
      for (size_t i = next++; i < bodies.size(); i = next++) {
        request.body = bodies[i];
        gpufleet::StatusOr<gpufleet::HttpResponse> res = client->Send(request);
        if (!res.ok() || !res->ok()) {
          if (failed++ == 0) {
            std::fprintf(stderr, "request failed: %s\n",
                         res.ok() ? (std::to_string(res->status) + " " + res->body).c_str()
                                  : res.status().message().c_str());
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"samples\": %llu, \"series\": %llu, \"requests\": %zu, \"body_bytes\": %llu, "
              "\"seconds\": %.3f, \"samples_per_second\": %.0f, \"failed_requests\": %llu}\n",
              static_cast<unsigned long long>(samples_total),
              static_cast<unsigned long long>(raw_series), bodies.size(),
              static_cast<unsigned long long>(body_bytes), seconds, samples_total / seconds,
              static_cast<unsigned long long>(failed.load()));
  return failed == 0 ? 0 : 1;
}
