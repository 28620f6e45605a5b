// Fuzzes the server's POST /api/v1/canary payload parser (untrusted HTTP
// bodies): no crash, no exception escaping, and every accepted check is
// either one well-formed canary incident or counted as ignored.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "detect/incident_lifecycle.h"
#include "server/canary_incidents.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  StatusOr<CanaryIncidents> in = CanaryIncidentsFromJson(body, 1'700'000'000'000'000'000);
  if (!in.ok()) {
    if (in.status().message().empty()) std::abort();
    return 0;
  }
  if (in->passed_keys.size() > in->ignored) std::abort();
  for (const std::string& key : in->passed_keys) {
    if (key.rfind(detect::kCanaryIncidentKind, 0) != 0) std::abort();
  }
  for (const detect::IncidentRecord& r : in->incidents) {
    if (r.kind != detect::kCanaryIncidentKind || r.dedup_key.rfind(detect::kCanaryIncidentKind, 0) != 0) {
      std::abort();
    }
    if (r.severity != "warning" && r.severity != "critical") std::abort();
    if (!std::isfinite(r.estimated_slowdown) || r.estimated_slowdown < 0) std::abort();
    if (r.evidence.size() != 1 || r.devices.size() != 1 || r.devices[0].empty()) std::abort();
  }
  return 0;
}
