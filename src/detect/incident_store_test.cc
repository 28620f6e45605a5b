#include "detect/incident_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace gpufleet::detect {
namespace {

std::string TempDb(const std::string& name) {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("gpufleet_incidents_" + std::to_string(getpid()) + "_" + name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + suffix);
  return p.string();
}

std::unique_ptr<StateDb> OpenDb(const std::string& path) {
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path, IncidentMigrations());
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

IncidentRecord Contention(const std::string& gpu, double slowdown) {
  IncidentRecord r;
  r.dedup_key = "memory_contention/aws-h100-0/" + gpu;
  r.kind = "memory_contention";
  r.subject = Labels{{"node", "aws-h100-0"}, {"gpu", gpu}};
  r.devices = {gpu};
  r.workloads = {"llm-pretrain"};
  r.team = "platform";
  r.severity = "warning";
  r.summary = "bandwidth saturated";
  r.estimated_slowdown = slowdown;
  r.causes = {{"neighbour_bandwidth", 0.8, "batch-etl moved in"}};
  r.evidence = {
      {"gpu_memory_bandwidth_ratio{gpu_uuid=\"" + gpu + "\"}", "> 0.9 for 300s", 0.9, 0.97, ""}};
  return r;
}

TEST(IncidentStoreTest, UpsertDeduplicatesOpenIncidents) {
  std::string path = TempDb("dedup.db");
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  StatusOr<UpsertResult> a = store.Upsert(Contention("GPU-1", 0.2), 100);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_TRUE(a->created);
  IncidentRecord again = Contention("GPU-1", 0.3);
  again.workloads = {"batch-etl"};
  again.evidence.push_back({"gpu_x", "> 1", 1, 2, "second"});
  StatusOr<UpsertResult> b = store.Upsert(again, 200);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->created);
  EXPECT_EQ(a->id, b->id);
  ASSERT_TRUE(store.Upsert(Contention("GPU-2", 0.1), 200).ok());

  StatusOr<std::vector<IncidentRecord>> open = store.List(IncidentStatus::kOpen);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2u);
  EXPECT_EQ(*store.CountOpen(), 2);
  StatusOr<std::optional<IncidentRecord>> got = store.Get(a->id);
  ASSERT_TRUE(got.ok() && got->has_value());
  const IncidentRecord& r = **got;
  EXPECT_EQ(r.first_seen_ns, 100);
  EXPECT_EQ(r.last_seen_ns, 200);
  EXPECT_EQ(r.observations, 2);
  EXPECT_DOUBLE_EQ(r.estimated_slowdown, 0.3);
  EXPECT_EQ(r.workloads, (std::vector<std::string>{"llm-pretrain", "batch-etl"}));
  EXPECT_EQ(r.evidence.size(), 2u);  // replaced by the latest observation
  EXPECT_EQ(r.evidence[1].detail, "second");
  EXPECT_EQ(r.subject.Get("gpu"), "GPU-1");
  EXPECT_EQ(r.causes, Contention("GPU-1", 0).causes);
  std::filesystem::remove(path);
}

TEST(IncidentStoreTest, ResolvesAfterAbsenceAndReopensAsNewIncident) {
  std::string path = TempDb("life.db");
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  int64_t id = store.Upsert(Contention("GPU-1", 0.2), 1000)->id;
  // Seen 400 ago, resolve after 500: still open.
  StatusOr<std::vector<IncidentRecord>> none = store.ResolveStale(1400, 500);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  StatusOr<std::vector<IncidentRecord>> resolved = store.ResolveStale(1600, 500);
  ASSERT_TRUE(resolved.ok());
  ASSERT_EQ(resolved->size(), 1u);
  EXPECT_EQ((*resolved)[0].id, id);
  EXPECT_EQ((*resolved)[0].status, IncidentStatus::kResolved);
  EXPECT_EQ((*resolved)[0].resolved_at_ns, 1600);
  EXPECT_EQ(*store.CountOpen(), 0);

  StatusOr<UpsertResult> again = store.Upsert(Contention("GPU-1", 0.2), 2000);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->created);
  EXPECT_NE(again->id, id);
  EXPECT_EQ(store.List(IncidentStatus::kResolved)->size(), 1u);
  EXPECT_EQ(store.List(std::nullopt)->size(), 2u);
  std::filesystem::remove(path);
}

TEST(IncidentStoreTest, OpenIncidentSurvivesRestartAndKeepsDeduplicating) {
  std::string path = TempDb("restart.db");
  int64_t id = 0;
  {
    std::unique_ptr<StateDb> db = OpenDb(path);
    ASSERT_NE(db, nullptr);
    IncidentStore store(db.get());
    id = store.Upsert(Contention("GPU-1", 0.2), 100)->id;
    ASSERT_TRUE(store.SetCapturePath(id, "/var/lib/gpufleet/captures/1.nsys-rep").ok());
  }
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  StatusOr<UpsertResult> up = store.Upsert(Contention("GPU-1", 0.25), 300);
  ASSERT_TRUE(up.ok());
  EXPECT_FALSE(up->created);
  EXPECT_EQ(up->id, id);
  std::optional<IncidentRecord> r = *store.Get(id);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->capture_path, "/var/lib/gpufleet/captures/1.nsys-rep");
  EXPECT_EQ(r->first_seen_ns, 100);
  std::filesystem::remove(path);
}

TEST(IncidentStoreTest, SchemaRefusesSecondOpenIncidentWithSameKey) {
  std::string path = TempDb("unique.db");
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  ASSERT_TRUE(store.Upsert(Contention("GPU-1", 0.2), 100).ok());
  Status st = db->Exec(
      "INSERT INTO incidents (dedup_key, kind, status, subject, devices, workloads, team, "
      "severity, summary, first_seen_ns, last_seen_ns, window_start_ns, window_end_ns, "
      "estimated_slowdown, causes) VALUES ('memory_contention/aws-h100-0/GPU-1', 'k', 'open', "
      "'{}', '[]', '[]', '', '', '', 1, 1, 1, 1, 0, '[]')");
  EXPECT_FALSE(st.ok());
  std::filesystem::remove(path);
}

TEST(IncidentStoreTest, SetCapturePathOnUnknownIdIsNotFound) {
  std::string path = TempDb("capture.db");
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  EXPECT_EQ(store.SetCapturePath(42, "/x").code(), StatusCode::kNotFound);
  EXPECT_FALSE(store.Get(42)->has_value());
  std::filesystem::remove(path);
}

TEST(IncidentStoreTest, CorruptJsonColumnIsDataLossNamingTheRow) {
  std::string path = TempDb("corrupt.db");
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  int64_t id = store.Upsert(Contention("GPU-1", 0.2), 100)->id;
  ASSERT_TRUE(db->Exec("UPDATE incidents SET devices = 'not json'").ok());
  StatusOr<std::optional<IncidentRecord>> got = store.Get(id);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(got.status().message().find("incidents[" + std::to_string(id) + "]"),
            std::string::npos);
  std::filesystem::remove(path);
}

TEST(IncidentStoreTest, ResolveStaleLeavesKeptKindsOpen) {
  std::string path = TempDb("keep.db");
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  int64_t contention = store.Upsert(Contention("GPU-1", 0.2), 1000)->id;
  IncidentRecord canary = Contention("GPU-2", 0.1);
  canary.kind = "canary_regression";
  canary.dedup_key = "canary_regression|n1|t|gemm";
  int64_t kept = store.Upsert(canary, 1000)->id;

  StatusOr<std::vector<IncidentRecord>> resolved =
      store.ResolveStale(5000, 500, {"canary_regression"});
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  ASSERT_EQ(resolved->size(), 1u);
  EXPECT_EQ((*resolved)[0].id, contention);
  StatusOr<std::optional<IncidentRecord>> got = store.Get(kept);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->status, IncidentStatus::kOpen);
  EXPECT_EQ(*store.CountOpen(), 1);
  // Without the exclusion the same call would have closed it too.
  resolved = store.ResolveStale(5000, 500);
  ASSERT_TRUE(resolved.ok());
  ASSERT_EQ(resolved->size(), 1u);
  EXPECT_EQ((*resolved)[0].id, kept);
  std::filesystem::remove(path);
}

TEST(IncidentStoreTest, ResolveOpenClosesOnlyTheOpenIncidentWithThatKey) {
  std::string path = TempDb("resolve_open.db");
  std::unique_ptr<StateDb> db = OpenDb(path);
  ASSERT_NE(db, nullptr);
  IncidentStore store(db.get());
  int64_t one = store.Upsert(Contention("GPU-1", 0.2), 1000)->id;
  int64_t two = store.Upsert(Contention("GPU-2", 0.2), 1000)->id;

  StatusOr<std::optional<IncidentRecord>> done =
      store.ResolveOpen(Contention("GPU-1", 0.2).dedup_key, 1500);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_TRUE(done->has_value());
  EXPECT_EQ((*done)->id, one);
  EXPECT_EQ((*done)->status, IncidentStatus::kResolved);
  EXPECT_EQ((*done)->resolved_at_ns, 1500);
  EXPECT_EQ((*done)->evidence.size(), 1u);
  EXPECT_EQ(store.Get(two)->value().status, IncidentStatus::kOpen);

  // Already resolved, or never opened: nothing to do, nothing changes.
  done = store.ResolveOpen(Contention("GPU-1", 0.2).dedup_key, 1600);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(done->has_value());
  done = store.ResolveOpen("no/such/key", 1600);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(done->has_value());
  EXPECT_EQ(store.Get(one)->value().resolved_at_ns, 1500);
  EXPECT_EQ(*store.CountOpen(), 1);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpufleet::detect
