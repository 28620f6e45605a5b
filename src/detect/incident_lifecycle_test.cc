#include "detect/incident_lifecycle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "detect/incident_store.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;

Finding Contention(const std::string& gpu, const std::string& kind = kKindMemoryContention) {
  Finding f;
  f.kind = kind;
  f.key = kind + "/n1/" + gpu;
  f.subject = Labels{{"node", "n1"}, {"gpu", gpu}};
  f.devices = {"n1/" + gpu};
  f.team = "platform";
  f.severity = "warning";
  f.summary = "contention on n1/" + gpu;
  return f;
}

IncidentRecord CanaryFailure(const std::string& node) {
  IncidentRecord r;
  r.kind = std::string(kCanaryIncidentKind);
  r.dedup_key = CanaryIncidentKey(node, "model=h100", "gemm.bf16@8192");
  r.team = "platform";
  r.severity = "warning";
  return r;
}

// Every test runs on both books: the evaluation's (memory) and the
// server's (SQLite), which must agree.
class IncidentLifecycleTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!GetParam()) {
      book_ = NewMemoryIncidentBook();
      return;
    }
    path_ = (std::filesystem::temp_directory_path() /
             ("gpufleet_lifecycle_" + std::to_string(getpid()) + ".db"))
                .string();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + s);
    StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path_, IncidentMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    book_ = std::make_unique<IncidentStore>(db_.get());
  }
  void TearDown() override {
    book_.reset();
    db_.reset();
    if (!path_.empty()) {
      for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + s);
    }
  }

  std::vector<IncidentRecord> All() {
    StatusOr<std::vector<IncidentRecord>> all = book_->List(std::nullopt);
    EXPECT_TRUE(all.ok());
    return all.ok() ? *all : std::vector<IncidentRecord>{};
  }

  std::string path_;
  std::unique_ptr<StateDb> db_;
  std::unique_ptr<IncidentBook> book_;
};

TEST_P(IncidentLifecycleTest, FirstFindingOpensAndRepeatsUpdate) {
  IncidentLifecycle life(*book_);
  LifecycleStep s1 = life.Step({Contention("3")}, 100 * kS);
  ASSERT_TRUE(s1.first_error.ok()) << s1.first_error.ToString();
  ASSERT_EQ(s1.observed.size(), 1u);
  EXPECT_TRUE(s1.observed[0].created);
  Finding again = Contention("3");
  again.devices = {"n1/3", "n1/4"};
  again.severity = "critical";
  LifecycleStep s2 = life.Step({again}, 110 * kS);
  EXPECT_FALSE(s2.observed[0].created);
  EXPECT_EQ(s2.observed[0].id, s1.observed[0].id);
  std::optional<IncidentRecord> r = *book_->Get(s1.observed[0].id);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, IncidentStatus::kOpen);
  EXPECT_EQ(r->first_seen_ns, 100 * kS);
  EXPECT_EQ(r->last_seen_ns, 110 * kS);
  EXPECT_EQ(r->observations, 2);
  EXPECT_EQ(r->severity, "critical");
  EXPECT_EQ(r->devices, (std::vector<std::string>{"n1/3", "n1/4"}));
}

// The incident keeps its worst estimate and the causes seen then: a finding
// held on after its episode compares against a reference the episode has
// entered and estimates less, with nothing risen.
TEST_P(IncidentLifecycleTest, KeepsTheWorstSlowdownAndItsCauses) {
  IncidentLifecycle life(*book_);
  auto with = [](double slowdown, const char* cause) {
    Finding f = Contention("3");
    f.estimated_slowdown = slowdown;
    if (cause != nullptr) f.causes = {CauseShare{cause, 1, std::string(cause) + " explains all"}};
    return f;
  };
  LifecycleStep s1 = life.Step({with(0.3, "coherency")}, 100 * kS);
  ASSERT_EQ(s1.observed.size(), 1u);
  life.Step({with(0.05, nullptr)}, 110 * kS);
  life.Step({with(0.1, "memory_pressure")}, 120 * kS);
  std::optional<IncidentRecord> r = *book_->Get(s1.observed[0].id);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->estimated_slowdown, 0.3);
  ASSERT_EQ(r->causes.size(), 1u);
  EXPECT_EQ(r->causes[0].name, "coherency");
  life.Step({with(0.4, "bandwidth_saturation")}, 130 * kS);
  r = *book_->Get(s1.observed[0].id);
  EXPECT_DOUBLE_EQ(r->estimated_slowdown, 0.4);
  EXPECT_EQ(r->causes[0].name, "bandwidth_saturation");
}

TEST_P(IncidentLifecycleTest, ResolvesOnlyAfterResolveAfterOfAbsence) {
  LifecyclePolicy policy;
  policy.resolve_after_ns = 120 * kS;
  IncidentLifecycle life(*book_, policy);
  int64_t id = life.Step({Contention("3")}, 100 * kS).observed[0].id;
  // Absent for exactly resolve_after: still open (strictly more is needed).
  EXPECT_TRUE(life.Step({}, 220 * kS).resolved.empty());
  LifecycleStep s = life.Step({}, 230 * kS);
  ASSERT_EQ(s.resolved.size(), 1u);
  EXPECT_EQ(s.resolved[0].id, id);
  EXPECT_EQ(s.resolved[0].status, IncidentStatus::kResolved);
  EXPECT_EQ(s.resolved[0].resolved_at_ns, 230 * kS);
  EXPECT_EQ(*book_->CountOpen(), 0);
}

TEST_P(IncidentLifecycleTest, ReturnBeforeResolveAfterKeepsTheIncident) {
  IncidentLifecycle life(*book_);  // the server's default, 120 s
  int64_t id = life.Step({Contention("3")}, 0).observed[0].id;
  for (int64_t t = 10; t <= 120; t += 10) EXPECT_TRUE(life.Step({}, t * kS).resolved.empty());
  // Seen again 130 s later, at the step that would have resolved it: the
  // observation comes first, so it is the same incident.
  LifecycleStep s = life.Step({Contention("3")}, 130 * kS);
  EXPECT_FALSE(s.observed[0].created);
  EXPECT_EQ(s.observed[0].id, id);
  EXPECT_TRUE(s.resolved.empty());
  EXPECT_EQ(All().size(), 1u);
}

TEST_P(IncidentLifecycleTest, FindingAfterResolveOpensANewIncident) {
  IncidentLifecycle life(*book_);
  int64_t first = life.Step({Contention("3")}, 0).observed[0].id;
  ASSERT_EQ(life.Step({}, 200 * kS).resolved.size(), 1u);
  LifecycleStep s = life.Step({Contention("3")}, 210 * kS);
  EXPECT_TRUE(s.observed[0].created);
  EXPECT_NE(s.observed[0].id, first);
  std::optional<IncidentRecord> old = *book_->Get(first);
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->status, IncidentStatus::kResolved);  // history does not change
  EXPECT_EQ(old->last_seen_ns, 0);
  EXPECT_EQ(All().size(), 2u);
}

TEST_P(IncidentLifecycleTest, DedupKeysSeparateIncidentsAndKeylessFindingsAreIgnored) {
  IncidentLifecycle life(*book_);
  Finding keyless = Contention("5");
  keyless.key.clear();
  LifecycleStep s =
      life.Step({Contention("3"), Contention("4"), Contention("3", kKindSustained), keyless}, 0);
  ASSERT_EQ(s.observed.size(), 4u);
  EXPECT_TRUE(s.observed[0].created);
  EXPECT_TRUE(s.observed[1].created);
  EXPECT_TRUE(s.observed[2].created);  // same device, another rule: another key
  EXPECT_EQ(s.observed[3].id, 0);
  EXPECT_EQ(*book_->CountOpen(), 3);
  // Only the one that stays absent resolves.
  life.Step({Contention("3"), Contention("3", kKindSustained)}, 100 * kS);
  LifecycleStep later = life.Step({Contention("3"), Contention("3", kKindSustained)}, 200 * kS);
  ASSERT_EQ(later.resolved.size(), 1u);
  EXPECT_EQ(later.resolved[0].dedup_key, "memory_contention/n1/4");
}

TEST_P(IncidentLifecycleTest, CanaryIncidentsResolveOnPassNotOnAbsence) {
  IncidentLifecycle life(*book_);
  EXPECT_EQ(life.policy().PolicyOf(kCanaryIncidentKind), ResolvePolicy::kOnPass);
  EXPECT_EQ(life.policy().PolicyOf(kKindMemoryContention), ResolvePolicy::kOnAbsence);
  StatusOr<UpsertResult> up = life.Observe(CanaryFailure("gpu-node-17"), 0);
  ASSERT_TRUE(up.ok() && up->created);
  EXPECT_FALSE(life.Observe(CanaryFailure("gpu-node-17"), 60 * kS)->created);
  // Hours without a push: absence does not resolve it.
  EXPECT_TRUE(life.Step({}, 10'000 * kS).resolved.empty());
  const std::string key = CanaryIncidentKey("gpu-node-17", "model=h100", "gemm.bf16@8192");
  StatusOr<std::optional<IncidentRecord>> done = life.ResolvePassed(key, 10'010 * kS);
  ASSERT_TRUE(done.ok() && done->has_value());
  EXPECT_EQ((*done)->id, up->id);
  EXPECT_EQ((*done)->resolved_at_ns, 10'010 * kS);
  // A second pass finds nothing open; a new failure opens a new incident.
  EXPECT_FALSE(life.ResolvePassed(key, 10'020 * kS)->has_value());
  EXPECT_TRUE(life.Observe(CanaryFailure("gpu-node-17"), 10'030 * kS)->created);
}

INSTANTIATE_TEST_SUITE_P(Books, IncidentLifecycleTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? std::string("Sqlite") : std::string("Memory");
                         });

TEST(CanaryPolicyTest, VerdictEffects) {
  EXPECT_EQ(CanaryVerdictEffectOf("regression"), CanaryVerdictEffect::kObserve);
  EXPECT_EQ(CanaryVerdictEffectOf("fail"), CanaryVerdictEffect::kObserve);
  EXPECT_EQ(CanaryVerdictEffectOf("pass"), CanaryVerdictEffect::kResolve);
  EXPECT_EQ(CanaryVerdictEffectOf("inconclusive"), CanaryVerdictEffect::kNone);
  EXPECT_EQ(CanaryVerdictEffectOf("no baseline"), CanaryVerdictEffect::kNone);
  EXPECT_EQ(CanaryIncidentKey("n", "t", "b"), "canary_regression|n|t|b");
}

TEST(IncidentFromFindingTest, CarriesKeyWindowCausesAndEvidence) {
  Finding f = Contention("3");
  f.window_start_ns = 5;
  f.window_end_ns = 9;
  f.causes = {{"memory_pressure", 0.7, "why"}};
  f.evidence = {{"s", "> 0.85 for 2m", 0.85, 0.9, 1796446636230000000}};
  IncidentRecord r = IncidentFromFinding(f);
  EXPECT_EQ(r.dedup_key, f.key);
  EXPECT_EQ(r.kind, f.kind);
  EXPECT_EQ(r.window_start_ns, 5);
  EXPECT_EQ(r.window_end_ns, 9);
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes[0].name, "memory_pressure");
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].detail, "since 2026-12-05T04:57:16Z");
}

}  // namespace
}  // namespace gpufleet::detect
