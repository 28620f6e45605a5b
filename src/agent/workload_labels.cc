#include "agent/workload_labels.h"

#include "core/strings.h"

namespace gpufleet {

bool HasHostPids(std::string_view source) { return source != "sim"; }

void AddWorkloadLabels(ProcessAttributor& attributor, std::string_view source,
                       std::span<Sample> samples) {
  if (!HasHostPids(source)) return;
  for (Sample& s : samples) {
    std::string_view pid = s.labels.Get("pid");
    if (pid.empty()) continue;
    std::optional<int64_t> p = ParseInt64(pid);
    if (!p || *p <= 0) continue;
    s.labels.Merge(attributor.Lookup(*p));
  }
}

}  // namespace gpufleet
