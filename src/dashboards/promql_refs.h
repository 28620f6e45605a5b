// What a PromQL expression refers to: the metric names it selects and the
// label matchers it writes. Used to check every generated panel against the
// metric catalog, the exported rules and the server's /metrics names, so a
// renamed metric fails the export (and the tests) instead of leaving an empty
// panel.
//
// This is a scanner, not a full PromQL parser: it knows strings, label
// matcher braces, range/offset brackets, function calls and the label lists
// after by / without / on / ignoring / group_left / group_right, which is
// enough for the expressions gpufleet writes (and for Grafana's $variables,
// which only appear inside strings and brackets). Handles, e.g.:
//   sum by (vendor) (rate(gpu_pcie_transmit_bytes_total{node=~"$node"}[$__rate_interval]))
//
// Errors: an unterminated string or an unbalanced bracket is an
// InvalidArgument naming the byte offset.
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::dashboards {

struct LabelMatcher {
  std::string label;  // e.g. "alertname"
  std::string op;     // "=", "!=", "=~", "!~"
  std::string value;  // unescaped
};

// One series selector: `metric{matchers}`, `metric` or `{matchers}` (metric
// then empty unless a __name__= matcher names it).
struct Selector {
  std::string metric;
  std::vector<LabelMatcher> matchers;
};

struct PromqlRefs {
  std::vector<std::string> metrics;    // in order of appearance, repeats kept
  std::vector<LabelMatcher> matchers;  // every matcher inside {...}
  std::vector<Selector> selectors;     // in order of appearance
};

StatusOr<PromqlRefs> ExtractPromqlRefs(std::string_view expr);

}  // namespace gpufleet::dashboards
