// Inference request traces: the Azure LLM inference traces (Splitwise,
// ISCA'24; ../shared/traces/azure-llm-2023/) or a synthetic stream.
//
// Azure format (CSV, CRLF, header TIMESTAMP,ContextTokens,GeneratedTokens):
//   2023-11-16 18:17:03.9799600,4808,10
// Timestamps become seconds after the first row. A row that cannot be read
// is an error naming file:line and field; rows with zero tokens are skipped
// and counted.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::plan {

struct Request {
  double arrival_s = 0;
  int prompt_tokens = 0;
  int output_tokens = 0;
};

struct RequestTrace {
  std::string origin;
  std::vector<Request> requests;  // in arrival order
  int skipped = 0;                // rows with zero prompt or output tokens
  double DurationS() const {
    return requests.empty() ? 0 : requests.back().arrival_s - requests.front().arrival_s;
  }
};

StatusOr<RequestTrace> ParseAzureTrace(std::string_view csv, std::string_view origin);
StatusOr<RequestTrace> LoadAzureTrace(const std::string& path);

// Poisson arrivals at `rate_per_s` for `duration_s`, fixed sizes; seeded.
RequestTrace SyntheticTrace(double rate_per_s, double duration_s, int prompt_tokens,
                            int output_tokens, uint64_t seed);

// The same requests with arrival times divided by `factor` (factor 2 = twice
// the rate).
RequestTrace ScaleRate(const RequestTrace& t, double factor);

}  // namespace gpufleet::plan
