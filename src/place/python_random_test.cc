#include "place/python_random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "place/gavel_data.h"
#include "place/gavel_sim.h"

namespace gpufleet::place {
namespace {

// Expected values printed by CPython 3.11's random module, e.g.
// `r = random.Random(); r.seed(2); r.random()`.
TEST(PythonRandomTest, DrawsWhatCPythonDraws) {
  PythonRandom two(2);
  EXPECT_EQ(two.Random(), 0.9560342718892494);
  EXPECT_EQ(two.Random(), 0.9478274870593494);
  EXPECT_EQ(two.Random(), 0.05655136772680869);
  PythonRandom zero(0);  // getrandbits(32)
  EXPECT_EQ(zero.Next32(), 3626764237U);
  EXPECT_EQ(zero.Next32(), 1654615998U);
  EXPECT_EQ(zero.Next32(), 3255389356U);
  PythonRandom five(5);  // choice(range(26)): getrandbits(5) below 26
  const std::vector<size_t> choices = {19, 8, 23, 11, 25, 22, 23, 20, 16, 0, 14, 24};
  for (size_t c : choices) EXPECT_EQ(five.RandBelow(26), c);
  PythonRandom wide(12345678901ULL);  // a seed of two 32-bit words
  EXPECT_EQ(wide.Random(), 0.9460118159397316);
  PythonRandom three(3);
  EXPECT_EQ(three.Uniform(1.5, 3), 1.8569469406378372);
}

// With Gavel's throughput table, seed 0 gives the jobs of Gavel's seed-0 run:
// the figures below come from running Gavel's utils.generate_job draw order
// under CPython (random.Random(2) for jobs, random.Random(3) for arrivals).
TEST(PythonRandomTest, GavelDrawsGiveGavelsSeedZeroJobs) {
  const std::string path =
      std::string(GPUFLEET_SOURCE_DIR) + "/../shared/traces/gavel/simulation_throughputs.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent";
  auto table = LoadGavelThroughputs(path);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  GavelTraceOptions o;
  o.jobs_per_hour = 0.4;
  o.multi_gpu = true;
  o.seed = 0;
  auto jobs = GenerateGavelJobs(*table, o);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 5000u);
  const auto& types = table->job_types();
  EXPECT_EQ((*jobs)[0].scale_factor, 8);
  EXPECT_EQ(types[(*jobs)[0].job_type].name, "ResNet-18 (batch size 64)");
  EXPECT_NEAR((*jobs)[0].duration_v100_s, 68344.350106, 1e-6);
  EXPECT_EQ(types[(*jobs)[1].job_type].name, "Transformer (batch size 16)");
  EXPECT_NEAR((*jobs)[1].duration_v100_s, 31016.609146, 1e-6);
  EXPECT_EQ(types[(*jobs)[2].job_type].name, "Recommendation (batch size 2048)");
  EXPECT_NEAR((*jobs)[1].arrival_s, 2445.860729103015, 1e-6);
  EXPECT_NEAR((*jobs)[3].arrival_s, 13675.426956563871, 1e-6);
  auto window_mean_h = [](const std::vector<GavelSimJob>& js) {
    double sum = 0;
    for (size_t i = 4000; i < 5000; ++i) sum += js[i].duration_v100_s;
    return sum / 1000 / 3600;
  };
  EXPECT_NEAR(window_mean_h(*jobs), 17.68070944123868, 1e-9);
  o.multi_gpu = false;  // the scale factor is still drawn, then set to 1
  jobs = GenerateGavelJobs(*table, o);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].scale_factor, 1);
  EXPECT_NEAR(window_mean_h(*jobs), 17.41464605603328, 1e-9);
}

}  // namespace
}  // namespace gpufleet::place
