// Adds workload labels (workload_pod_uid, workload_container_id) to
// per-process series, resolving each series' `pid` label through
// /proc/<pid>/cgroup. Label names are prefixed workload_ so they never
// collide with Prometheus target labels (pod, namespace, container).
#pragma once

#include <vector>

#include "collect/process_attribution.h"
#include "core/sample.h"

namespace gpufleet {

// Annotates every sample that has a `pid` label. Thread-compatible.
void AddWorkloadLabels(ProcessAttributor& attributor, std::vector<Sample>& samples);

}  // namespace gpufleet
