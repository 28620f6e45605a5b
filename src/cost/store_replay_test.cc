#include "cost/store_replay.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "net/fake_http_client.h"

namespace gpufleet::cost {
namespace {

constexpr int64_t kT0 = 1'764'547'200;  // 2025-12-01T00:00:00Z

// What the store holds: every series with its raw samples.
using Store = std::vector<RemoteWriteSeries>;

// A small fleet from a stated model: two GPUs on one node scraped every
// 15 s for two hours; GPU 0 held by one pod the whole time at 70%
// utilization, GPU 1 idle for the first hour and then held by a Slurm job;
// energy counters at 400 W and 90 W.
Store Fleet() {
  Store store;
  auto series = [&](std::string name, int gpu, std::map<std::string, std::string> extra) {
    RemoteWriteSeries s;
    s.labels = Labels{{"__name__", name},
                      {"node", "n1"},
                      {"gpu", std::to_string(gpu)},
                      {"gpu_uuid", "GPU-" + std::to_string(gpu)},
                      {"cloud", "aws"},
                      {"region", "us-east-1"},
                      {"model", "h100-sxm"}};
    for (const auto& [k, v] : extra) s.labels.Set(k, v);
    store.push_back(s);
    return store.size() - 1;
  };
  for (int gpu = 0; gpu < 2; ++gpu) {
    size_t up = series("gpu_up", gpu, {});
    size_t util = series("gpu_utilization_ratio", gpu, {});
    size_t bw = series("gpu_memory_bandwidth_utilization_ratio", gpu, {});
    size_t energy = series("gpu_energy_joules_total", gpu, {});
    size_t info = gpu == 0 ? series("gpu_workload_info", 0,
                                    {{"workload_namespace", "research"},
                                     {"workload_pod", "train-0"},
                                     {"workload_container", "c"}})
                           : series("gpu_workload_info", 1, {{"workload_slurm_job", "4242"}});
    double watts = gpu == 0 ? 400 : 90;
    for (int64_t t = kT0; t < kT0 + 7200; t += 15) {
      int64_t ms = t * 1000;
      bool held = gpu == 0 || t >= kT0 + 3600;
      store[up].samples.push_back({ms, 1});
      store[util].samples.push_back({ms, held ? 0.7 : 0.0});
      store[bw].samples.push_back({ms, held ? 0.5 : 0.0});
      store[energy].samples.push_back({ms, watts * static_cast<double>(t - kT0)});
      if (held) store[info].samples.push_back({ms, 1});
    }
  }
  return store;
}

// Answers "{__name__="X"}[Ns]" at time T as an engine does: the samples in (T - N, T].
StatusOr<HttpResponse> Answer(const Store& store, const RecordedHttpRequest& req) {
  const std::string& url = req.url;
  size_t q = url.find("%22"), q2 = url.find("%22", q + 3);
  std::string name = url.substr(q + 3, q2 - q - 3);
  size_t r = url.find("%5B"), rs = url.find("s%5D");
  int64_t range_ms = std::atoll(url.substr(r + 3, rs - r - 3).c_str()) * 1000;
  int64_t time_ms = static_cast<int64_t>(std::atof(url.substr(url.find("&time=") + 6).c_str()) * 1000 + 0.5);
  std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  bool first_series = true;
  for (const RemoteWriteSeries& s : store) {
    if (s.labels.Get("__name__") != name) continue;
    std::string values;
    for (const RemoteWriteSample& p : s.samples) {
      if (p.timestamp_ms <= time_ms - range_ms || p.timestamp_ms > time_ms) continue;
      values += (values.empty() ? "[" : ",[") + std::to_string(p.timestamp_ms / 1000) + "." +
                std::to_string(1000 + p.timestamp_ms % 1000).substr(1) + ",\"" +
                std::to_string(p.value) + "\"]";
    }
    if (values.empty()) continue;
    std::string metric;
    for (const auto& [k, v] : s.labels.pairs()) {
      metric += (metric.empty() ? "\"" : ",\"") + k + "\":\"" + v + "\"";
    }
    body += (first_series ? "" : ",") + std::string("{\"metric\":{") + metric + "},\"values\":[" +
            values + "]}";
    first_series = false;
  }
  body += "]}}";
  HttpResponse res;
  res.status = 200;
  res.body = body;
  return res;
}

struct Ledger {
  explicit Ledger(const std::string& name) {
    std::string path = ::testing::TempDir() + name;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    auto db = StateDb::Open(path, CostMigrations());
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    state = std::move(*db);
    meter = std::make_unique<Meter>(state.get());
  }
  std::vector<DeviceMinute> Minutes(int64_t from, int64_t to) {
    std::vector<DeviceMinute> out;
    EXPECT_TRUE(meter->Scan(from, to, [&](const DeviceMinute& m) { out.push_back(m); }).ok());
    return out;
  }
  std::unique_ptr<StateDb> state;
  std::unique_ptr<Meter> meter;
};

TEST(StoreReplayTest, ReplayMetersWhatIngestMetered) {
  Store store = Fleet();
  Ledger ingest("replay_ingest.db");
  // At ingest the server sees one scrape of every series per write.
  for (int64_t t = kT0; t < kT0 + 7200; t += 15) {
    std::vector<RemoteWriteSeries> write;
    for (const RemoteWriteSeries& s : store) {
      RemoteWriteSeries one{s.labels, {}};
      for (const RemoteWriteSample& p : s.samples) {
        if (p.timestamp_ms == t * 1000) one.samples.push_back(p);
      }
      if (!one.samples.empty()) write.push_back(one);
    }
    ASSERT_TRUE(ingest.meter->Record(write).ok());
  }
  FakeHttpClient client([&](const RecordedHttpRequest& r) { return Answer(store, r); });
  Ledger replay("replay_replay.db");
  // 25-minute chunks: boundaries fall between and on scrape times.
  auto stats = ReplayFromStore(client, "http://vm:8428/", kT0, kT0 + 7200, *replay.meter, 1500);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->queries, 5 * 6);  // 5 chunks x 6 metered names
  EXPECT_EQ(stats->samples, 2 * 480 * 4 + 480 + 240);
  EXPECT_EQ(client.requests()[0].url.rfind("http://vm:8428/api/v1/query?query=%7B__name__%3D", 0),
            0u);

  std::vector<DeviceMinute> want = ingest.Minutes(kT0, kT0 + 7200);
  std::vector<DeviceMinute> got = replay.Minutes(kT0, kT0 + 7200);
  ASSERT_EQ(want.size(), 2u * 120);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].minute_s, want[i].minute_s);
    EXPECT_DOUBLE_EQ(got[i].util_mean, want[i].util_mean);
    EXPECT_DOUBLE_EQ(got[i].bw_mean, want[i].bw_mean);
    // Energy per minute: 60 s x the power, on both sides (the first
    // minute has 45 s: the counter's first sample has no predecessor).
    EXPECT_NEAR(got[i].energy_j, want[i].energy_j, 1e-6);
    EXPECT_EQ(got[i].holders.size(), want[i].holders.size());
  }
  // GPU 1 was unheld in its first hour and held in its second.
  EXPECT_TRUE(got[120].holders.empty());
  EXPECT_EQ(got[239].holders.size(), 1u);
  EXPECT_NEAR(got[1].energy_j, 400.0 * 60, 1e-6);
}

TEST(StoreReplayTest, EngineErrorsNameTheQuery) {
  FakeHttpClient client([](const RecordedHttpRequest&) -> StatusOr<HttpResponse> {
    HttpResponse res;
    res.status = 422;
    res.body = R"({"status":"error","errorType":"execution","error":"query processing would load too many samples"})";
    return res;
  });
  Ledger replay("replay_errors.db");
  auto stats = ReplayFromStore(client, "http://prom:9090", kT0, kT0 + 60, *replay.meter);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("http://prom:9090/api/v1/query?query="),
            std::string::npos);
  EXPECT_NE(stats.status().message().find("too many samples"), std::string::npos);

  FakeHttpClient html([](const RecordedHttpRequest&) -> StatusOr<HttpResponse> {
    HttpResponse res;
    res.status = 404;
    res.body = "<html>not found</html>";
    return res;
  });
  stats = ReplayFromStore(html, "http://prom:9090", kT0, kT0 + 60, *replay.meter);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("malformed JSON at byte"), std::string::npos);
  EXPECT_FALSE(ReplayFromStore(html, "http://prom:9090", kT0, kT0, *replay.meter).ok());
  EXPECT_FALSE(ReplayFromStore(html, "ftp://prom", kT0, kT0 + 60, *replay.meter).ok());
}

}  // namespace
}  // namespace gpufleet::cost
