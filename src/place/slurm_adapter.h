// Slurm adapter: turns a gpufleet inventory into Slurm configuration
// fragments, and a workload request plus gpufleet's placement decision into
// the sbatch arguments that make Slurm run the job where gpufleet chose.
//
// Naming rules (Slurm 22.05+):
// - GRES type: the GPU model, lowercased, every run of characters outside
//   [a-z0-9_] becomes one '_', leading/trailing '_' dropped
//   ("H100-SXM" -> "h100_sxm", "Instinct MI300X" -> "instinct_mi300x").
// - Feature: lowercased, every run of characters outside [a-z0-9_.-] becomes
//   one '_', leading/trailing '_' dropped. Those characters never collide
//   with the operators of --constraint (& | , * [ ] ( ) ! : =) nor with the
//   comma that separates Features= entries. Software versions become
//   "<component>_<version>" ("cuda_12.4", "driver_550.54.15").
// - A node line's Features: vendor, GRES type (model), interconnect, cloud,
//   region, zone, then one per software component (sorted by component).
//
// Thread safety: stateless functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "place/model.h"

namespace gpufleet::place {

std::string SlurmGresType(std::string_view gpu_model);
std::string SlurmFeature(std::string_view text);

struct SlurmConfOptions {
  // How gres.conf names the devices of each node:
  // - default: the vendor's device files, /dev/nvidia<i> for NVIDIA and
  //   /dev/dri/renderD<128+i> for AMD and Intel (a node of unknown vendor
  //   is an error: say which files it has, or use count_only).
  // - fake_device_dir non-empty: File=<dir>/<node>-gpu[0-N] (for test
  //   clusters without GPUs: make those paths symlinks to /dev/null).
  // - count_only: Count=<n> and no File (Slurm 22.05's slurmd drops
  //   file-less gpu GRES at registration, "Removing file-less GPU", so this
  //   only suits other GRES-aware tools and newer Slurm releases).
  std::string fake_device_dir;
  bool count_only = false;
  // Non-empty: every node is served by its own slurmd on this one host
  // (demo and test clusters): NodeAddr=<addr> NodeHostname=localhost and
  // Port=<first_slurmd_port + node index>; start each with `slurmd -N name`.
  std::string single_host_addr;
  int first_slurmd_port = 0;
};

struct SlurmConf {
  std::string slurm_conf;  // GresTypes=gpu and one NodeName line per node
  std::string gres_conf;   // one line per GPU node
  std::vector<std::string> notes;  // lossy conversions (rounded CPUs, ...)
};

// Errors: an empty or duplicate node name, a name Slurm cannot take (it
// must be [A-Za-z0-9._-] and not start with '-'), a GPU node without a
// model or with an unknown vendor while device files are required, an
// address or device dir that would break the line syntax, ports past 65535.
// Every other string (model, vendor, software, zone ...) goes through the
// sanitisers, so the output is always one line per node.
StatusOr<SlurmConf> MakeSlurmConf(const std::vector<NodeSpec>& nodes,
                                  const SlurmConfOptions& options = {});

struct SlurmJobArgs {
  std::string node;                // where the job must land
  std::vector<std::string> args;   // each one complete "--flag=value" argument
  std::vector<std::string> notes;  // where Slurm cannot say what gpufleet meant
};

// sbatch/srun arguments that pin `req` to `node` (gpufleet's placement
// decision), request the same GPU type and count as that node's GRES, and
// repeat the request's constraints as --constraint on the node's features,
// so Slurm refuses the job if the node no longer matches.
// REQUIRES: `node` passed CheckStatic for `req` (placer.h's ChooseNode).
// Errors: a node name Slurm cannot take, a GPU request on a node without
// GPUs.
StatusOr<SlurmJobArgs> MakeSlurmJobArgs(const NodeSpec& node, const WorkloadRequest& req);

}  // namespace gpufleet::place
