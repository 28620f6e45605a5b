#include "place/slurm_adapter.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/strings.h"
#include "place/placer.h"
#include "place/policy.h"

namespace gpufleet::place {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NodeSpec H100Node() {
  NodeSpec n;
  n.name = "a3-node-01";
  n.cpu_milli = 96000;
  n.memory_mib = 1048576;
  n.gpu_count = 8;
  n.gpu_model = "H100-SXM";
  n.vendor = "nvidia";
  n.interconnect = "nvlink";
  n.cloud = "gcp";
  n.region = "us-central1";
  n.zone = "us-central1-a";
  n.software = {{"cuda", "12.4"}, {"driver", "550.54.15"}};
  return n;
}

NodeSpec Mi300Node() {
  NodeSpec n;
  n.name = "mi-01";
  n.cpu_milli = 64500;
  n.memory_mib = 524288;
  n.gpu_count = 2;
  n.gpu_model = "Instinct MI300X";
  n.vendor = "amd";
  n.interconnect = "xgmi";
  n.software = {{"rocm", "6.1.2"}};
  return n;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(SlurmAdapterTest, GresTypeIsLowercaseAlnumAndUnderscore) {
  EXPECT_EQ(SlurmGresType("H100-SXM"), "h100_sxm");
  EXPECT_EQ(SlurmGresType("Instinct MI300X"), "instinct_mi300x");
  EXPECT_EQ(SlurmGresType("  Data Center GPU Max 1550 "), "data_center_gpu_max_1550");
  EXPECT_EQ(SlurmGresType("A100 (80GB)"), "a100_80gb");
  EXPECT_EQ(SlurmGresType("__x__y__"), "x_y");
  EXPECT_EQ(SlurmGresType("---"), "");
}

TEST(SlurmAdapterTest, FeatureKeepsDotsAndDashesButNoConstraintOperators) {
  EXPECT_EQ(SlurmFeature("cuda_12.4"), "cuda_12.4");
  EXPECT_EQ(SlurmFeature("us-central1-a"), "us-central1-a");
  EXPECT_EQ(SlurmFeature("NVLink"), "nvlink");
  EXPECT_EQ(SlurmFeature("a&b|c,d*e[f](g)!h:i=j k"), "a_b_c_d_e_f_g_h_i_j_k");
}

TEST(SlurmAdapterTest, ConfHasTypedGresFeaturesAndDeviceFiles) {
  auto conf = MakeSlurmConf({H100Node(), Mi300Node()});
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_THAT(conf->slurm_conf, HasSubstr("GresTypes=gpu\n"));
  EXPECT_THAT(conf->slurm_conf,
              HasSubstr("NodeName=a3-node-01 CPUs=96 RealMemory=1048576 Gres=gpu:h100_sxm:8 "
                        "Features=nvidia,h100_sxm,nvlink,gcp,us-central1,us-central1-a,"
                        "cuda_12.4,driver_550.54.15 State=UNKNOWN\n"));
  EXPECT_THAT(conf->slurm_conf,
              HasSubstr("NodeName=mi-01 CPUs=64 RealMemory=524288 Gres=gpu:instinct_mi300x:2 "
                        "Features=amd,instinct_mi300x,xgmi,rocm_6.1.2 State=UNKNOWN\n"));
  EXPECT_THAT(conf->gres_conf,
              HasSubstr("NodeName=a3-node-01 Name=gpu Type=h100_sxm File=/dev/nvidia[0-7]\n"));
  EXPECT_THAT(conf->gres_conf, HasSubstr("NodeName=mi-01 Name=gpu Type=instinct_mi300x "
                                         "File=/dev/dri/renderD[128-129]\n"));
  // 64.5 CPUs cannot be said in Slurm; the note says what was done.
  ASSERT_EQ(conf->notes.size(), 2u);
  EXPECT_THAT(conf->notes[0], HasSubstr("64.5 CPUs rounded to CPUs=64"));
  EXPECT_THAT(conf->notes[1], HasSubstr("renderD128"));
}

TEST(SlurmAdapterTest, FakeDevicesCountOnlyAndSingleHost) {
  NodeSpec one = H100Node();
  one.gpu_count = 1;
  SlurmConfOptions fake;
  fake.fake_device_dir = "/tmp/x";
  auto conf = MakeSlurmConf({one, Mi300Node()}, fake);
  ASSERT_TRUE(conf.ok());
  EXPECT_THAT(conf->gres_conf, HasSubstr("Type=h100_sxm File=/tmp/x/a3-node-01-gpu0\n"));
  EXPECT_THAT(conf->gres_conf, HasSubstr("Type=instinct_mi300x File=/tmp/x/mi-01-gpu[0-1]\n"));

  SlurmConfOptions count;
  count.count_only = true;
  count.single_host_addr = "127.0.0.1";
  count.first_slurmd_port = 7000;
  conf = MakeSlurmConf({H100Node(), Mi300Node()}, count);
  ASSERT_TRUE(conf.ok());
  EXPECT_THAT(conf->gres_conf, HasSubstr("Type=h100_sxm Count=8\n"));
  EXPECT_THAT(conf->gres_conf, ::testing::Not(HasSubstr("File=")));
  EXPECT_THAT(conf->slurm_conf,
              HasSubstr("NodeName=a3-node-01 NodeAddr=127.0.0.1 NodeHostname=localhost Port=7000 "));
  EXPECT_THAT(conf->slurm_conf,
              HasSubstr("NodeName=mi-01 NodeAddr=127.0.0.1 NodeHostname=localhost Port=7001 "));
}

TEST(SlurmAdapterTest, CpuOnlyNodeHasNoGresLine) {
  NodeSpec cpu;
  cpu.name = "cpu-1";
  cpu.cpu_milli = 4000;
  auto conf = MakeSlurmConf({cpu});
  ASSERT_TRUE(conf.ok());
  EXPECT_THAT(conf->slurm_conf, HasSubstr("NodeName=cpu-1 CPUs=4 State=UNKNOWN\n"));
  EXPECT_THAT(conf->gres_conf, ::testing::Not(HasSubstr("NodeName")));
}

TEST(SlurmAdapterTest, ConfRejectsBadNodes) {
  NodeSpec bad = H100Node();
  bad.name = "node[1]";
  auto conf = MakeSlurmConf({bad});
  ASSERT_FALSE(conf.ok());
  EXPECT_THAT(conf.status().ToString(), HasSubstr("node \"node[1]\""));

  conf = MakeSlurmConf({H100Node(), H100Node()});
  ASSERT_FALSE(conf.ok());
  EXPECT_THAT(conf.status().ToString(), HasSubstr("appears twice"));

  NodeSpec unknown = H100Node();
  unknown.vendor = "";
  conf = MakeSlurmConf({unknown});
  ASSERT_FALSE(conf.ok());
  EXPECT_THAT(conf.status().ToString(), HasSubstr("no known device files"));
  SlurmConfOptions count;
  count.count_only = true;
  EXPECT_TRUE(MakeSlurmConf({unknown}, count).ok());

  NodeSpec nomodel = H100Node();
  nomodel.gpu_model = "";
  conf = MakeSlurmConf({nomodel});
  ASSERT_FALSE(conf.ok());
  EXPECT_THAT(conf.status().ToString(), HasSubstr("no gpu_model"));
}

TEST(SlurmAdapterTest, ConfRejectsOptionsThatBreakTheSyntax) {
  SlurmConfOptions addr;
  addr.single_host_addr = "127.0.0.1 Weight=1";
  addr.first_slurmd_port = 7000;
  auto conf = MakeSlurmConf({H100Node()}, addr);
  ASSERT_FALSE(conf.ok());
  EXPECT_THAT(conf.status().ToString(), HasSubstr("single-host address"));
  addr.single_host_addr = "127.0.0.1";
  addr.first_slurmd_port = 65535;
  conf = MakeSlurmConf({H100Node(), Mi300Node()}, addr);
  ASSERT_FALSE(conf.ok());
  EXPECT_THAT(conf.status().ToString(), HasSubstr("out of 1..65535"));
  SlurmConfOptions dir;
  dir.fake_device_dir = "/tmp/a b";
  conf = MakeSlurmConf({H100Node()}, dir);
  ASSERT_FALSE(conf.ok());
  EXPECT_THAT(conf.status().ToString(), HasSubstr("fake device dir"));
}

TEST(SlurmAdapterTest, StrangeStringsStayOnOneLine) {
  NodeSpec n = H100Node();
  n.gpu_model = "H100\nNodeName=evil";
  n.zone = "a,b\nc";
  n.software = {{"cu da\n", "12 .4"}};
  auto conf = MakeSlurmConf({n});
  ASSERT_TRUE(conf.ok());
  // Header comment, GresTypes, one node line.
  EXPECT_EQ(SplitString(conf->slurm_conf, '\n').size(), 4u);
  EXPECT_THAT(conf->slurm_conf, HasSubstr("Gres=gpu:h100_nodename_evil:8"));
  EXPECT_THAT(conf->slurm_conf, HasSubstr(",a_b_c,cu_da_12_.4 "));
  WorkloadRequest req;
  req.name = "two\nlines";
  auto args = MakeSlurmJobArgs(n, req);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->args[0], "--job-name=two_lines");
}

TEST(SlurmAdapterTest, JobArgsPinNodeGresAndConstraints) {
  WorkloadRequest req;
  req.name = "train-llm";
  req.cpu_milli = 15500;
  req.memory_mib = 131072;
  req.gpu_count = 2;
  req.gpu_milli = 1000;
  req.gpu_models = {"H100-SXM", "H200"};
  req.vendor = "nvidia";
  req.interconnect = "nvlink";
  req.region = "us-central1";
  req.software = {{"cuda", "12.2"}, {"compute_capability", "9.0"}};
  auto args = MakeSlurmJobArgs(H100Node(), req);
  ASSERT_TRUE(args.ok()) << args.status().ToString();
  EXPECT_EQ(args->node, "a3-node-01");
  EXPECT_THAT(args->args,
              ElementsAre("--job-name=train-llm", "--nodes=1", "--ntasks=1",
                          "--nodelist=a3-node-01", "--gres=gpu:h100_sxm:2",
                          "--constraint=(h100_sxm|h200)&nvidia&nvlink&us-central1&cuda_12.4",
                          "--cpus-per-task=16", "--mem=131072M"));
  ASSERT_EQ(args->notes.size(), 3u);
  EXPECT_THAT(args->notes[0], HasSubstr("compute_capability 9.0: not a node feature"));
  EXPECT_THAT(args->notes[1], HasSubstr("cuda 12.2 requested, node has 12.4"));
  EXPECT_THAT(args->notes[2], HasSubstr("15.5 CPUs rounded up to 16"));
}

TEST(SlurmAdapterTest, GpuShareFallsBackToWholeGpuWithNote) {
  WorkloadRequest req;
  req.name = "infer";
  req.gpu_count = 1;
  req.gpu_milli = 500;
  req.gpu_models = {"Instinct MI300X"};
  auto args = MakeSlurmJobArgs(Mi300Node(), req);
  ASSERT_TRUE(args.ok());
  EXPECT_TRUE(Contains(args->args, "--gres=gpu:instinct_mi300x:1"));
  EXPECT_TRUE(Contains(args->args, "--constraint=instinct_mi300x"));
  ASSERT_EQ(args->notes.size(), 1u);
  EXPECT_THAT(args->notes[0], HasSubstr("gpu_share 0.5"));
  EXPECT_THAT(args->notes[0], HasSubstr("whole GPU"));
  // No memory asked: no --mem (Slurm's default applies).
  for (const std::string& a : args->args) EXPECT_THAT(a, ::testing::Not(HasSubstr("--mem")));
}

TEST(SlurmAdapterTest, GpuRequestOnCpuNodeIsAnError) {
  NodeSpec cpu;
  cpu.name = "cpu-1";
  WorkloadRequest req;
  req.gpu_count = 1;
  req.gpu_milli = 1000;
  auto args = MakeSlurmJobArgs(cpu, req);
  ASSERT_FALSE(args.ok());
  EXPECT_THAT(args.status().ToString(), HasSubstr("has none"));
}

// Every constraint term names a feature of the chosen node's line, so the
// generated configuration and the generated arguments agree by construction
// for whatever node the policy picks.
TEST(SlurmAdapterTest, ChosenNodeFeaturesCoverConstraint) {
  std::vector<NodeSpec> nodes = {H100Node(), Mi300Node()};
  Cluster cluster(nodes);
  WorkloadRequest req;
  req.name = "amd-job";
  req.cpu_milli = 8000;
  req.memory_mib = 1024;
  req.gpu_count = 2;
  req.gpu_milli = 1000;
  req.vendor = "amd";
  req.interconnect = "xgmi";
  req.software = {{"rocm", "6.1.2"}};
  auto policy = NewBestFitPolicy();
  Rng rng(1);
  auto decision = ChooseNode(cluster, req, *policy, rng);
  ASSERT_TRUE(decision.has_value());
  const NodeSpec& chosen = cluster.spec(decision->node);
  EXPECT_EQ(chosen.name, "mi-01");
  auto args = MakeSlurmJobArgs(chosen, req);
  ASSERT_TRUE(args.ok());
  auto conf = MakeSlurmConf(nodes);
  ASSERT_TRUE(conf.ok());
  std::string line;
  for (std::string_view l : SplitString(conf->slurm_conf, '\n')) {
    if (l.rfind("NodeName=mi-01 ", 0) == 0) line = std::string(l);
  }
  ASSERT_FALSE(line.empty());
  std::string constraint;
  for (const std::string& a : args->args) {
    if (a.rfind("--constraint=", 0) == 0) constraint = a.substr(13);
  }
  EXPECT_EQ(constraint, "amd&xgmi&rocm_6.1.2");
  for (std::string_view term : SplitString(constraint, '&')) {
    EXPECT_THAT(line, HasSubstr(std::string(term))) << term;
  }
  EXPECT_TRUE(Contains(args->args, "--gres=gpu:instinct_mi300x:2"));
  EXPECT_THAT(line, HasSubstr("Gres=gpu:instinct_mi300x:2"));
}

}  // namespace
}  // namespace gpufleet::place
