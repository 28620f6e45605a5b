// Fuzzes the compatibility version parsers (Version::Parse,
// ParsePackageVersion) and the `compat check` input parsers. Properties: no
// crash; a parsed version re-parses from its own text to an equal version;
// Compare is antisymmetric and consistent with SamePrefix.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "compat/compat_check.h"
#include "compat/compat_stack.h"
#include "compat/compat_version.h"

namespace gpufleet {
namespace {

void Require(bool cond) {
  if (!cond) std::abort();
}

void CheckVersion(std::string_view text) {
  auto v = Version::Parse(text);
  if (!v.ok()) return;
  Require(!v->empty() && v->components().size() <= Version::kMaxComponents);
  auto again = Version::Parse(v->text());
  Require(again.ok() && *again == *v);
  // Compare against a fixed anchor both ways.
  static const Version anchor = *Version::Parse("570.86.15");
  Require(v->Compare(anchor) == -anchor.Compare(*v));
  if (v->Compare(anchor) == 0) Require(v->SamePrefix(anchor, Version::kMaxComponents));
}

}  // namespace
}  // namespace gpufleet

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  // First byte picks the parser so one corpus covers all of them.
  if (in.empty()) return 0;
  char mode = in[0];
  in.remove_prefix(1);
  switch (mode % 4) {
    case 0:
      CheckVersion(in);
      break;
    case 1: {
      auto p = ParsePackageVersion(in);
      if (p.ok()) CheckVersion(p->version.text());
      break;
    }
    case 2: {
      auto node = ParseNodeStack(in, "node.toml");
      if (node.ok()) {
        CompatReport r = CheckCompat(CompatCatalog::Default(), *node, nullptr, nullptr);
        Require(r.errors() + r.warnings() == static_cast<int>(r.findings.size()));
      }
      break;
    }
    default: {
      auto image = ParseImageStack(in, "image.toml");
      if (image.ok()) {
        NodeStack node;
        node.gpu = "H100";
        node.driver = *Version::Parse("535.104.05");
        (void)CheckCompat(CompatCatalog::Default(), node, &*image, nullptr).compatible();
      }
      break;
    }
  }
  return 0;
}
