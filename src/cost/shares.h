// HAMi core / memory limits as fractional shares of a GPU.
//
// HAMi (Project-HAMi) gives a pod a slice of a GPU through its resource
// limits nvidia.com/gpucores (percent of the GPU's cores) and
// nvidia.com/gpumem-percentage (percent of its memory), enforced by
// HAMi-core inside the container. The canonical schema carries them as
// labels of gpu_workload_info: workload_hami_gpucores and
// workload_hami_gpumem_percentage (integers 0-100, as HAMi takes them).
//
// Rule: a holder's share is the larger of its core and memory percentages
// over 100 (a slice denies the others whichever it takes more of); 0 or an
// absent label is "no limit" in that dimension (HAMi's default); a holder
// with neither label has no HAMi share. Per device-minute:
//   - no holder has a share: the ledger's split is unchanged;
//   - every holder has one: holders are charged share x the minute's cost
//     (shares scaled down to sum to 1 when they exceed it), and the rest of
//     the GPU (1 - sum of shares) is unallocated idle, like a GPU nobody holds;
//   - some have one: those are charged their share and the holders without
//     a limit split the rest of the GPU (time-slicing what is left).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "cost/meter.h"

namespace gpufleet::cost {

// The holder's HAMi share in (0, 1], or -1 when it has none. A label that is
// not an integer 0-100 is InvalidArgument naming the holder and the label.
StatusOr<double> HamiShare(const Holder& h);

struct MinuteSplit {
  double held = 1;              // fraction of the minute's cost the holders carry
  std::vector<double> weights;  // per holder, for SplitExact
};

// `shares`: per holder of the minute, its HamiShare or -1; `default_weights`:
// the ledger's split without HAMi (per-holder utilization, or equal).
MinuteSplit SplitMinute(const std::vector<double>& shares,
                        const std::vector<double>& default_weights);

}  // namespace gpufleet::cost
