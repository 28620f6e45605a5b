#include "place/alibaba_csv.h"

#include <gtest/gtest.h>

namespace gpufleet::place {
namespace {

TEST(AlibabaCsvTest, ParsesNodesAndPods) {
  auto nodes = ParseAlibabaNodes(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "openb-node-0000,64000,262144,2,P100\n"
      "openb-node-0001,96000,393216,0,\n",
      "nodes.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->rows.size(), 2u);
  EXPECT_EQ(nodes->rows[0].name, "openb-node-0000");
  EXPECT_EQ(nodes->rows[0].cpu_milli, 64000);
  EXPECT_EQ(nodes->rows[0].gpu_count, 2);
  EXPECT_EQ(nodes->rows[0].gpu_model, "P100");
  EXPECT_EQ(nodes->rows[1].gpu_count, 0);
  EXPECT_TRUE(nodes->skipped.empty());

  auto pods = ParseAlibabaPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061\r\n"
      "openb-pod-0002,8000,30000,2,1000,V100M16|V100M32,BE,Running,0,1,0\n",
      "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().ToString();
  ASSERT_EQ(pods->rows.size(), 2u);
  EXPECT_TRUE(pods->rows[0].is_gpu_share());
  EXPECT_EQ(pods->rows[0].gpu_milli, 460);
  EXPECT_EQ(pods->rows[0].intent, Intent::kLatency);
  EXPECT_EQ(pods->rows[1].total_gpu_milli(), 2000);
  EXPECT_EQ(pods->rows[1].gpu_models, (std::vector<std::string>{"V100M16", "V100M32"}));
}

TEST(AlibabaCsvTest, AcceptsFiveColumnMultiGpuShape) {
  auto pods = ParseAlibabaPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,10,8,1000\n",
                               "multigpu.csv");
  ASSERT_TRUE(pods.ok());
  ASSERT_EQ(pods->rows.size(), 1u);
  EXPECT_EQ(pods->rows[0].gpu_count, 8);
  EXPECT_TRUE(pods->rows[0].gpu_models.empty());
}

TEST(AlibabaCsvTest, SkipsMalformedRowsWithLineNumbers) {
  auto pods = ParseAlibabaPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
      "good,1000,10,1,500\n"
      "short,1000,10\n"
      "neg,-5,10,1,500\n"
      "frac,1000,10,2,500\n"
      "over,1000,10,1,1500\n"
      "word,abc,10,1,500\n"
      "mismatch,1000,10,0,500\n",
      "p.csv");
  ASSERT_TRUE(pods.ok());
  EXPECT_EQ(pods->rows.size(), 1u);
  ASSERT_EQ(pods->skipped.size(), 6u);
  EXPECT_NE(pods->skipped[0].find("p.csv:3:"), std::string::npos) << pods->skipped[0];
  EXPECT_NE(pods->skipped[1].find("p.csv:4:"), std::string::npos);
  EXPECT_NE(pods->skipped[2].find("only valid with num_gpu 1"), std::string::npos);
  EXPECT_NE(pods->skipped[3].find("above 1000"), std::string::npos);
  EXPECT_NE(pods->skipped[4].find("'cpu_milli'"), std::string::npos);
  EXPECT_NE(pods->skipped[5].find("p.csv:8:"), std::string::npos);
}

TEST(AlibabaCsvTest, StrictModeFailsOnFirstBadRow) {
  auto pods = ParseAlibabaPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\nx,1,1,1\n", "p.csv",
                               CsvOptions{true});
  ASSERT_FALSE(pods.ok());
  EXPECT_NE(pods.status().ToString().find("p.csv:2:"), std::string::npos);
}

TEST(AlibabaCsvTest, StructuralErrorsAreStatuses) {
  EXPECT_FALSE(ParseAlibabaPods("", "e.csv").ok());
  auto missing = ParseAlibabaNodes("sn,cpu_milli,memory_mib,gpu\nn,1,1,1\n", "n.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("'model'"), std::string::npos);
  auto too_many = ParseAlibabaNodes("sn,cpu_milli,memory_mib,gpu,model\nn,1,1,64,X\n", "n.csv");
  ASSERT_TRUE(too_many.ok());
  EXPECT_EQ(too_many->skipped.size(), 1u);
  auto no_model = ParseAlibabaNodes("sn,cpu_milli,memory_mib,gpu,model\nn,1,1,2,\n", "n.csv");
  ASSERT_TRUE(no_model.ok());
  EXPECT_EQ(no_model->skipped.size(), 1u);
}

}  // namespace
}  // namespace gpufleet::place
