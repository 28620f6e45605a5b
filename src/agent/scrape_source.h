// A scrape source: fetches a vendor exporter's /metrics (dcgm-exporter, AMD
// device-metrics-exporter, Intel XPU Manager) from a URL or a file every
// cycle and serves it translated into the canonical schema, so a fleet can
// adopt gpufleet without replacing its exporters.
#pragma once

#include <cstdint>
#include <string>

#include "agent/agent.h"
#include "core/status.h"

namespace gpufleet {

// `target` is an http:// URL or a file path. The exporter vocabulary is
// sniffed from the content. Errors: InvalidArgument for a malformed URL.
StatusOr<ExtraSource> NewScrapeSource(const std::string& target, const NodeIdentity& node,
                                      int64_t timeout_ns);

}  // namespace gpufleet
