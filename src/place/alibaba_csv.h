// Loader for the Alibaba GPU trace v2023 ("openb") CSV files used by FGD
// (Weng et al., ATC'23): node lists and pod lists.
//
//   openb_node_list_gpu_node.csv:  sn,cpu_milli,memory_mib,gpu,model
//     openb-node-0000,64000,262144,2,P100
//   openb_pod_list_*.csv: name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,...]
//     openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
//
// Columns are found by header name, so the 5-column multigpu variants load
// too. `gpu_spec` is an OR-list of node models ("V100M16|V100M32"). Creation
// and deletion times are not read (the FGD protocol ignores them).
//
// Errors: a missing or empty header, or a missing required column, is a
// Status naming the file. A malformed row (wrong field count, non-numeric or
// negative numbers, a GPU share above 1000, a fraction on a multi-GPU row) is
// skipped and reported as "file:line: why" in `skipped`; with `strict` the
// first one is an error instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "place/model.h"

namespace gpufleet::place {

template <typename T>
struct CsvLoad {
  std::vector<T> rows;
  std::vector<std::string> skipped;  // "file:line: reason"
};

struct CsvOptions {
  bool strict = false;
};

// `source` names the input in messages (usually the path).
StatusOr<CsvLoad<NodeSpec>> ParseAlibabaNodes(std::string_view data, std::string_view source,
                                              const CsvOptions& opts = {});
StatusOr<CsvLoad<WorkloadRequest>> ParseAlibabaPods(std::string_view data,
                                                    std::string_view source,
                                                    const CsvOptions& opts = {});

StatusOr<CsvLoad<NodeSpec>> LoadAlibabaNodes(const std::string& path, const CsvOptions& opts = {});
StatusOr<CsvLoad<WorkloadRequest>> LoadAlibabaPods(const std::string& path,
                                                   const CsvOptions& opts = {});

}  // namespace gpufleet::place
