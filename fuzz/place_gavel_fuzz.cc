// Fuzzes the Gavel readers: the throughput JSON (simulation_throughputs.json
// schema), its job keys, and the notebook results CSV.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "place/gavel_data.h"
#include "place/gavel_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto table = gpufleet::place::ParseGavelThroughputs(in, "fuzz");
  if (table.ok()) {
    for (int j = 0; j < table->num_job_types(); ++j) {
      for (int w = 0; w < table->num_workers(); ++w) {
        const double v = table->Isolated(j, w);
        if (!(v >= 0) || !std::isfinite(v)) __builtin_trap();
      }
    }
  }
  (void)gpufleet::place::ParseGavelJobKey(in);
  auto csv = gpufleet::place::ParseGavelNotebookCsv(in, "fuzz");
  (void)csv;
  return 0;
}
