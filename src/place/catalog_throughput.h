// Throughput of a job type of Gavel's table on any GPU model of the
// hardware catalog: measured when the model is one of the table's workers
// (k80 = "k80", p100 = "p100-pcie", v100 = "v100-sxm-16gb", matched by their
// catalog peaks), otherwise predicted by the throughput model
// (gavel_throughput_model.h) from the catalog's fp32 peak and memory
// bandwidth. Predictions carry the median relative error their kind showed
// in leave-one-out validation on the table at the job's scale factor; for
// GPU models far outside the table's range (H100, MI300X) that error is a
// lower bound: the validation never extrapolated that far.
//
// Thread safety: immutable after Create; Estimate is const.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "place/gavel_data.h"
#include "place/gavel_throughput_model.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::place {

// The hardware catalog entry an inventory's or a device's model names: a key
// ("h100-sxm"), a name, the key in any case ("H100-SXM"), or whole words of
// a name ("A100-SXM4-40GB", "MI300X"); nullptr when none.
const GpuModelSpec* ResolveGpuModel(std::string_view model);

// The hardware-catalog key of a Gavel worker type: "k80" -> "k80", "p100" ->
// "p100-pcie", "v100" -> "v100-sxm-16gb" (the parts Gavel measured); other
// names are returned as they are.
std::string GavelWorkerCatalogKey(std::string_view worker);

class CatalogThroughput {
 public:
  // `table` must outlive the object. `models`: the GPU models that will be
  // asked about (any spelling ResolveGpuModel accepts; unknown ones are
  // skipped and answer NotFound later).
  static StatusOr<std::unique_ptr<CatalogThroughput>> Create(const GavelThroughputs* table,
                                                             const std::vector<std::string>& models,
                                                             int scale_factor);
  // NotFound when the model is not in the catalog or nothing is known.
  StatusOr<ThroughputEstimate> Estimate(int job, std::string_view model) const;
  // The table worker `model` is or is nearest to by fp32 peak (for the
  // co-location model, which knows only the table's workers); -1 if unknown.
  int NearestTableWorker(std::string_view model) const;

 private:
  CatalogThroughput() = default;
  int WorkerOf(std::string_view model) const;
  const GavelThroughputs* table_ = nullptr;
  std::vector<WorkerPeaks> peaks_;  // table workers, then added models
  std::vector<std::string> keys_;   // catalog key per worker
  GavelThroughputs ext_;
  std::unique_ptr<ThroughputModel> model_;
};

}  // namespace gpufleet::place
