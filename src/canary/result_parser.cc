#include "canary/result_parser.h"

#include <string>

#include "canary/babelstream_parser.h"
#include "canary/dcgm_diag_parser.h"
#include "canary/nccl_tests_parser.h"
#include "canary/result_json.h"
#include "core/strings.h"

namespace gpufleet::canary {

StatusOr<ResultFormat> ResultFormatFromName(std::string_view name) {
  if (name == "auto") return ResultFormat::kAuto;
  if (name == "nccl-tests" || name == "rccl-tests") return ResultFormat::kNcclTests;
  if (name == "babelstream") return ResultFormat::kBabelStream;
  if (name == "dcgm-diag") return ResultFormat::kDcgmDiag;
  if (name == "gpufleet-json") return ResultFormat::kCanaryJson;
  return InvalidArgumentError(
      "unknown result format '" + std::string(name) +
      "' (expected auto, nccl-tests, rccl-tests, babelstream, dcgm-diag, gpufleet-json)");
}

std::string_view ResultFormatName(ResultFormat f) {
  switch (f) {
    case ResultFormat::kAuto:
      return "auto";
    case ResultFormat::kNcclTests:
      return "nccl-tests";
    case ResultFormat::kBabelStream:
      return "babelstream";
    case ResultFormat::kDcgmDiag:
      return "dcgm-diag";
    case ResultFormat::kCanaryJson:
      return "gpufleet-json";
  }
  return "auto";
}

ResultFormat SniffResultFormat(std::string_view text) {
  std::string_view head = TrimWhitespace(text.substr(0, 4096));
  if (LooksLikeCanaryJson(head)) return ResultFormat::kCanaryJson;
  if (!head.empty() && head[0] == '{') return ResultFormat::kDcgmDiag;
  if (head.find("BabelStream") != std::string_view::npos ||
      head.find("function,num_times") != std::string_view::npos) {
    return ResultFormat::kBabelStream;
  }
  if (head.find("# nThread") != std::string_view::npos ||
      head.find("ccl-tests version") != std::string_view::npos ||
      head.find("busbw") != std::string_view::npos) {
    return ResultFormat::kNcclTests;
  }
  return ResultFormat::kAuto;
}

StatusOr<std::vector<BenchmarkResult>> ParseResults(std::string_view text, std::string_view origin,
                                                    ResultFormat format, ParseReport* report) {
  if (format == ResultFormat::kAuto) format = SniffResultFormat(text);
  switch (format) {
    case ResultFormat::kNcclTests: {
      ASSIGN_OR_RETURN(NcclTestsOutput out, ParseNcclTests(text, origin, report));
      return NcclTestsResults(out, origin);
    }
    case ResultFormat::kBabelStream: {
      ASSIGN_OR_RETURN(BabelStreamOutput out, ParseBabelStream(text, origin, report));
      return BabelStreamResults(out, origin);
    }
    case ResultFormat::kDcgmDiag: {
      ASSIGN_OR_RETURN(DcgmDiagOutput out, ParseDcgmDiag(text, origin, report));
      return DcgmDiagResults(out, origin);
    }
    case ResultFormat::kCanaryJson:
      return ParseCanaryJson(text, origin, report);
    case ResultFormat::kAuto:
      break;
  }
  return InvalidArgumentError(std::string(origin) +
                              ": not recognized as nccl-tests, BabelStream or DCGM diag output "
                              "(pass --format to say which)");
}

}  // namespace gpufleet::canary
