#include "compat/compat_version.h"

#include <algorithm>

namespace gpufleet {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Printable(std::string_view text) {
  // Error messages quote user input; keep them one printable line.
  std::string out;
  for (char c : text.substr(0, 64)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > 64) out += "...";
  return out;
}

Status BadVersion(std::string_view text, std::string_view why, size_t offset) {
  return InvalidArgumentError("bad version '" + Printable(text) + "': " + std::string(why) +
                              " at offset " + std::to_string(offset));
}

}  // namespace

StatusOr<Version> Version::Parse(std::string_view text) {
  if (text.empty()) return InvalidArgumentError("bad version '': empty");
  Version v;
  size_t i = 0;
  if (text[0] == 'v' || text[0] == 'V') i = 1;
  while (true) {
    size_t start = i;
    uint64_t value = 0;
    while (i < text.size() && IsDigit(text[i])) {
      if (i - start == 9) return BadVersion(text, "component longer than 9 digits", i);
      value = value * 10 + static_cast<uint64_t>(text[i] - '0');
      ++i;
    }
    if (i == start) {
      if (i == text.size()) return BadVersion(text, "expected a digit", i);
      return BadVersion(text, std::string("unexpected '") + Printable(text.substr(i, 1)) + "'", i);
    }
    if (v.components_.size() == kMaxComponents) {
      return BadVersion(text, "more than 6 components", start);
    }
    v.components_.push_back(static_cast<uint32_t>(value));
    if (i == text.size()) break;
    if (text[i] != '.') {
      return BadVersion(text, std::string("unexpected '") + Printable(text.substr(i, 1)) + "'", i);
    }
    ++i;
  }
  v.text_ = std::string(text);
  return v;
}

bool Version::SamePrefix(const Version& other, size_t n) const {
  for (size_t i = 0; i < n; ++i) {
    if (at(i) != other.at(i)) return false;
  }
  return true;
}

int Version::Compare(const Version& other) const {
  size_t n = std::max(components_.size(), other.components_.size());
  for (size_t i = 0; i < n; ++i) {
    uint32_t a = at(i);
    uint32_t b = other.at(i);
    if (a != b) return a < b ? -1 : 1;
  }
  return 0;
}

StatusOr<PackageVersion> ParsePackageVersion(std::string_view text) {
  // "2.21.5-1+cuda12.4": the libnccl2 package version NVIDIA publishes.
  PackageVersion pv;
  std::string_view rest = text;
  size_t plus = rest.find('+');
  std::string_view build;
  if (plus != std::string_view::npos) {
    build = rest.substr(plus + 1);
    rest = rest.substr(0, plus);
  }
  size_t dash = rest.find('-');
  if (dash != std::string_view::npos) {
    pv.revision = std::string(rest.substr(dash + 1));
    rest = rest.substr(0, dash);
    if (pv.revision.empty() || !std::all_of(pv.revision.begin(), pv.revision.end(),
                                            [](char c) { return IsDigit(c) || c == '.'; })) {
      return BadVersion(text, "package revision must be numeric", dash + 1);
    }
  }
  auto v = Version::Parse(rest);
  if (!v.ok())
    return InvalidArgumentError(v.status().message() + " (in '" + Printable(text) + "')");
  pv.version = std::move(v).value();
  if (plus != std::string_view::npos) {
    if (build.substr(0, 4) != "cuda")
      return BadVersion(text, "expected 'cuda' after '+'", plus + 1);
    auto c = Version::Parse(build.substr(4));
    if (!c.ok()) {
      return InvalidArgumentError(c.status().message() + " (CUDA build in '" + Printable(text) +
                                  "')");
    }
    pv.cuda = std::move(c).value();
  }
  return pv;
}

}  // namespace gpufleet
