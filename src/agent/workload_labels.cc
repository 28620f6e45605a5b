#include "agent/workload_labels.h"

#include "core/strings.h"

namespace gpufleet {

void AddWorkloadLabels(ProcessAttributor& attributor, std::vector<Sample>& samples) {
  for (Sample& s : samples) {
    std::string_view pid = s.labels.Get("pid");
    if (pid.empty()) continue;
    std::optional<int64_t> p = ParseInt64(pid);
    if (!p || *p <= 0) continue;
    s.labels.Merge(attributor.Lookup(*p));
  }
}

}  // namespace gpufleet
