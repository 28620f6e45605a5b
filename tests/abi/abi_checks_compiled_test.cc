// Records which ABI checks this build compiled in (the checks themselves are
// static_asserts in the other files of this folder), so `ctest -V` and the
// test XML say whether the real vendor headers were used.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace {

TEST(AbiChecksCompiledTest, RecordsWhichChecksWereCompiled) {
  const std::string compiled = GPUFLEET_ABI_CHECKS_COMPILED;
  // The fact-table checks are always built.
  EXPECT_NE(compiled.find("facts:"), std::string::npos);
  RecordProperty("abi_checks", compiled);
  std::printf("ABI checks compiled in: %s\n", compiled.c_str());
}

}  // namespace
