#include "normalize/canonical_output.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace gpufleet {
namespace {

std::string Write(CanonicalOutput& out, uint64_t* duplicates = nullptr,
                  uint64_t* samples = nullptr) {
  uint64_t d = 0, n = 0;
  out.Finalize(&d, &n);
  if (duplicates != nullptr) *duplicates = d;
  if (samples != nullptr) *samples = n;
  std::string text;
  out.Write(MetricCatalog::Default(), ExpositionFormat::kPrometheusText, &text);
  // Keep only sample lines.
  std::string lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, nl - pos);
    if (!line.starts_with("#")) {
      lines.append(line);
      lines.push_back('\n');
    }
    pos = nl + 1;
  }
  return lines;
}

TEST(CanonicalOutputTest, SortsByNameThenRenderedLabels) {
  CanonicalOutput out;
  uint32_t b = out.AddLabels(Labels{{"gpu_uuid", "GPU-b"}});
  uint32_t a = out.AddLabels(Labels{{"gpu_uuid", "GPU-a"}});
  out.Add("gpu_temperature_celsius", b, CanonicalOutput::kNoLabels, 40, std::nullopt);
  out.Add("gpu_power_watts", b, CanonicalOutput::kNoLabels, 300, std::nullopt);
  out.Add("gpu_temperature_celsius", a, CanonicalOutput::kNoLabels, 41, std::nullopt);
  EXPECT_EQ(Write(out),
            "gpu_power_watts{gpu_uuid=\"GPU-b\"} 300\n"
            "gpu_temperature_celsius{gpu_uuid=\"GPU-a\"} 41\n"
            "gpu_temperature_celsius{gpu_uuid=\"GPU-b\"} 40\n");
}

TEST(CanonicalOutputTest, RepairsOrderWhereListRanksDisagreeWithRendering) {
  // Alone, {a="1"} sorts after {a="1",c="2"} ('}' > ','); with b="x" merged
  // in, the renderings {a="1",b="x"} and {a="1",b="x",c="2"} agree with
  // that order, but with z="x" merged in they do not: the ranks of the base
  // lists are then wrong and the rendered order must win.
  CanonicalOutput out;
  uint32_t short_list = out.AddLabels(Labels{{"a", "1"}});
  uint32_t long_list = out.AddLabels(Labels{{"a", "1"}, {"c", "2"}});
  uint32_t z = out.AddLabels(Labels{{"method", "x"}});
  out.Add("gpu_power_watts", short_list, z, 1, std::nullopt);
  out.Add("gpu_power_watts", long_list, z, 2, std::nullopt);
  EXPECT_EQ(Write(out),
            "gpu_power_watts{a=\"1\",c=\"2\",method=\"x\"} 2\n"
            "gpu_power_watts{a=\"1\",method=\"x\"} 1\n");
}

TEST(CanonicalOutputTest, MergesSeriesWithEqualLabelsAndDropsRepeatedTimestamps) {
  // The extra list replaces the only label in which the two bases differ, so
  // both series render alike and are one series; of two values at the same
  // timestamp the first in input order wins.
  CanonicalOutput out;
  uint32_t x = out.AddLabels(Labels{{"gpu_uuid", "GPU-a"}, {"method", "nvml"}});
  uint32_t y = out.AddLabels(Labels{{"gpu_uuid", "GPU-a"}, {"method", "dcgm"}});
  uint32_t m = out.AddLabels(Labels{{"method", "gpm"}});
  out.Add("gpu_power_watts", y, m, 5, 2000);
  out.Add("gpu_power_watts", x, m, 6, 1000);
  out.Add("gpu_power_watts", x, m, 7, 2000);
  uint64_t duplicates = 0, samples = 0;
  EXPECT_EQ(Write(out, &duplicates, &samples),
            "gpu_power_watts{gpu_uuid=\"GPU-a\",method=\"gpm\"} 6 1000\n"
            "gpu_power_watts{gpu_uuid=\"GPU-a\",method=\"gpm\"} 5 2000\n");
  EXPECT_EQ(duplicates, 1u);
  EXPECT_EQ(samples, 2u);
}

// The order is predicted from list ranks (base first, or extra first where
// the extra labels sort first) and only verified by rendering: on random
// bases and extras, with shared, replaced and missing names and duplicate
// series, the output must equal the renderings sorted as strings, first
// value of each series kept.
TEST(CanonicalOutputTest, OrderEqualsSortedRenderingsOnRandomLists) {
  std::mt19937 rng(7);
  const std::vector<std::string> names = {"a", "domain", "gpu_uuid", "sensor", "z"};
  const std::vector<std::string> values = {"1", "10", "2", "x", "x\"y"};
  const std::vector<std::string> families = {"gpu_power_watts", "gpu_temperature_celsius"};
  for (int round = 0; round < 200; ++round) {
    CanonicalOutput out;
    std::vector<Labels> lists;
    std::vector<uint32_t> ids;
    for (int l = 0; l < 8; ++l) {
      Labels labels;
      for (const std::string& n : names) {
        if (rng() % 3 == 0) labels.Set(n, values[rng() % values.size()]);
      }
      // Each list twice: equal lists under different ids must merge too.
      for (int copy = 0; copy < 2; ++copy) {
        lists.push_back(labels);
        ids.push_back(out.AddLabels(labels));
      }
    }
    std::map<std::string, int> first;  // rendered series -> first value
    for (int i = 0; i < 60; ++i) {
      const std::string& family = families[rng() % families.size()];
      int base = static_cast<int>(rng() % 17) - 1;  // -1: none
      int extra = static_cast<int>(rng() % 17) - 1;
      Labels merged = base >= 0 ? lists[base] : Labels();
      if (extra >= 0) merged.Merge(lists[extra]);
      first.try_emplace(family + merged.ToString(), i);
      uint32_t b = base >= 0 ? ids[base] : CanonicalOutput::kNoLabels;
      uint32_t e = extra >= 0 ? ids[extra] : CanonicalOutput::kNoLabels;
      out.Add(family, b, e, i, std::nullopt);
    }
    std::string expected;
    for (const auto& [series, value] : first) expected += series + " " + std::to_string(value) + "\n";
    uint64_t duplicates = 0;
    ASSERT_EQ(Write(out, &duplicates), expected) << "round " << round;
    EXPECT_EQ(duplicates, 60 - first.size());
  }
}

// Families with the same base lists in the same input order share one
// order; a family whose extra list replaces the label that decided that
// order must still come out in its own rendered order.
TEST(CanonicalOutputTest, SharedOrderIsRecheckedWhereTheExtraListReplacesALabel) {
  CanonicalOutput out;
  uint32_t one = out.AddLabels(Labels{{"a", "1"}, {"gpu", "x"}});
  uint32_t two = out.AddLabels(Labels{{"a", "2"}, {"gpu", "a"}});
  uint32_t zero = out.AddLabels(Labels{{"a", "0"}});
  uint32_t method = out.AddLabels(Labels{{"method", "m"}});
  for (const char* family : {"gpu_power_watts", "gpu_temperature_celsius", "gpu_up"}) {
    uint32_t extra = std::string_view(family) == "gpu_temperature_celsius" ? zero : method;
    out.Add(family, one, extra, 1, std::nullopt);
    out.Add(family, two, extra, 2, std::nullopt);
    out.Add(family, one, extra, 3, std::nullopt);  // a repeat: dropped
  }
  uint64_t duplicates = 0;
  EXPECT_EQ(Write(out, &duplicates),
            "gpu_power_watts{a=\"1\",gpu=\"x\",method=\"m\"} 1\n"
            "gpu_power_watts{a=\"2\",gpu=\"a\",method=\"m\"} 2\n"
            "gpu_temperature_celsius{a=\"0\",gpu=\"a\"} 2\n"
            "gpu_temperature_celsius{a=\"0\",gpu=\"x\"} 1\n"
            "gpu_up{a=\"1\",gpu=\"x\",method=\"m\"} 1\n"
            "gpu_up{a=\"2\",gpu=\"a\",method=\"m\"} 2\n");
  EXPECT_EQ(duplicates, 3u);
}

TEST(CanonicalOutputTest, EqualListsUnderDifferentIdsAreOneSeries) {
  CanonicalOutput out;
  uint32_t a = out.AddLabels(Labels{{"gpu_uuid", "GPU-a"}});
  uint32_t b = out.AddLabels(Labels{{"gpu_uuid", "GPU-a"}});
  out.Add("gpu_power_watts", a, CanonicalOutput::kNoLabels, 1, std::nullopt);
  out.Add("gpu_power_watts", b, CanonicalOutput::kNoLabels, 2, std::nullopt);
  uint64_t duplicates = 0;
  EXPECT_EQ(Write(out, &duplicates), "gpu_power_watts{gpu_uuid=\"GPU-a\"} 1\n");
  EXPECT_EQ(duplicates, 1u);
}

TEST(CanonicalOutputTest, EscapesLabelValuesOnce) {
  CanonicalOutput out;
  uint32_t l = out.AddLabels(Labels{{"pod", "a\"b\\c\nd"}});
  out.Add("gpu_power_watts", l, CanonicalOutput::kNoLabels, 1, std::nullopt);
  EXPECT_EQ(Write(out), "gpu_power_watts{pod=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(CanonicalOutputTest, WritesInChunksThroughASink) {
  CanonicalOutput out;
  for (int i = 0; i < 20000; ++i) {
    uint32_t l = out.AddLabels(Labels{{"gpu_uuid", "GPU-" + std::to_string(100000 + i)}});
    out.Add("gpu_power_watts", l, CanonicalOutput::kNoLabels, i, std::nullopt);
  }
  uint64_t d = 0, n = 0;
  out.Finalize(&d, &n);
  std::string whole, scratch;
  out.Write(MetricCatalog::Default(), ExpositionFormat::kPrometheusText, &whole);
  std::string chunked;
  int chunks = 0;
  ChunkSink sink = [&](std::string_view c) {
    chunked.append(c);
    ++chunks;
  };
  out.Write(MetricCatalog::Default(), ExpositionFormat::kPrometheusText, &scratch, &sink);
  EXPECT_EQ(chunked, whole);
  EXPECT_TRUE(scratch.empty());
  EXPECT_EQ(n, 20000u);
  EXPECT_EQ(chunks, 1);  // ~900 KB of output stays under one chunk
}

TEST(CanonicalOutputTest, AppendSamplesKeepsMergedLabels) {
  CanonicalOutput out(/*keep_labels=*/true);
  uint32_t base = out.AddLabels(Labels{{"gpu_uuid", "GPU-a"}, {"method", "nvml"}});
  uint32_t extra = out.AddLabels(Labels{{"method", "gpm"}});
  out.Add("gpu_power_watts", base, extra, 3, std::nullopt);
  uint64_t d = 0, n = 0;
  out.Finalize(&d, &n);
  std::vector<Sample> samples;
  out.AppendSamples(42, &samples);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].name, "gpu_power_watts");
  EXPECT_EQ(samples[0].labels, (Labels{{"gpu_uuid", "GPU-a"}, {"method", "gpm"}}));
  EXPECT_EQ(samples[0].timestamp_ns, 42);
}

}  // namespace
}  // namespace gpufleet
