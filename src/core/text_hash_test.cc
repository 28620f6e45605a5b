#include "core/text_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

namespace gpufleet {
namespace {

// Every string of lengths 0..40 that differs from a base in one byte, at
// each position: the overlapping loads of short strings and the last block
// of long ones must see every byte, and equal loads of strings of
// different lengths must still hash apart.
TEST(TextHashTest, EveryByteAndTheLengthCount) {
  std::unordered_set<std::string> strings;
  std::unordered_set<uint64_t> hashes;
  for (size_t n = 0; n <= 40; ++n) {
    const std::string base(n, 'a');
    strings.insert(base);
    hashes.insert(TextHash(base));
    for (size_t at = 0; at < n; ++at) {
      for (char c : {'b', 'z', '\0'}) {
        std::string s = base;
        s[at] = c;
        strings.insert(s);
        hashes.insert(TextHash(s));
      }
    }
  }
  EXPECT_EQ(hashes.size(), strings.size());
  // Short strings whose loads cover the same bits: "b" and "ab".
  EXPECT_NE(TextHash("b"), TextHash("ab"));
  EXPECT_NE(TextHash("abcd"), TextHash("abcdabcd"));
  EXPECT_NE(TextHash(""), TextHash(std::string(1, '\0')));
}

TEST(TextHashTest, DependsOnTheTextNotItsAddress) {
  const std::string a = "node-17/gpu-3 a label value longer than sixteen bytes";
  const std::string b = a;
  EXPECT_EQ(TextHash(a), TextHash(b));
  EXPECT_EQ(TextHash(std::string_view(a).substr(5, 9)), TextHash("17/gpu-3 "));
}

}  // namespace
}  // namespace gpufleet
