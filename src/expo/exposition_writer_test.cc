#include "expo/exposition_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "expo/exposition_parser.h"
#include "expo/exposition_test_util.h"

namespace gpufleet {
namespace {

FamilyMeta MetaFor(std::string_view name) {
  if (name == "gpu_energy_joules_total") {
    return {name, "counter", "joules", "Energy since boot \"as reported\".\nSecond line \\ end."};
  }
  if (name == "gpu_info") return {name, "info", "", "Static device facts."};
  if (name == "gpu_power_watts") return {name, "gauge", "watts", "Power draw."};
  return {name, "gauge", "", ""};
}

TEST(ExpositionWriterTest, NegotiatesFormatFromAcceptHeader) {
  EXPECT_EQ(NegotiateExpositionFormat(""), ExpositionFormat::kPrometheusText);
  EXPECT_EQ(NegotiateExpositionFormat("text/plain"), ExpositionFormat::kPrometheusText);
  EXPECT_EQ(NegotiateExpositionFormat("*/*"), ExpositionFormat::kPrometheusText);
  // Prometheus 2.x default scrape Accept header.
  EXPECT_EQ(NegotiateExpositionFormat(
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(NegotiateExpositionFormat("Application/OpenMetrics-Text; version=1.0.0"),
            ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(NegotiateExpositionFormat("text/plain;version=0.0.4;q=0.9, "
                                      "application/openmetrics-text;q=0.5"),
            ExpositionFormat::kPrometheusText);
  EXPECT_EQ(NegotiateExpositionFormat("application/openmetrics-text;q=0"),
            ExpositionFormat::kPrometheusText);
}

TEST(ExpositionWriterTest, ContentTypes) {
  EXPECT_EQ(ContentTypeFor(ExpositionFormat::kPrometheusText),
            "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(ContentTypeFor(ExpositionFormat::kOpenMetrics),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

TEST(ExpositionWriterTest, WritesPrometheusText) {
  std::string out;
  ExpositionWriter w(ExpositionFormat::kPrometheusText, &out);
  w.BeginFamily(MetaFor("gpu_energy_joules_total"));
  w.WriteSample("gpu_energy_joules_total", Labels{{"gpu", "0"}, {"pod", "a\"b\\c\nd"}}, 12.5,
                1712345678901);
  w.BeginFamily(MetaFor("gpu_info"));
  w.WriteSample("gpu_info", Labels{{"model", "H100"}}, 1);
  w.Finish();
  EXPECT_EQ(out,
            "# HELP gpu_energy_joules_total Energy since boot \"as reported\".\\nSecond line "
            "\\\\ end.\n"
            "# TYPE gpu_energy_joules_total counter\n"
            "gpu_energy_joules_total{gpu=\"0\",pod=\"a\\\"b\\\\c\\nd\"} 12.5 1712345678901\n"
            "# HELP gpu_info Static device facts.\n"
            "# TYPE gpu_info gauge\n"
            "gpu_info{model=\"H100\"} 1\n");
}

TEST(ExpositionWriterTest, WritesOpenMetrics) {
  std::string out;
  ExpositionWriter w(ExpositionFormat::kOpenMetrics, &out);
  w.BeginFamily(MetaFor("gpu_energy_joules_total"));
  w.WriteSample("gpu_energy_joules_total", Labels{{"gpu", "0"}}, 12.5, 1712345678901);
  w.WriteSample("gpu_energy_joules_total", Labels{{"gpu", "1"}}, 3, -1500);
  w.BeginFamily(MetaFor("gpu_info"));
  w.WriteSample("gpu_info", Labels{{"model", "H100"}}, 1);
  w.BeginFamily({"gpu_power_watts", "gauge", "celsius", ""});  // unit not a suffix: dropped
  w.WriteSample("gpu_power_watts", Labels{}, NAN);
  w.Finish();
  EXPECT_EQ(out,
            "# TYPE gpu_energy_joules counter\n"
            "# UNIT gpu_energy_joules joules\n"
            "# HELP gpu_energy_joules Energy since boot \\\"as reported\\\".\\nSecond line "
            "\\\\ end.\n"
            "gpu_energy_joules_total{gpu=\"0\"} 12.5 1712345678.901\n"
            "gpu_energy_joules_total{gpu=\"1\"} 3 -1.500\n"
            "# TYPE gpu info\n"
            "# HELP gpu Static device facts.\n"
            "gpu_info{model=\"H100\"} 1\n"
            "# TYPE gpu_power_watts gauge\n"
            "gpu_power_watts NaN\n"
            "# EOF\n");
}

TEST(ExpositionWriterTest, OpenMetricsDowngradesCounterWithoutTotalSuffix) {
  std::string out;
  ExpositionWriter w(ExpositionFormat::kOpenMetrics, &out);
  w.BeginFamily({"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "", ""});
  w.BeginFamily({"x", "untyped", "", ""});
  EXPECT_EQ(out,
            "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown\n"
            "# TYPE x unknown\n");
}

TEST(ExpositionWriterTest, WriteExpositionGroupsByNameInFirstAppearanceOrder) {
  std::vector<Sample> samples = {
      {"gpu_power_watts", Labels{{"gpu", "0"}}, 100, 5},
      {"gpu_energy_joules_total", Labels{{"gpu", "0"}}, 7, 5},
      {"gpu_power_watts", Labels{{"gpu", "1"}}, 200, 5},
  };
  std::string out;
  WriteExposition(samples, ExpositionFormat::kPrometheusText, MetaFor, &out);
  EXPECT_EQ(out,
            "# HELP gpu_power_watts Power draw.\n"
            "# TYPE gpu_power_watts gauge\n"
            "gpu_power_watts{gpu=\"0\"} 100\n"
            "gpu_power_watts{gpu=\"1\"} 200\n"
            "# HELP gpu_energy_joules_total Energy since boot \"as reported\".\\nSecond line "
            "\\\\ end.\n"
            "# TYPE gpu_energy_joules_total counter\n"
            "gpu_energy_joules_total{gpu=\"0\"} 7\n");
}

bool SameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

class RoundTripTest : public testing::TestWithParam<ExpositionFormat> {};

TEST_P(RoundTripTest, WrittenSamplesParseBackIdentically) {
  std::vector<Sample> samples;
  const double values[] = {0,         1,
                           -1,        0.1,
                           1e-300,    1.7976931348623157e308,
                           123456789, 1e15,
                           1e16,      -2.5e-7,
                           NAN,       INFINITY,
                           -INFINITY, 0.3333,
                           4.2e+21,   9007199254740993.0};
  int i = 0;
  for (double v : values) {
    samples.push_back(Sample{i % 2 == 0 ? "gpu_power_watts" : "gpu_energy_joules_total",
                             Labels{{"gpu", std::to_string(i)},
                                    {"pod", "p\"o\\d\n" + std::to_string(i)},
                                    {"model", "Instinct MI300X \xc3\xa9\xe2\x82\xac"}},
                             v, 0});
    ++i;
  }
  samples.push_back(Sample{"gpu_info", Labels{}, 1, 0});
  std::string out;
  WriteExposition(samples, GetParam(), MetaFor, &out);

  CollectingHandler h;
  ExpoParseStats stats = ParseExposition(out, h);
  EXPECT_TRUE(h.errors.empty()) << h.errors[0].ToString("out") << "\n" << out;
  EXPECT_EQ(stats.saw_eof, GetParam() == ExpositionFormat::kOpenMetrics);
  ASSERT_EQ(h.samples.size(), samples.size());
  // The writer groups by name, so match parsed samples by name and gpu label.
  for (const Sample& want : samples) {
    bool found = false;
    for (const OwnedSample& got : h.samples) {
      Labels got_labels;
      for (const auto& [k, v] : got.labels) got_labels.Set(k, v);
      if (got.name != want.name || !(got_labels == want.labels)) continue;
      found = true;
      EXPECT_TRUE(SameValue(got.value, want.value)) << want.name << " " << want.value;
    }
    EXPECT_TRUE(found) << want.name << want.labels.ToString();
  }
  // Metadata round-trips too: the counter family's help text is unescaped.
  bool saw_help = false;
  for (const OwnedMeta& m : h.metas) {
    if (m.kind == ExpoMetaKind::kHelp && m.family.starts_with("gpu_energy_joules")) {
      EXPECT_EQ(m.text, "Energy since boot \"as reported\".\nSecond line \\ end.");
      saw_help = true;
    }
  }
  EXPECT_TRUE(saw_help);
}

TEST_P(RoundTripTest, TimestampsRoundTrip) {
  std::string out;
  ExpositionWriter w(GetParam(), &out);
  w.BeginFamily({"m", "gauge", "", ""});
  const int64_t stamps[] = {0, 1, 999, 1712345678901, -1, -1001, 4102444800123};
  for (int64_t ts : stamps) w.WriteSample("m", Labels{{"ts", std::to_string(ts)}}, 1, ts);
  w.Finish();
  CollectingHandler h;
  ParseExposition(out, h);
  ASSERT_TRUE(h.errors.empty()) << h.errors[0].message << "\n" << out;
  ASSERT_EQ(h.samples.size(), std::size(stamps));
  for (size_t i = 0; i < std::size(stamps); ++i) {
    EXPECT_EQ(h.samples[i].timestamp_ms, stamps[i]) << out;
  }
}

INSTANTIATE_TEST_SUITE_P(BothFormats, RoundTripTest,
                         testing::Values(ExpositionFormat::kPrometheusText,
                                         ExpositionFormat::kOpenMetrics));

}  // namespace
}  // namespace gpufleet
