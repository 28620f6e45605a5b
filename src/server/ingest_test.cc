#include "server/ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "cost/meter.h"
#include "net/fake_http_client.h"
#include "store/state_db.h"

namespace gpufleet {
namespace {

RemoteWriteSeries Series(std::string name, std::string gpu, int64_t ts_ms, double value) {
  RemoteWriteSeries s;
  s.labels = Labels{{"__name__", std::move(name)}, {"node", "n1"},   {"gpu", std::move(gpu)},
                    {"gpu_uuid", "GPU-a"},         {"cloud", "aws"}, {"model", "h100-sxm"}};
  s.samples.push_back({ts_ms, value});
  return s;
}

std::vector<WindowPoint> Points(const WindowStore& store, std::string_view metric,
                                size_t* series = nullptr) {
  std::vector<WindowPoint> out;
  size_t n = 0;
  store.ForEach(metric, 0, INT64_MAX, [&](const StoredLabels&, std::span<const WindowPoint> p) {
    ++n;
    out.insert(out.end(), p.begin(), p.end());
  });
  if (series != nullptr) *series = n;
  return out;
}

class IngestTest : public ::testing::Test {
 protected:
  IngestTest() : window_(WindowStoreOptions{}) {}
  WindowStore window_;
  FakeClock clock_;
};

// The second write of a series finds it held (the short path: its labels
// are compared with the stored ones, not checked and copied again); its
// points must land on the same series, in order, out-of-order ones counted.
TEST_F(IngestTest, HeldSeriesAppendToTheSeriesTheyMatch) {
  Ingester ingester(window_, nullptr, nullptr, clock_);
  for (int round = 0; round < 3; ++round) {
    RemoteWriteRequest r{{Series("gpu_temperature_celsius", "0", 1000 + round * 1000, 40 + round),
                          Series("gpu_temperature_celsius", "1", 1000 + round * 1000, 50)}};
    IngestResult res = ingester.IngestRemoteWrite(EncodeRemoteWrite(r));
    ASSERT_TRUE(res.status.ok()) << res.status.ToString();
    EXPECT_EQ(res.samples_accepted, 2u);
  }
  // A sample older than its series' newest, through the short path.
  RemoteWriteRequest old{{Series("gpu_temperature_celsius", "0", 1500, 99)}};
  IngestResult res = ingester.IngestRemoteWrite(EncodeRemoteWrite(old));
  EXPECT_EQ(res.samples_accepted, 0u);
  EXPECT_EQ(res.samples_rejected, 1u);
  // One label differs: a new series, not a held one.
  RemoteWriteSeries other = Series("gpu_temperature_celsius", "0", 5000, 7);
  other.labels.Set("model", "mi300x");
  RemoteWriteRequest with_other{{other}};
  EXPECT_TRUE(ingester.IngestRemoteWrite(EncodeRemoteWrite(with_other)).status.ok());

  size_t series = 0;
  std::vector<WindowPoint> pts = Points(window_, "gpu_temperature_celsius", &series);
  EXPECT_EQ(series, 3u);
  EXPECT_EQ(pts.size(), 7u);
  window_.ForEach("gpu_temperature_celsius", 0, INT64_MAX,
                  [&](const StoredLabels& l, std::span<const WindowPoint> p) {
                    if (l.Get("gpu") != "0" || l.Get("model") != "h100-sxm") return;
                    ASSERT_EQ(p.size(), 3u);
                    EXPECT_EQ(p[0].timestamp_ns, 1000 * kNsPerMs);
                    EXPECT_EQ(p[2].value, 42);
                  });
  IngestCounters c = ingester.counters();
  EXPECT_EQ(c.samples_accepted, 7u);
  EXPECT_EQ(c.samples_rejected, 1u);
}

// Series the cost meter reads take the full path, held or not: every
// write of them is metered.
TEST_F(IngestTest, MeteredSeriesAreMeteredEveryWrite) {
  const std::string path = ::testing::TempDir() + "ingest_test_meter.db";
  std::filesystem::remove(path);
  auto db = StateDb::Open(path, cost::CostMigrations());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  cost::Meter meter(db->get());
  Ingester ingester(window_, nullptr, nullptr, clock_, {}, &meter);
  for (int round = 0; round < 3; ++round) {
    RemoteWriteRequest r{{Series("gpu_up", "0", 60000 + round * 10000, 1),
                          Series("gpu_temperature_celsius", "0", 60000 + round * 10000, 40)}};
    ASSERT_TRUE(ingester.IngestRemoteWrite(EncodeRemoteWrite(r)).status.ok());
  }
  EXPECT_EQ(meter.counters().samples_metered, 3u);
  EXPECT_EQ(Points(window_, "gpu_up").size(), 3u);
  EXPECT_EQ(Points(window_, "gpu_temperature_celsius").size(), 3u);
}

// A batch with an invalid series is forwarded re-encoded, without it; the
// series the store already held (not decoded into the request) are in it.
TEST_F(IngestTest, ForwardsHeldSeriesWhenTheBatchHadInvalidOnes) {
  FakeHttpClient client;
  ForwarderOptions options;
  options.url = "http://127.0.0.1:1/api/v1/write";
  options.queue_dir = ::testing::TempDir() + "ingest_test_queue";
  std::filesystem::remove_all(options.queue_dir);
  options.client = &client;
  auto forwarder = RemoteWriteForwarder::Start(options);
  ASSERT_TRUE(forwarder.ok()) << forwarder.status().ToString();
  Ingester ingester(window_, nullptr, forwarder->get(), clock_);
  RemoteWriteRequest first{{Series("gpu_temperature_celsius", "0", 1000, 40)}};
  ASSERT_TRUE(ingester.IngestRemoteWrite(EncodeRemoteWrite(first)).status.ok());

  RemoteWriteSeries bad = Series("gpu_power_watts", "0", 2000, 300);
  bad.labels.Set("1bad", "x");  // an invalid label name
  RemoteWriteRequest mixed{{Series("gpu_temperature_celsius", "0", 2000, 41), bad,
                            Series("gpu_power_watts", "1", 2000, 200)}};
  IngestResult res = ingester.IngestRemoteWrite(EncodeRemoteWrite(mixed));
  EXPECT_FALSE(res.status.ok());
  EXPECT_EQ(res.samples_accepted, 2u);

  for (int i = 0; i < 500 && (*forwarder)->stats().sent_batches < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  (*forwarder)->Stop();
  std::vector<RecordedHttpRequest> sent = client.requests();
  ASSERT_EQ(sent.size(), 2u);
  auto forwarded = DecodeRemoteWrite(sent[1].body, {}, nullptr);
  ASSERT_TRUE(forwarded.ok()) << forwarded.status().ToString();
  ASSERT_EQ(forwarded->series.size(), 2u);
  EXPECT_EQ(forwarded->series[0].labels.Get("__name__"), "gpu_temperature_celsius");
  EXPECT_EQ(forwarded->series[0].samples[0].value, 41);
  EXPECT_EQ(forwarded->series[1].labels.Get("gpu"), "1");
}

}  // namespace
}  // namespace gpufleet
