#include "server/advise_client.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

// Shapes as GET /api/v1/fleet and GET /api/v1/cost?format=json answer
// (docs/server.md, docs/cost.md), trimmed to the fields advise reads.
constexpr char kFleet[] = R"json({"devices":[
 {"device":"n1/GPU-a","node":"n1","model":"NVIDIA H100 80GB HBM3","cloud":"aws","region":"us-east-1",
  "workload":"train,train-0","up":true,"stale":false,"open_incidents":1},
 {"device":"n1/GPU-b","node":"n1","model":"NVIDIA H100 80GB HBM3","cloud":"aws","region":"us-east-1",
  "workload":"train,train-0","up":true,"stale":false,"open_incidents":0},
 {"device":"n2/GPU-c","node":"n2","model":"AMD Instinct MI300X OAM","cloud":"azure","region":"eastus",
  "workload":"","up":true,"stale":false,"open_incidents":0},
 {"device":"n2/GPU-d","node":"n2","model":"AMD Instinct MI300X OAM","cloud":"azure","region":"eastus",
  "workload":"","up":true,"stale":true,"open_incidents":0},
 {"device":"n3/GPU-e/p0","node":"n3","model":"Intel(R) Data Center GPU Max 1550","cloud":"onprem",
  "region":"dc","workload":"","up":true,"stale":false,"open_incidents":0}
]})json";
constexpr char kByWorkload[] = R"json({"rows":[
 {"group":{"workload":"train-0"},"gpu_hours":2,"idle_gpu_hours":0,"allocation_usd":12,"idle_usd":0,"lost_gpu_hours":0.2},
 {"group":{"workload":"(unallocated)"},"gpu_hours":0,"idle_gpu_hours":3,"allocation_usd":0,"idle_usd":6,"lost_gpu_hours":0}]})json";
constexpr char kByNode[] = R"json({"rows":[
 {"group":{"node":"n2"},"gpu_hours":1,"idle_gpu_hours":3,"allocation_usd":2,"idle_usd":6,"lost_gpu_hours":0}]})json";

// GET /api/v1/series?metric=gpu_workload_step_duration_seconds: the job's
// reports under its pod label and its name label, another job's, a gap.
constexpr char kSteps[] = R"json({"metric":"gpu_workload_step_duration_seconds","series":[
 {"labels":{"node":"n1","gpu_uuid":"GPU-a","workload_pod":"train-0"},"t":[1,2,3,4],"v":[1.0,null,3.0,2.0]},
 {"labels":{"node":"n1","gpu_uuid":"GPU-b","workload_name":"train","workload_pod":"train-0"},"t":[1,2],"v":[2.5,1.5]},
 {"labels":{"node":"n9","workload_name":"other"},"t":[1],"v":[100]}]})json";
constexpr char kNoSteps[] = R"json({"series":[]})json";
// GET /api/v1/canary/runs, newest first: n2's newest run has a GEMM at 0.8
// of its baseline and a latency 1.25x its baseline (0.8 too: inverted), a
// pass; its older run (a failed diagnostic) is history. n1 failed a
// diagnostic in its newest run.
constexpr char kCanary[] = R"json({"runs":[
 {"id":9,"target":"n2","verdict":"fail","checks":[
  {"name":"gemm.fp32@8192","verdict":"regression","value":8e13,"baseline":1e14,"unit":"flop_per_second"},
  {"name":"nccl.latency","verdict":"regression","value":5e-5,"baseline":4e-5,"unit":"seconds"},
  {"name":"stream.triad","verdict":"pass","value":1e12,"baseline":2e12,"unit":"bytes_per_second"}]},
 {"id":8,"target":"n1","verdict":"fail","checks":[
  {"name":"dcgm.diag.memory","verdict":"fail","value":0,"baseline":null,"unit":"pass"}]},
 {"id":5,"target":"n2","verdict":"fail","checks":[
  {"name":"dcgm.diag.pcie","verdict":"fail","value":0,"baseline":null,"unit":"pass"}]}]})json";
constexpr char kNoCanary[] = R"json({"runs":[]})json";
// The last 15 minutes of the ledger: train lost nothing there.
constexpr char kByWorkloadRecent[] = R"json({"rows":[
 {"group":{"workload":"train-0"},"gpu_hours":0.5,"idle_gpu_hours":0,"allocation_usd":3,"idle_usd":0,"lost_gpu_hours":0}]})json";

AdviseAnswers Answers() {
  return {.fleet = kFleet,
          .cost_by_workload = kByWorkload,
          .cost_by_node = kByNode,
          .cost_by_workload_recent = kByWorkloadRecent,
          .step_series = kSteps,
          .canary_runs = kCanary};
}

TEST(AdviseClientTest, BuildsTheSnapshotFromTheServersAnswers) {
  auto jobs = ParseAdviseJobs(
      "[[job]]\nname = \"train\"\njob_type = \"Transformer (batch size 64)\"\nremaining_steps = "
      "1e6\n"
      "[[job]]\nname = \"ghost\"\njob_type = \"A3C\"\nremaining_steps = 10\ncheckpoint_minutes = "
      "1\n",
      "advise.toml");
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].checkpoint_minutes, 5);  // the defaults
  EXPECT_EQ((*jobs)[0].startup_minutes, 3);
  auto s = SnapshotFromApis(Answers(), *jobs);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->jobs.size(), 1u);
  const place::RunningJob& j = s->jobs[0];
  EXPECT_EQ(j.node, "n1");
  EXPECT_EQ(j.gpus, 2);
  EXPECT_EQ(j.open_incidents, 1);
  EXPECT_DOUBLE_EQ(j.usd_per_gpu_hour, 6.0);  // $12 / 2 GPU-hours
  // It reports steps: the loss is the last 15 minutes' (none), the window its
  // measured step time covers, not the hour's (0.2 of 2 GPU-hours).
  EXPECT_DOUBLE_EQ(j.contention_loss, 0.0);
  // The median of 1, 3, 2 (pod label) and 2.5, 1.5 (both labels, counted
  // once); not "other"'s.
  EXPECT_DOUBLE_EQ(j.measured_step_s, 2.0);
  EXPECT_EQ(j.step_samples, 5);
  AdviseAnswers plain = Answers();
  plain.step_series = kNoSteps;
  plain.canary_runs = kNoCanary;
  auto unmeasured = SnapshotFromApis(plain, *jobs);
  ASSERT_TRUE(unmeasured.ok());
  EXPECT_EQ(unmeasured->jobs[0].measured_step_s, 0);
  EXPECT_DOUBLE_EQ(unmeasured->jobs[0].contention_loss, 0.1);  // the hour's
  // Only n2's fresh whole GPU is free capacity: the stale one and the tile are not.
  ASSERT_EQ(s->capacity.size(), 1u);
  EXPECT_EQ(s->capacity[0].node, "n2");
  EXPECT_EQ(s->capacity[0].free_gpus, 1);
  EXPECT_DOUBLE_EQ(s->capacity[0].usd_per_gpu_hour, 2.0);  // ($2 + $6) / (1 + 3) GPU-hours
  // n2's newest canary run: the worst regression, 0.8; n1 (the job's node)
  // failed a diagnostic, told with the job.
  EXPECT_DOUBLE_EQ(s->capacity[0].canary.factor, 0.8);
  EXPECT_FALSE(s->capacity[0].canary.failed_diagnostic);
  EXPECT_NE(s->capacity[0].canary.note.find("at 0.80 of its baseline (canary run 9)"),
            std::string::npos)
      << s->capacity[0].canary.note;
  EXPECT_TRUE(j.canary.failed_diagnostic);
  EXPECT_EQ(j.canary.note, "dcgm.diag.memory failed (canary run 8)");
  EXPECT_EQ(unmeasured->capacity[0].canary.factor, 1);
  ASSERT_EQ(s->not_found.size(), 1u);
  EXPECT_NE(s->not_found[0].find("ghost (advise.toml:5)"), std::string::npos) << s->not_found[0];
}

TEST(AdviseClientTest, ErrorsNameThePlace) {
  auto typo = ParseAdviseJobs("[[job]]\nname = \"a\"\njob_type = \"A3C\"\nremaining_step = 3\n",
                              "advise.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("advise.toml:4"), std::string::npos)
      << typo.status().message();
  auto missing = ParseAdviseJobs("[[job]]\nname = \"a\"\njob_type = \"A3C\"\n", "advise.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("remaining_steps"), std::string::npos);
  auto twice = ParseAdviseJobs(
      "[[job]]\nname = \"a\"\njob_type = \"A3C\"\nremaining_steps = 1\n"
      "[[job]]\nname = \"a\"\njob_type = \"A3C\"\nremaining_steps = 1\n",
      "advise.toml");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("listed twice"), std::string::npos);
  EXPECT_FALSE(ParseAdviseJobs("", "advise.toml").ok());

  auto jobs =
      ParseAdviseJobs("[[job]]\nname = \"a\"\njob_type = \"A3C\"\nremaining_steps = 1\n", "x");
  ASSERT_TRUE(jobs.ok());
  // Each answer malformed in turn: the error names its endpoint.
  const auto with = [&](std::string_view AdviseAnswers::*field, std::string_view body) {
    AdviseAnswers a = Answers();
    a.*field = body;
    return SnapshotFromApis(a, *jobs);
  };
  auto bad = with(&AdviseAnswers::fleet, "<html>");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("GET /api/v1/fleet"), std::string::npos);
  auto no_rows = with(&AdviseAnswers::cost_by_workload, "{}");
  ASSERT_FALSE(no_rows.ok());
  EXPECT_NE(no_rows.status().message().find("by=workload"), std::string::npos);
  auto no_recent = with(&AdviseAnswers::cost_by_workload_recent, "{}");
  ASSERT_FALSE(no_recent.ok());
  EXPECT_NE(no_recent.status().message().find("from=-15m"), std::string::npos);
  auto no_runs = with(&AdviseAnswers::canary_runs, "[]");
  ASSERT_FALSE(no_runs.ok());
  EXPECT_NE(no_runs.status().message().find("canary/runs"), std::string::npos);
  auto no_series = with(&AdviseAnswers::step_series, "{}");
  ASSERT_FALSE(no_series.ok());
  EXPECT_NE(no_series.status().message().find("gpu_workload_step_duration_seconds"),
            std::string::npos)
      << no_series.status().message();
}

}  // namespace
}  // namespace gpufleet
