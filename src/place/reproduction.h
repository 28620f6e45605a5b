// Reproduction of the FGD paper's results: runs the simulator for each
// trace x policy x seed and compares the seed means with the authors'
// published per-seed results (fgd-expected-results/analysis_*_discrete.csv
// beside the trace).
//
// Thread safety: RunReproduction uses `jobs` worker threads internally; the
// functions are reentrant.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpufleet::place {

// Seed means of the authors' results, keyed by (workload, policy); workload
// is e.g. "openb_pod_list_default", policy is ours ("fgd", "bestfit", ...).
struct ExpectedCurve {
  int seeds = 0;
  std::map<int, double> alloc_pct;  // arrived % -> mean allocation %
  std::map<int, double> frag_pct;   // arrived % -> mean fragmentation % of capacity
};
using ExpectedResults = std::map<std::pair<std::string, std::string>, ExpectedCurve>;

// Reads analysis_allo_discrete.csv and analysis_frag_discrete.csv in `dir`.
StatusOr<ExpectedResults> LoadExpectedResults(const std::string& dir);
// Parses one analysis_*_discrete.csv; `into` selects the field filled.
Status ParseExpectedCsv(std::string_view data, std::string_view source, bool alloc,
                        ExpectedResults* out);

struct ReproOptions {
  std::string traces_dir;  // holds openb_node_list_gpu_node.csv and the pod lists
  std::vector<std::string> workloads;  // e.g. "openb_pod_list_default"
  std::vector<std::string> policies;   // ours: random, dotprod, ...
  std::vector<uint64_t> seeds;         // FGD: 42..51
  std::vector<int> checkpoints = {50, 100, 130};
  double tolerance_pp = 0.5;
  int jobs = 2;
  std::function<void(const std::string&)> progress;  // one line per finished run
};

struct ReproRow {
  std::string workload, policy;
  int checkpoint = 0;
  double alloc_ours = 0, alloc_paper = 0;  // seed means, %
  double frag_ours = 0, frag_paper = 0;
  bool has_paper = false;
  bool within() const;  // |alloc diff| <= tolerance (set by RunReproduction)
  double tolerance_pp = 0.5;
};

struct ReproReport {
  std::vector<ReproRow> rows;
  double seconds = 0;
  int runs = 0;
};

StatusOr<ReproReport> RunReproduction(const ReproOptions& opts, const ExpectedResults& expected);
std::string ReproToMarkdown(const ReproReport& report, const ReproOptions& opts);

// Our name for one of the authors' policy labels ("06-FGD" -> "fgd"); "" if
// unknown.
std::string PolicyFromPaperLabel(std::string_view label);

}  // namespace gpufleet::place
