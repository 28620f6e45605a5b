// Integration: the writer's output is accepted by the real `promtool check
// metrics` (Debian package prometheus), which parses and lints what it reads
// on stdin. promtool 2.42's checker only understands text 0.0.4, so the
// OpenMetrics case is limited to families whose OpenMetrics form is also
// valid 0.0.4 (gauges, with UNIT and "# EOF" read as comments there, and
// help text without '"', which OpenMetrics escapes and 0.0.4 must not).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "expo/exposition_writer.h"

namespace gpufleet {
namespace {

struct CheckResult {
  int exit_code = -1;
  std::string output;
};

bool HavePromtool() { return std::system("command -v promtool >/dev/null 2>&1") == 0; }

CheckResult PromtoolCheck(const std::string& exposition) {
  char path[] = "/tmp/gpufleet_promtool_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  if (fd < 0) return {};
  close(fd);
  std::string cmd = std::string("promtool check metrics > ") + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "w");
  EXPECT_NE(p, nullptr);
  if (p == nullptr) return {};
  std::fwrite(exposition.data(), 1, exposition.size(), p);
  int status = pclose(p);
  CheckResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  r.output = buf.str();
  std::remove(path);
  return r;
}

std::vector<Sample> FleetSamples() {
  std::vector<Sample> out;
  for (int gpu = 0; gpu < 4; ++gpu) {
    Labels l{{"gpu", std::to_string(gpu)},
             {"uuid", "GPU-84412445-5790-0b3f-f714-da8aa3b2c0b" + std::to_string(gpu)},
             {"pod", gpu == 3 ? "" : "triton \"a\\b\"\nx-" + std::to_string(gpu)},
             {"vendor", "nvidia"}};
    out.push_back(Sample{"gpu_power_watts", l, 250.5 + gpu, 0});
    out.push_back(Sample{"gpu_memory_used_bytes", l, 1.5e10, 0});
    out.push_back(Sample{"gpu_energy_joules_total", l, 1.2e6 + gpu, 0});
    out.push_back(Sample{"gpu_info", l, 1, 0});
  }
  return out;
}

FamilyMeta Meta(std::string_view name) {
  if (name == "gpu_power_watts") return {name, "gauge", "watts", "Board power draw."};
  if (name == "gpu_memory_used_bytes") return {name, "gauge", "bytes", "Device memory in use."};
  if (name == "gpu_energy_joules_total") {
    return {name, "counter", "joules",
            "Energy used since the \"driver\" loaded.\nMonotonic \\ counter."};
  }
  return {name, "info", "", "Static device facts."};
}

TEST(ExpositionPromtoolTest, TextFormatPassesPromtoolLint) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  std::string out;
  WriteExposition(FleetSamples(), ExpositionFormat::kPrometheusText, Meta, &out);
  CheckResult r = PromtoolCheck(out);
  EXPECT_EQ(r.exit_code, 0) << r.output << "\n--- input ---\n" << out;
}

TEST(ExpositionPromtoolTest, OpenMetricsGaugesParseInPromtool) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  std::vector<Sample> gauges;
  for (const Sample& s : FleetSamples()) {
    if (s.name == "gpu_power_watts" || s.name == "gpu_memory_used_bytes") gauges.push_back(s);
  }
  std::string out;
  WriteExposition(gauges, ExpositionFormat::kOpenMetrics, Meta, &out);
  ASSERT_NE(out.find("# UNIT gpu_power_watts watts\n"), std::string::npos) << out;
  CheckResult r = PromtoolCheck(out);
  EXPECT_EQ(r.exit_code, 0) << r.output << "\n--- input ---\n" << out;
}

TEST(ExpositionPromtoolTest, PromtoolRejectsBrokenInput) {
  // Guards the harness itself: a check that never fails would prove nothing.
  if (!HavePromtool()) GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  CheckResult r = PromtoolCheck("gpu_power_watts{gpu=\"0\" 1\n");
  EXPECT_NE(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace gpufleet
