// Dotted version numbers as driver, toolkit and library releases spell them
// ("570.86.15", "12.4", "6.0.2", "2.18.1"), compared numerically component by
// component with missing components read as 0: 570.124 > 570.86.15,
// 12.10 > 12.4, 12.4 == 12.4.0.
//
// Thread safety: value types; Parse* are pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet {

class Version {
 public:
  static constexpr size_t kMaxComponents = 6;
  static constexpr uint32_t kMaxComponent = 999'999'999;

  Version() = default;

  // Accepts an optional leading 'v'/'V' then 1..kMaxComponents decimal
  // components of at most 9 digits separated by single dots; nothing else.
  // The error names the offending offset: "bad version '5x0': unexpected 'x'
  // at offset 1".
  static StatusOr<Version> Parse(std::string_view text);

  // Components as given; empty for a default-constructed Version.
  const std::vector<uint32_t>& components() const { return components_; }
  // The text it was parsed from ("570.86.15"), or the joined components.
  const std::string& text() const { return text_; }
  bool empty() const { return components_.empty(); }

  // Component i, or 0 when the version has fewer components.
  uint32_t at(size_t i) const { return i < components_.size() ? components_[i] : 0; }
  uint32_t major() const { return at(0); }
  uint32_t minor() const { return at(1); }

  // True when the first `n` components are equal (missing ones read as 0):
  // SamePrefix(6.2.4, 6.2, 2) is true.
  bool SamePrefix(const Version& other, size_t n) const;

  // <0, 0, >0.
  int Compare(const Version& other) const;

  friend bool operator==(const Version& a, const Version& b) { return a.Compare(b) == 0; }
  friend auto operator<=>(const Version& a, const Version& b) { return a.Compare(b) <=> 0; }

 private:
  std::vector<uint32_t> components_;
  std::string text_;
};

// A library package version as distributions spell NCCL, e.g.
// "2.21.5-1+cuda12.4" (Debian/RPM: version, package revision, CUDA build) or
// plain "2.21.5". `cuda` is empty when the text names no CUDA build.
struct PackageVersion {
  Version version;
  std::string revision;  // "1"; "" when absent
  Version cuda;
};
StatusOr<PackageVersion> ParsePackageVersion(std::string_view text);

}  // namespace gpufleet
