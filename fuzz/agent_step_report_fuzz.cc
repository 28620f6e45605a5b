// Fuzzes the agent's step-report parser (StepReports::Accept).
// Properties: no crash; a refused report keeps nothing; every sample served
// after an accepted one is a positive, finite step under a day with a pid
// and a workload_name.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "agent/step_reports.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StepReports steps(NodeIdentity{"n1", "", ""});
  const bool ok = steps.Accept(text, 0).ok();
  if (!ok && steps.reporters() != 0) std::abort();
  std::vector<Sample> out;
  steps.Collect(out, 0);
  if (out.size() != (ok ? 1u : 0u)) std::abort();
  for (const Sample& s : out) {
    if (!std::isfinite(s.value) || s.value <= 0 || s.value >= 86400) std::abort();
    if (s.labels.Get("pid").empty() || s.labels.Get("workload_name").empty()) std::abort();
  }
  return 0;
}
