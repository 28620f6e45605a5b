#include "place/gavel_choice.h"

#include <gtest/gtest.h>

namespace gpufleet::place {
namespace {

// One job type: 0.5 / 2.6 / 4.4 steps/s on k80 / p100 / v100 at $0.52 / 1.68 /
// 2.85 per hour: V100 is fastest, P100 cheapest per step ($0.646 vs $0.648 per
// 1000 s of V100 work), K80 slowest and dearest per step.
struct Fixture {
  GavelThroughputs table = GavelThroughputs::FromTable({"k80", "p100", "v100"}, {{"J", 1}, {"K", 1}},
                                                       {{0.5, 2.6, 4.4}, {1, 1, 1}});
  std::vector<WorkerPeaks> peaks = {{4.37e12, 240e9}, {9.3e12, 732e9}, {15.7e12, 900e9}};
  ThroughputModel tm{&table, peaks};
  ColocationModel cm{&table};
  GpuChoiceRequest Request(GpuObjective objective, double deadline_hours = 0) const {
    GpuChoiceRequest r;
    r.job_type = 0;
    r.total_steps = 4.4 * 3600 * 10;  // 10 h on a V100
    r.objective = objective;
    r.deadline_hours = deadline_hours;
    r.price_usd_per_hour = {0.52, 1.68, 2.85};
    return r;
  }
};

TEST(GavelChoiceTest, PicksByObjectiveAndSaysWhy) {
  Fixture f;
  f.table.SetColocated(2, 0, 1, 2.2, 0.5);  // J keeps half of its V100 speed next to K
  f.table.SetColocated(2, 1, 0, 0.5, 2.2);
  auto fastest = ChooseGpuType(f.table, f.tm, f.cm, f.peaks, f.Request(GpuObjective::kFastest));
  ASSERT_TRUE(fastest.ok()) << fastest.status().ToString();
  ASSERT_GE(fastest->chosen, 0);
  const GpuOptionEstimate& v100 = fastest->options[fastest->chosen];
  EXPECT_EQ(v100.worker, "v100");
  EXPECT_NEAR(v100.duration_hours, 10.0, 1e-9);
  EXPECT_NEAR(v100.usd_per_job, 28.5, 1e-9);
  EXPECT_NEAR(v100.colocation_penalty, 0.5, 1e-9);
  EXPECT_NE(fastest->reason.find("p100 would cost"), std::string::npos) << fastest->reason;

  auto cheapest = ChooseGpuType(f.table, f.tm, f.cm, f.peaks, f.Request(GpuObjective::kCheapestPerJob));
  ASSERT_TRUE(cheapest.ok());
  EXPECT_EQ(cheapest->options[cheapest->chosen].worker, "p100");
  // The cheaper type costs less per effective TFLOP too.
  EXPECT_LT(cheapest->options[1].usd_per_effective_tflop, cheapest->options[0].usd_per_effective_tflop);

  auto tight = ChooseGpuType(f.table, f.tm, f.cm, f.peaks, f.Request(GpuObjective::kCheapestMeetingDeadline, 12));
  EXPECT_EQ(tight->options[tight->chosen].worker, "v100");
  auto loose = ChooseGpuType(f.table, f.tm, f.cm, f.peaks, f.Request(GpuObjective::kCheapestMeetingDeadline, 20));
  EXPECT_EQ(loose->options[loose->chosen].worker, "p100");
  auto impossible = ChooseGpuType(f.table, f.tm, f.cm, f.peaks, f.Request(GpuObjective::kCheapestMeetingDeadline, 5));
  ASSERT_TRUE(impossible.ok());
  EXPECT_EQ(impossible->chosen, -1);
  EXPECT_NE(impossible->reason.find("no GPU type meets"), std::string::npos);
}

TEST(GavelChoiceTest, RejectsBadRequests) {
  Fixture f;
  EXPECT_FALSE(ParseGpuObjective("cheap").ok());
  EXPECT_EQ(*ParseGpuObjective("cheapest-per-job"), GpuObjective::kCheapestPerJob);
  GpuChoiceRequest r = f.Request(GpuObjective::kCheapestMeetingDeadline, 0);
  EXPECT_FALSE(ChooseGpuType(f.table, f.tm, f.cm, f.peaks, r).ok());
  r = f.Request(GpuObjective::kFastest);
  r.price_usd_per_hour.pop_back();
  EXPECT_FALSE(ChooseGpuType(f.table, f.tm, f.cm, f.peaks, r).ok());
}

}  // namespace
}  // namespace gpufleet::place
