// Adds workload labels (workload_pod_uid, workload_container_id) to
// per-process series, resolving each series' `pid` label through
// /proc/<pid>/cgroup. Label names are prefixed workload_ so they never
// collide with Prometheus target labels (pod, namespace, container).
#pragma once

#include <span>
#include <string_view>

#include "collect/process_attribution.h"
#include "core/sample.h"

namespace gpufleet {

// False for sources whose pids are not processes of this host: the
// simulator's pids are made up (a stable hash of the workload id), so looking
// them up in /proc would hand a simulated process the labels of whatever
// real container happens to hold that pid. The simulator states the workload
// labels it wants itself (workload_pod, workload_namespace, workload_container
// from the scenario).
bool HasHostPids(std::string_view source);

// Annotates every sample of `source` that has a `pid` label; does nothing
// when !HasHostPids(source). Thread-compatible.
void AddWorkloadLabels(ProcessAttributor& attributor, std::string_view source,
                       std::span<Sample> samples);

}  // namespace gpufleet
