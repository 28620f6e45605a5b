#include "trace/trace_loader.h"

#include <gtest/gtest.h>

#include <set>

#include "trace/kineto_test_util.h"

namespace gpufleet::trace {
namespace {

using testing::SourcePath;
using testing::WriteTemp;

TEST(TraceLoaderTest, SniffsGzipKinetoFiles) {
  auto importer = DetectImporter(SourcePath("tests/data/trace/sampled_rank-0.json.gz"));
  ASSERT_TRUE(importer.ok()) << importer.status().ToString();
  EXPECT_EQ((*importer)->format(), "kineto_json");
}

TEST(TraceLoaderTest, UnknownFormatAndMissingFileAreErrors) {
  auto unknown = DetectImporter(WriteTemp("x.txt", "just some text\n"));
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("x.txt"), std::string::npos);
  auto missing = LoadTraces({"/nonexistent/trace.json"}, {});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(LoadTraces({}, {}).ok());
}

TEST(TraceLoaderTest, LoadsTwoRanksOfOneJobOntoOneTimeline) {
  auto loaded = LoadTraces({SourcePath("tests/data/trace/sampled_rank-0.json.gz"),
                            SourcePath("tests/data/trace/sampled_rank-1.json.gz")},
                           {});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Timeline& t = *loaded;
  ASSERT_EQ(t.files.size(), 2u);
  EXPECT_GT(t.files[0].events, 4000u);
  EXPECT_GT(t.files[1].events, 4000u);
  std::set<int> ranks;
  for (const Process& p : t.processes) ranks.insert(p.rank);
  EXPECT_TRUE(ranks.count(0) && ranks.count(1));
  for (size_t i = 1; i < t.events.size(); ++i) {
    ASSERT_LE(t.events[i - 1].start_ns, t.events[i].start_ns);
  }
}

}  // namespace
}  // namespace gpufleet::trace
