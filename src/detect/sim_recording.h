// The simulated fleet (FleetSim) written in the replay format, so that
// `gpufleet sim detect --write DIR` scores it through the same path as any
// recording (`gpufleet detect replay`): DIR/series.om (OpenMetrics text with
// timestamps, in time order) and DIR/truth.csv (kind,cause,node,gpu_uuid,
// start_s,end_s,slowdown; one row per ground-truth episode and device).
//
// Truth kinds: the contention episodes are kind "contention" with their
// cause (memory_pressure, bandwidth_saturation, coherency) and slowdown;
// variance and cloud_specific (with its slowdown) keep their names; idle (a
// crashed job holding its GPU) is "low_utilization", the incident the
// capture trigger's condition opens. Hard negatives are rows of kind
// "hard_negative" with the negative's name as cause (solo_memory_bound,
// thermal_throttle, ...; fleet_sim.h): not episodes to detect, but windows
// that replay scoring charges false incidents to (replay.h).
// The gpu_uuid column holds the simulator's `gpu` index (the simulated
// series carry no UUID); replay matches either.
//
// Errors: options.colocation empty; the files cannot be written (named).
#pragma once

#include <string>

#include "core/status.h"
#include "detect/fleet_sim.h"

namespace gpufleet::detect {

struct SimRecording {
  std::string series_path;
  std::string truth_path;
  uint64_t samples = 0;
  int truth_rows = 0;
  double gpu_days = 0;
};

StatusOr<SimRecording> WriteSimRecording(const FleetSimOptions& options, const std::string& dir);

}  // namespace gpufleet::detect
