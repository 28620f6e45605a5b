// Fuzzes the Slurm adapter with whatever inventory TOML parses: the generated
// slurm.conf/gres.conf must stay one line per node with only the keys the
// adapter writes, every feature and GRES type must use the documented
// characters, and the sbatch arguments for a fixed request must be one line
// each.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/strings.h"
#include "place/slurm_adapter.h"
#include "place/spec_file.h"

namespace {

using namespace gpufleet::place;

bool AllIn(std::string_view s, std::string_view allowed) {
  return s.find_first_not_of(allowed) == std::string_view::npos;
}

constexpr std::string_view kType = "abcdefghijklmnopqrstuvwxyz0123456789_";
constexpr std::string_view kFeature = "abcdefghijklmnopqrstuvwxyz0123456789_.-";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto inv = ParseInventory(in, "fuzz");
  if (!inv.ok()) return 0;
  for (const NodeSpec& n : inv->nodes) {
    if (!AllIn(SlurmGresType(n.gpu_model), kType)) __builtin_trap();
    if (!AllIn(SlurmFeature(n.zone), kFeature)) __builtin_trap();
  }
  SlurmConfOptions opts;
  opts.fake_device_dir = "/tmp/fake";
  auto conf = MakeSlurmConf(inv->nodes, opts);
  if (!conf.ok()) return 0;
  size_t node_lines = 0;
  for (std::string_view line : gpufleet::SplitString(conf->slurm_conf, '\n')) {
    if (line.empty() || line[0] == '#' || line == "GresTypes=gpu") continue;
    if (!gpufleet::StartsWith(line, "NodeName=")) __builtin_trap();
    ++node_lines;
  }
  if (node_lines != inv->nodes.size()) __builtin_trap();
  for (std::string_view line : gpufleet::SplitString(conf->gres_conf, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    if (!gpufleet::StartsWith(line, "NodeName=")) __builtin_trap();
  }
  WorkloadRequest req;
  req.name = std::string(in.substr(0, 16));
  req.gpu_count = 1;
  req.gpu_milli = 500;
  req.software = {{"cuda", "12.4"}};
  for (const NodeSpec& n : inv->nodes) {
    if (n.gpu_count == 0) continue;
    auto args = MakeSlurmJobArgs(n, req);
    if (!args.ok()) __builtin_trap();  // the node passed MakeSlurmConf's checks
    for (const std::string& a : args->args) {
      if (a.find('\n') != std::string::npos || !gpufleet::StartsWith(a, "--")) __builtin_trap();
    }
  }
  return 0;
}
