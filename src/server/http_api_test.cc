#include "server/http_api.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "expo/remote_write.h"

namespace gpufleet {
namespace {

using nlohmann::json;

class HttpApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = (std::filesystem::temp_directory_path() /
                ("gpufleet_http_api_" + std::to_string(getpid()) + ".db"))
                   .string();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
    std::vector<Migration> migrations = detect::IncidentMigrations();
    for (const Migration& m : InventoryMigrations()) migrations.push_back(m);
    StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(db_path_, migrations);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    incidents_ = std::make_unique<detect::IncidentStore>(db_.get());
    // Inventory on its own connection, as the server does.
    StatusOr<std::unique_ptr<StateDb>> db2 = StateDb::Open(db_path_, migrations);
    ASSERT_TRUE(db2.ok());
    db2_ = std::move(*db2);
    inventory_ = std::make_unique<InventoryStore>(db2_.get());
    window_ = std::make_unique<WindowStore>(WindowStoreOptions{});
    ingester_ = std::make_unique<Ingester>(*window_, inventory_.get(), nullptr, clock_);
  }
  void TearDown() override {
    if (api_ != nullptr) api_->Stop();
    api_.reset();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
  }

  void StartApi(HttpApiOptions options) {
    HttpApiBackend b;
    b.ingester = ingester_.get();
    b.incidents = incidents_.get();
    b.inventory = inventory_.get();
    b.render_metrics = [this] {
      return "gpufleet_server_samples_ingested_total " +
             std::to_string(ingester_->counters().samples_accepted) + "\n";
    };
    api_ = std::make_unique<HttpApi>(options, b, clock_);
    ASSERT_TRUE(api_->Start("127.0.0.1", 0).ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", api_->port());
  }

  static std::string Body(const std::vector<RemoteWriteSeries>& series) {
    RemoteWriteRequest r;
    r.series = series;
    return EncodeRemoteWrite(r);
  }
  static RemoteWriteSeries Series(const std::string& name, Labels labels, double v) {
    labels.Set("__name__", name);
    return {labels, {{1'700'000'000'000, v}}};
  }

  FakeClock clock_;
  std::string db_path_;
  std::unique_ptr<StateDb> db_, db2_;
  std::unique_ptr<detect::IncidentStore> incidents_;
  std::unique_ptr<InventoryStore> inventory_;
  std::unique_ptr<WindowStore> window_;
  std::unique_ptr<Ingester> ingester_;
  std::unique_ptr<HttpApi> api_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(HttpApiTest, RemoteWriteStoresSamplesAndInventory) {
  StartApi({});
  std::string body =
      Body({Series("gpu_power_watts", {{"gpu_uuid", "GPU-1"}}, 312.5),
            Series("gpu_info", {{"gpu_uuid", "GPU-1"}, {"node", "n1"}, {"vendor", "nvidia"}}, 1)});
  httplib::Result res = client_->Post("/api/v1/write", body, "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 204);
  EXPECT_EQ(window_->stats().series, 2u);
  EXPECT_EQ(ingester_->counters().samples_accepted, 2u);
  httplib::Result inv = client_->Get("/api/v1/inventory");
  ASSERT_TRUE(inv);
  json j = json::parse(inv->body);
  ASSERT_EQ(j["data"]["devices"].size(), 1u);
  EXPECT_EQ(j["data"]["devices"][0]["key"], "GPU-1");
  EXPECT_EQ(j["data"]["nodes"][0]["name"], "n1");
}

TEST_F(HttpApiTest, MalformedBodyIs400AndCounted) {
  StartApi({});
  httplib::Result res = client_->Post("/api/v1/write", "not snappy", "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("remote write body"), std::string::npos) << res->body;
  EXPECT_EQ(ingester_->counters().requests_rejected, 1u);
  EXPECT_EQ(window_->stats().series, 0u);
}

TEST_F(HttpApiTest, InvalidSeriesIs400ButValidSeriesOfTheBatchAreKept) {
  StartApi({});
  RemoteWriteSeries bad = Series("gpu_power_watts", {{"1bad", "x"}}, 1);
  std::string body = Body({Series("gpu_power_watts", {{"gpu_uuid", "GPU-1"}}, 300), bad,
                           Series("gpu_power_watts", {{"gpu_uuid", "GPU-2"}}, 301)});
  httplib::Result res = client_->Post("/api/v1/write", body, "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("1 series rejected"), std::string::npos) << res->body;
  EXPECT_EQ(window_->stats().series, 2u);
  EXPECT_EQ(ingester_->counters().samples_rejected, 1u);
}

TEST_F(HttpApiTest, TokenProtectsWritesButNotReads) {
  HttpApiOptions o;
  o.token = "s3cret";
  StartApi(o);
  std::string body = Body({Series("gpu_power_watts", {{"gpu_uuid", "GPU-1"}}, 1)});
  httplib::Result no = client_->Post("/api/v1/write", body, "application/x-protobuf");
  ASSERT_TRUE(no);
  EXPECT_EQ(no->status, 401);
  EXPECT_EQ(window_->stats().series, 0u);
  httplib::Headers h = {{"Authorization", "Bearer s3cret"}};
  httplib::Result yes = client_->Post("/api/v1/write", h, body, "application/x-protobuf");
  ASSERT_TRUE(yes);
  EXPECT_EQ(yes->status, 204);
  httplib::Result admin = client_->Post("/api/v1/admin/detect", "", "text/plain");
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->status, 401);
  EXPECT_EQ(client_->Get("/api/v1/incidents")->status, 200);
}

// The access rule runs before every route, including ones it does not know.
TEST_F(HttpApiTest, BeyondLoopbackEveryRouteButTheExemptOnesNeedsAToken) {
  HttpApiOptions o;
  o.access = {true, {"adm1n"}, {"r3ad"}};
  StartApi(o);
  const httplib::Headers none, read = {{"Authorization", "Bearer r3ad"}},
                               admin = {{"Authorization", "Bearer adm1n"}};
  for (const char* path : {"/api/v1/incidents", "/api/v1/inventory", "/metrics",
                           "/api/v1/incidents/1", "/api/v1/not-yet-a-route"}) {
    httplib::Result res = client_->Get(path, none);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 401) << path;
    EXPECT_EQ(res->get_header_value("WWW-Authenticate"), "Bearer") << path;
    EXPECT_NE(res->body.find("\"error\""), std::string::npos) << res->body;
  }
  EXPECT_EQ(client_->Get("/api/v1/incidents", read)->status, 200);
  EXPECT_EQ(client_->Get("/api/v1/incidents", admin)->status, 200);
  EXPECT_EQ(client_->Get("/api/v1/incidents/99", read)->status, 404);  // past the rule
  EXPECT_EQ(client_->Get("/-/healthy", none)->status, 200);
  // The console's assets pass the rule (404 here: this test registers none).
  EXPECT_EQ(client_->Get("/assets/app.js", none)->status, 404);

  std::string body = Body({Series("gpu_power_watts", {{"gpu_uuid", "GPU-1"}}, 1)});
  EXPECT_EQ(client_->Post("/api/v1/write", none, body, "application/x-protobuf")->status, 401);
  EXPECT_EQ(client_->Post("/api/v1/write", read, body, "application/x-protobuf")->status, 403);
  EXPECT_EQ(window_->stats().series, 0u);
  EXPECT_EQ(client_->Post("/api/v1/write", admin, body, "application/x-protobuf")->status, 204);
  EXPECT_EQ(window_->stats().series, 1u);
  // A read-only token may ask for a placement (a computation): past the rule to the route.
  EXPECT_EQ(client_->Post("/api/v1/place", read, "{}", "application/json")->status, 404);
}

TEST_F(HttpApiTest, OnLoopbackReadsAreOpenAndAReadTokenCannotWrite) {
  HttpApiOptions o;
  o.access = {false, {"adm1n"}, {"r3ad"}};
  StartApi(o);
  EXPECT_EQ(client_->Get("/api/v1/incidents")->status, 200);
  httplib::Result res =
      client_->Post("/api/v1/admin/detect", {{"Authorization", "Bearer r3ad"}}, "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_NE(res->body.find("read-only token"), std::string::npos) << res->body;
}

TEST_F(HttpApiTest, OversizedBodyIs413) {
  HttpApiOptions o;
  o.max_body_bytes = 1024;
  StartApi(o);
  httplib::Result res =
      client_->Post("/api/v1/write", std::string(4096, 'x'), "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(ingester_->counters().requests, 0u);
}

TEST_F(HttpApiTest, RateLimitAnswers429WithRetryAfter) {
  HttpApiOptions o;
  o.rate_limit.requests_per_second = 1;
  o.rate_limit.burst = 2;
  StartApi(o);  // the FakeClock does not move: no refill
  EXPECT_EQ(client_->Get("/-/healthy")->status, 200);
  EXPECT_EQ(client_->Get("/-/healthy")->status, 200);
  httplib::Result res = client_->Get("/-/healthy");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 429);
  EXPECT_EQ(res->get_header_value("Retry-After"), "1");
}

TEST_F(HttpApiTest, ListsAndShowsIncidents) {
  detect::IncidentRecord r;
  r.dedup_key = "memory_contention/node=n1/gpu=6";
  r.kind = "memory_contention";
  r.team = "platform";
  r.evidence = {{"gpu_x", "> 0.9", 0.9, 0.95, ""}};
  int64_t id = incidents_->Upsert(r, 100)->id;
  r.dedup_key = "variance/workload=w";
  r.kind = "variance";
  ASSERT_TRUE(incidents_->Upsert(r, 100).ok());
  ASSERT_TRUE(incidents_->ResolveStale(100 + 10, 5).ok());
  StartApi({});
  json all = json::parse(client_->Get("/api/v1/incidents")->body);
  EXPECT_EQ(all["data"].size(), 2u);
  EXPECT_FALSE(all["data"][0].contains("evidence"));
  json open = json::parse(client_->Get("/api/v1/incidents?status=open")->body);
  EXPECT_EQ(open["data"].size(), 0u);
  json resolved = json::parse(client_->Get("/api/v1/incidents?status=resolved&limit=1")->body);
  EXPECT_EQ(resolved["data"].size(), 1u);
  EXPECT_EQ(client_->Get("/api/v1/incidents?status=bogus")->status, 400);
  httplib::Result one = client_->Get("/api/v1/incidents/" + std::to_string(id));
  ASSERT_TRUE(one);
  json j = json::parse(one->body);
  EXPECT_EQ(j["data"]["kind"], "memory_contention");
  EXPECT_EQ(j["data"]["status"], "resolved");
  EXPECT_EQ(j["data"]["evidence"][0]["value"], 0.95);
  EXPECT_EQ(client_->Get("/api/v1/incidents/999")->status, 404);
}

TEST_F(HttpApiTest, ServesMetricsAndReadiness) {
  StartApi({});
  httplib::Result m = client_->Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("gpufleet_server_samples_ingested_total 0"), std::string::npos);
  EXPECT_EQ(client_->Get("/-/ready")->status, 200);
  EXPECT_EQ(client_->Post("/api/v1/admin/detect", "", "text/plain")->status, 503);
}

}  // namespace
}  // namespace gpufleet
