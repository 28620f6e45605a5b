#include "schema/vendor.h"

namespace gpufleet {

std::string_view VendorName(Vendor v) {
  switch (v) {
    case Vendor::kNvidia: return "nvidia";
    case Vendor::kAmd: return "amd";
    case Vendor::kIntel: return "intel";
    case Vendor::kUnknown: break;
  }
  return "unknown";
}

Vendor ParseVendor(std::string_view name) {
  if (name == "nvidia") return Vendor::kNvidia;
  if (name == "amd") return Vendor::kAmd;
  if (name == "intel") return Vendor::kIntel;
  return Vendor::kUnknown;
}

}  // namespace gpufleet
