// The JSON answer of the Prometheus HTTP query API (/api/v1/query and
// /api/v1/query_range), as Prometheus and VictoriaMetrics serve it:
//
//   {"status":"success","data":{"resultType":"matrix","result":[
//     {"metric":{"__name__":"gpu_up","node":"n1"},"values":[[1733350000.123,"1"],...]}]}}
//
// "matrix" (values) and "vector" (value) results become series of samples;
// "scalar" and "string" results are refused. Sample values are strings
// ("NaN", "+Inf" and "-Inf" included); timestamps are float unix seconds,
// rounded to milliseconds. An error answer ({"status":"error","errorType",
// "error"}) becomes a Status carrying the engine's message; malformed JSON
// names the byte offset and malformed content the field path
// (data.result[3].values[17][1]).
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "expo/remote_write.h"

namespace gpufleet {

// Labels include __name__ when the engine returns it. `matrix_only`: a
// "vector" result is refused too (a query_range answer is always a matrix).
StatusOr<std::vector<RemoteWriteSeries>> ParsePromQueryResult(std::string_view json,
                                                              bool matrix_only = false);

}  // namespace gpufleet
