#include "core/stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpufleet {
namespace {

TEST(StatsTest, PearsonCorrelation) {
  std::vector<double> x = {1, 2, 3, 4};
  std::vector<double> up = {2, 4, 6, 8};
  std::vector<double> down = {8, 6, 4, 2};
  std::vector<double> flat = {5, 5, 5, 5};
  EXPECT_NEAR(PearsonCorrelation(x, up), 1.0, 1e-12);
  EXPECT_NEAR(PearsonCorrelation(x, down), -1.0, 1e-12);
  EXPECT_DOUBLE_EQ(PearsonCorrelation(x, flat), 0);
}

}  // namespace
}  // namespace gpufleet
