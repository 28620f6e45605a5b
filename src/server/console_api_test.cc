// The console's APIs over HTTP: answers, and a clear 4xx for bad input.
#include "server/console_api.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "place/inventory_store.h"
#include "server/http_api.h"

namespace gpufleet {
namespace {

using nlohmann::json;

class ConsoleApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = (std::filesystem::temp_directory_path() /
                ("gpufleet_console_api_" + std::to_string(getpid()) + ".db"))
                   .string();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
    std::vector<Migration> m = detect::IncidentMigrations();
    for (const Migration& x : InventoryMigrations()) m.push_back(x);
    for (const Migration& x : CanaryRunMigrations()) m.push_back(x);
    for (auto* db : {&db_, &db2_, &db3_}) {
      auto opened = StateDb::Open(db_path_, m);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      *db = std::move(*opened);
    }
    incidents_ = std::make_unique<detect::IncidentStore>(db_.get());
    inventory_ = std::make_unique<InventoryStore>(db2_.get());
    runs_ = std::make_unique<CanaryRuns>(db3_.get());
    window_ = std::make_unique<WindowStore>(WindowStoreOptions{});
    ingester_ = std::make_unique<Ingester>(*window_, inventory_.get(), nullptr, clock_);

    // Device GPU-1 with a bandwidth series around an open contention incident.
    const int64_t now = clock_.NowNs();
    Labels l{{"__name__", "gpu_memory_bandwidth_utilization_ratio"},
             {"node", "n1"},
             {"gpu_uuid", "GPU-1"},
             {"vendor", "nvidia"},
             {"model", "h100"}};
    for (int i = 0; i < 30; ++i) window_->Append(l, now - (30 - i) * kNsPerSecond, 0.5 + i * 0.01);
    l.Set("__name__", "gpu_up");
    window_->Append(l, now - kNsPerSecond, 1);
    detect::IncidentRecord r;
    r.dedup_key = "memory_contention/n1/GPU-1";
    r.kind = "memory_contention";
    r.team = "research";
    r.subject.Set("node", "n1");
    r.devices = {"GPU-1"};
    r.window_start_ns = now - 20 * kNsPerSecond;
    r.window_end_ns = now - 5 * kNsPerSecond;
    r.evidence.push_back({R"(gpu_memory_bandwidth_utilization_ratio{gpu_uuid="GPU-1",node="n1"})",
                          "> 0.6 for 10s", 0.6, 0.78, ""});
    r.evidence.push_back({"contention_evidence", "neighbour on the device: workloads w", 0, 0, ""});
    auto up = incidents_->Upsert(r, now);
    ASSERT_TRUE(up.ok());
    id_ = up->id;
  }
  void TearDown() override {
    if (api_ != nullptr) api_->Stop();
    api_.reset();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
  }
  void Start(const std::string& token = "", const std::string& capture_dir = "") {
    HttpApiBackend b;
    b.console.capture_output_dir = capture_dir;
    b.ingester = ingester_.get();
    b.incidents = incidents_.get();
    b.inventory = inventory_.get();
    b.console.window = window_.get();
    b.console.canary_runs = runs_.get();
    b.console.incident_cost = [](const detect::IncidentRecord&) { return 1.25; };
    HttpApiOptions o;
    o.token = token;
    api_ = std::make_unique<HttpApi>(o, b, clock_);
    ASSERT_TRUE(api_->Start("127.0.0.1", 0).ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", api_->port());
  }
  // (status, parsed body)
  std::pair<int, json> Get(const std::string& path) {
    auto res = client_->Get(path);
    if (!res) return {0, nullptr};
    return {res->status, json::parse(res->body, nullptr, false)};
  }
  std::pair<int, json> Post(const std::string& path, const std::string& token = "") {
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    auto res = client_->Post(path, h, "", "application/json");
    if (!res) return {0, nullptr};
    return {res->status, json::parse(res->body, nullptr, false)};
  }

  FakeClock clock_;
  std::string db_path_;
  std::unique_ptr<StateDb> db_, db2_, db3_;
  std::unique_ptr<detect::IncidentStore> incidents_;
  std::unique_ptr<InventoryStore> inventory_;
  std::unique_ptr<CanaryRuns> runs_;
  std::unique_ptr<WindowStore> window_;
  std::unique_ptr<Ingester> ingester_;
  std::unique_ptr<HttpApi> api_;
  std::unique_ptr<httplib::Client> client_;
  int64_t id_ = 0;
};

TEST_F(ConsoleApiTest, FleetSeriesAndSchemaAnswer) {
  Start();
  auto [fs, fleet] = Get("/api/v1/fleet?vendor=nvidia");
  ASSERT_EQ(fs, 200);
  ASSERT_EQ(fleet["devices"].size(), 1u);
  EXPECT_EQ(fleet["devices"][0]["open_incidents"], 1);
  EXPECT_EQ(fleet["counts"]["up"], 1);
  auto [ss, series] =
      Get("/api/v1/series?metric=gpu_memory_bandwidth_utilization_ratio&from=-30s&step=10s");
  ASSERT_EQ(ss, 200);
  EXPECT_EQ(series["unit"], "ratio");
  EXPECT_EQ(series["source"], "window");
  ASSERT_EQ(series["series"].size(), 1u);
  EXPECT_EQ(series["series"][0]["v"].size(), 4u);
  auto [cs, schema] = Get("/api/v1/schema");
  ASSERT_EQ(cs, 200);
  bool found = false;
  for (const json& m : schema["metrics"]) found |= m["name"] == "gpu_sm_occupancy_ratio";
  EXPECT_TRUE(found);
}

TEST_F(ConsoleApiTest, BadInputGetsA400NamingTheParameter) {
  Start();
  struct Case {
    const char* path;
    const char* param;
  };
  for (Case c : {Case{"/api/v1/series", "metric"}, Case{"/api/v1/series?metric=nope", "metric"},
                 Case{"/api/v1/series?metric=gpu_up&from=soon", "from"},
                 Case{"/api/v1/series?metric=gpu_up&from=now&to=-1h", "from"},
                 Case{"/api/v1/series?metric=gpu_up&step=-1s", "step"},
                 Case{"/api/v1/series?metric=gpu_up&from=-400d&step=1s", "step"},
                 Case{"/api/v1/series?metric=gpu_up&limit=99999999", "limit"},
                 Case{"/api/v1/series?metric=gpu_up&aggregate=pod", "aggregate"},
                 Case{"/api/v1/incidents?limit=10001", "limit"},
                 Case{"/api/v1/incidents?status=maybe", "status"},
                 Case{"/api/v1/canary/runs?limit=1001", "limit"},
                 Case{"/api/v1/canary/runs?limit=0", "limit"},
                 Case{"/api/v1/canary/runs?latest=image", "latest"}}) {
    auto [status, body] = Get(c.path);
    EXPECT_EQ(status, 400) << c.path;
    ASSERT_TRUE(body.is_object()) << c.path;
    EXPECT_EQ(body["error"].get<std::string>().rfind(std::string(c.param) + ":", 0), 0u)
        << c.path << " -> " << body.dump();
  }
  EXPECT_EQ(Get("/api/v1/incidents/999999").first, 404);
  EXPECT_EQ(Get("/api/v1/incidents/99999999999999999999999").first, 400);
  EXPECT_EQ(Post("/api/v1/incidents/999999/ack").first, 404);
}

TEST_F(ConsoleApiTest, IncidentFiltersDetailAndEvidenceSamples) {
  Start();
  EXPECT_EQ(Get("/api/v1/incidents?kind=memory_contention").second["data"].size(), 1u);
  EXPECT_EQ(Get("/api/v1/incidents?kind=variance").second["data"].size(), 0u);
  EXPECT_EQ(Get("/api/v1/incidents?node=n1&team=research").second["data"].size(), 1u);
  EXPECT_EQ(Get("/api/v1/incidents?node=n2").second["data"].size(), 0u);
  auto [status, body] = Get("/api/v1/incidents/" + std::to_string(id_));
  ASSERT_EQ(status, 200);
  const json& inc = body["data"];
  EXPECT_DOUBLE_EQ(inc["cost_usd"].get<double>(), 1.25);
  EXPECT_EQ(inc["acknowledged"], false);
  const json& ev = inc["evidence"][0];
  EXPECT_DOUBLE_EQ(ev["threshold"].get<double>(), 0.6);
  EXPECT_EQ(ev["samples"]["source"], "window");
  EXPECT_EQ(ev["samples"]["t"].size(), 30u);
  EXPECT_EQ(ev["samples"]["v"].size(), 30u);
  EXPECT_LT(ev["window"]["from"].get<double>(), ev["window"]["to"].get<double>());
  // A finding's text, not a series: marked so the console shows it as text.
  const json& text = inc["evidence"][1];
  EXPECT_EQ(text["samples"]["source"], "not_a_series");
  EXPECT_TRUE(text["samples"]["t"].empty());
}

TEST_F(ConsoleApiTest, AckAndResolveNeedTheAdminToken) {
  Start("s3cret");
  std::string base = "/api/v1/incidents/" + std::to_string(id_);
  EXPECT_EQ(Post(base + "/ack").first, 401);
  EXPECT_EQ(Post(base + "/resolve", "wrong").first, 401);
  auto [as, acked] = Post(base + "/ack", "s3cret");
  ASSERT_EQ(as, 200);
  EXPECT_EQ(acked["data"]["acknowledged"], true);
  EXPECT_EQ(acked["data"]["status"], "open");
  auto [rs, resolved] = Post(base + "/resolve", "s3cret");
  ASSERT_EQ(rs, 200);
  EXPECT_EQ(resolved["data"]["status"], "resolved");
  EXPECT_EQ(resolved["data"]["acknowledged"], true);
  // Resolving again changes nothing.
  EXPECT_EQ(Post(base + "/resolve", "s3cret").second["data"]["resolved_at"],
            resolved["data"]["resolved_at"]);
}

TEST_F(ConsoleApiTest, CanaryPushesAreKeptAsRuns) {
  Start();
  auto res = client_->Post("/api/v1/canary",
                           R"({"node":"n1","checks":[{"target":"model=h100","benchmark":"gemm",
                               "verdict":"pass","median":1,"baseline_median":1}]})",
                           "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto [status, runs] = Get("/api/v1/canary/runs?target=n1");
  ASSERT_EQ(status, 200);
  ASSERT_EQ(runs["runs"].size(), 1u);
  EXPECT_EQ(runs["runs"][0]["verdict"], "pass");
}

// A capture's files are listed and served, byte for byte, and nothing else:
// not another file of the directory, not an unknown incident or one without
// a capture.
TEST_F(ConsoleApiTest, CaptureFilesAreListedAndServed) {
  StatusOr<ScratchDir> scratch = ScratchDir::Create("gpufleet-capture-api");
  ASSERT_TRUE(scratch.ok());
  const std::string dir = scratch->path();
  const std::string base = "incident-" + std::to_string(id_) + "-n1-gpu0";
  std::string big(300 * 1024, '\0');  // several chunks, binary
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 % 251);
  std::ofstream(dir + "/" + base + ".nsys-rep", std::ios::binary) << big;
  std::ofstream(dir + "/" + base + ".log") << "nsys: done\n";
  std::ofstream(dir + "/secret.txt") << "not a capture";
  ASSERT_TRUE(incidents_->SetCapturePath(id_, dir + "/" + base).ok());
  Start("", dir);

  const std::string path = "/api/v1/incidents/" + std::to_string(id_) + "/capture";
  auto [ls, list] = Get(path);
  ASSERT_EQ(ls, 200);
  ASSERT_EQ(list["data"]["files"].size(), 2u);
  EXPECT_EQ(list["data"]["files"][0]["name"], base + ".log");
  EXPECT_EQ(list["data"]["files"][1]["bytes"], big.size());
  auto file = client_->Get(path + "/" + base + ".nsys-rep");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->status, 200);
  EXPECT_EQ(file->body, big);
  EXPECT_NE(file->get_header_value("Content-Disposition").find(base + ".nsys-rep"),
            std::string::npos);

  EXPECT_EQ(Get(path + "/secret.txt").first, 404);
  EXPECT_EQ(Get(path + "/..%2Fsecret.txt").first, 404);
  EXPECT_EQ(Get("/api/v1/incidents/999/capture").first, 404);
  detect::IncidentRecord other;
  other.dedup_key = "memory_contention/n2/GPU-2";
  other.kind = "memory_contention";
  auto up = incidents_->Upsert(other, clock_.NowNs());
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(Get("/api/v1/incidents/" + std::to_string(up->id) + "/capture").first, 404);
}

}  // namespace
}  // namespace gpufleet
