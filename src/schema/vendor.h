// GPU vendors gpufleet knows.
#pragma once

#include <string_view>

namespace gpufleet {

enum class Vendor { kUnknown, kNvidia, kAmd, kIntel };

// "nvidia", "amd", "intel", "unknown": the value of the `vendor` label.
std::string_view VendorName(Vendor v);
// Inverse of VendorName; kUnknown for anything else.
Vendor ParseVendor(std::string_view name);

}  // namespace gpufleet
