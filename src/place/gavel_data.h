// Gavel's measured throughputs (OSDI'20, `scheduler/simulation_throughputs.json`,
// copied to ../shared/traces/gavel/): isolated steps/s per (job type, scale
// factor, worker type) and the co-located pair throughputs.
//
// Contract: ParseGavelThroughputs reads the JSON schema
//   d[worker]["('ResNet-18 (batch size 16)', 1)"] = {"null": iso,
//       "('LM (batch size 80)', 1)": [tput_self, tput_other], ...}
// Only the consolidated workers (k80, p100, v100) are kept; "*_unconsolidated"
// entries are counted in `skipped_workers`. Throughputs are iterations/s; 0
// means infeasible (e.g. out of memory). Errors name the origin and the key.
// Thread safety: immutable after construction.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::place {

struct GavelJobType {
  std::string name;  // "ResNet-50 (batch size 64)"
  int scale_factor = 1;  // GPUs per job
  // "ResNet-50", the model family (the text before " (").
  std::string Family() const;
};

struct GavelColocation {
  double self_steps_per_s = 0;   // throughput of the row job while sharing
  double other_steps_per_s = 0;  // throughput of its partner
  bool measured = false;         // false: the file has no entry for the pair
};

class GavelThroughputs {
 public:
  const std::vector<std::string>& workers() const { return workers_; }
  const std::vector<GavelJobType>& job_types() const { return job_types_; }
  int num_workers() const { return static_cast<int>(workers_.size()); }
  int num_job_types() const { return static_cast<int>(job_types_.size()); }
  // -1 when absent.
  int FindWorker(std::string_view name) const;
  int FindJobType(std::string_view name, int scale_factor) const;
  // Isolated steps/s of job type `j` on one worker of type `w` (0 = infeasible).
  double Isolated(int j, int w) const { return isolated_[j * workers_.size() + w]; }
  // Co-located throughputs of job types `a` and `b` sharing a worker of type `w`.
  const GavelColocation& Colocated(int w, int a, int b) const {
    return coloc_[(w * job_types_.size() + a) * job_types_.size() + b];
  }
  int skipped_workers() const { return skipped_workers_; }

  // For tests and synthetic fleets: builds a table from explicit values.
  // `isolated[j][w]`; co-located pairs are set with SetColocated.
  static GavelThroughputs FromTable(std::vector<std::string> workers,
                                    std::vector<GavelJobType> job_types,
                                    const std::vector<std::vector<double>>& isolated);
  void SetColocated(int w, int a, int b, double self_steps_per_s, double other_steps_per_s);
  void SetIsolated(int j, int w, double steps_per_s) {
    isolated_[j * workers_.size() + w] = steps_per_s;
  }

 private:
  friend StatusOr<GavelThroughputs> ParseGavelThroughputs(std::string_view, std::string_view);
  void Resize();
  std::vector<std::string> workers_;
  std::vector<GavelJobType> job_types_;
  std::vector<double> isolated_;        // [job][worker]
  std::vector<GavelColocation> coloc_;  // [worker][a][b]
  int skipped_workers_ = 0;
};

// Parses the JSON text; `origin` names it in errors ("simulation_throughputs.json").
StatusOr<GavelThroughputs> ParseGavelThroughputs(std::string_view json, std::string_view origin);
StatusOr<GavelThroughputs> LoadGavelThroughputs(const std::string& path);

// Software-version feasibility: job families whose images cannot run on
// some GPU types (a framework build without that architecture, a driver
// too old for the image's CUDA). `spec` is "FAMILY[,FAMILY...]:GPU[,GPU...]",
// e.g. "Transformer,LM:k80": every job type of those families becomes
// infeasible on those types, alone and in pairs (throughput 0, as out of
// memory is). InvalidArgument names the spec and the unknown family or GPU
// type, or a job type the spec leaves with no GPU type at all.
StatusOr<GavelThroughputs> WithoutRuns(const GavelThroughputs& table, std::string_view spec);

// Parses a Gavel job key "('ResNet-18 (batch size 16)', 1)".
StatusOr<GavelJobType> ParseGavelJobKey(std::string_view key);

}  // namespace gpufleet::place
