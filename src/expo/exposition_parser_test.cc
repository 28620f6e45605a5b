#include "expo/exposition_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <set>
#include <string>

#include "core/strings.h"
#include "expo/exposition_test_util.h"

namespace gpufleet {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

CollectingHandler Parse(std::string_view text, ExpoParseStats* stats = nullptr,
                        ExpoDialect dialect = ExpoDialect::kAuto) {
  CollectingHandler h;
  ExpoParseStats s = ParseExposition(text, h, ExpoParseOptions{dialect});
  if (stats != nullptr) *stats = s;
  return h;
}

TEST(ExpositionParserTest, ParsesDcgmExporterLine) {
  ExpoParseStats stats;
  auto h = Parse(
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-960a\",pci_bus_id=\"00000000:00:1E.0\"} 300\n",
      &stats);
  ASSERT_EQ(h.samples.size(), 1u);
  EXPECT_TRUE(h.errors.empty());
  EXPECT_EQ(h.samples[0].name, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(h.samples[0].labels,
            (Pairs{{"gpu", "0"}, {"UUID", "GPU-960a"}, {"pci_bus_id", "00000000:00:1E.0"}}));
  EXPECT_EQ(h.samples[0].value, 300);
  EXPECT_FALSE(h.samples[0].timestamp_ms.has_value());
  EXPECT_EQ(h.samples[0].line, 1u);
  EXPECT_EQ(stats.samples, 1u);
  EXPECT_EQ(stats.lines, 1u);
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_FALSE(stats.saw_eof);
}

// Names are compared with the previous line's first; a longer name, a
// different one or a bad character after a repeated prefix must still be
// read (or refused) as written.
TEST(ExpositionParserTest, RepeatedNamesAndTheirNeighbours) {
  CollectingHandler h;
  ParseExposition("up 1\nup{a=\"1\"} 2\nupx 3\nup\t4\nu 5\nup-x 6\nup 7\n", h);
  std::vector<std::string> names;
  for (const auto& s : h.samples) names.push_back(s.name + "=" + FormatDouble(s.value));
  EXPECT_EQ(names, (std::vector<std::string>{"up=1", "up=2", "upx=3", "up=4", "u=5", "up=7"}));
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_EQ(h.errors[0].line, 6u);
  EXPECT_NE(h.errors[0].message.find("metric name"), std::string::npos) << h.errors[0].message;
}

TEST(ExpositionParserTest, ParsesHelpTypeUnitAndComments) {
  auto h = Parse(
      "# A plain comment\n"
      "# HELP gpu_power_watts Power draw with \\\\ and \\n escapes.\n"
      "# TYPE gpu_power_watts gauge\n"
      "# UNIT gpu_power_watts watts\n"
      "# HELP empty_help\n"
      "gpu_power_watts 250.5\n");
  EXPECT_TRUE(h.errors.empty());
  ASSERT_EQ(h.metas.size(), 4u);
  EXPECT_EQ(h.metas[0].kind, ExpoMetaKind::kHelp);
  EXPECT_EQ(h.metas[0].family, "gpu_power_watts");
  EXPECT_EQ(h.metas[0].text, "Power draw with \\ and \n escapes.");
  EXPECT_EQ(h.metas[1].kind, ExpoMetaKind::kType);
  EXPECT_EQ(h.metas[1].text, "gauge");
  EXPECT_EQ(h.metas[2].kind, ExpoMetaKind::kUnit);
  EXPECT_EQ(h.metas[2].text, "watts");
  EXPECT_EQ(h.metas[3].family, "empty_help");
  EXPECT_EQ(h.metas[3].text, "");
  ASSERT_EQ(h.samples.size(), 1u);
  EXPECT_EQ(h.samples[0].line, 6u);
}

TEST(ExpositionParserTest, UnescapesLabelValues) {
  auto h = Parse(R"(m{a="back\\slash",b="quo\"te",c="new\nline",d="keep\tas-is"} 1)");
  ASSERT_EQ(h.samples.size(), 1u) << (h.errors.empty() ? "" : h.errors[0].message);
  EXPECT_EQ(
      h.samples[0].labels,
      (Pairs{{"a", "back\\slash"}, {"b", "quo\"te"}, {"c", "new\nline"}, {"d", "keep\\tas-is"}}));
}

TEST(ExpositionParserTest, ParsesSpecialAndExponentValues) {
  auto h =
      Parse("a NaN\nb +Inf\nc -Inf\nd 1.5e+03\ne -2E-2\nf +7\ng 0x1p3\nh 3.545990503e+0\ni Inf\n");
  ASSERT_EQ(h.samples.size(), 8u);
  EXPECT_TRUE(std::isnan(h.samples[0].value));
  EXPECT_EQ(h.samples[1].value, INFINITY);
  EXPECT_EQ(h.samples[2].value, -INFINITY);
  EXPECT_EQ(h.samples[3].value, 1500);
  EXPECT_EQ(h.samples[4].value, -0.02);
  EXPECT_EQ(h.samples[5].value, 7);
  EXPECT_EQ(h.samples[6].value, 3.545990503);
  EXPECT_EQ(h.samples[7].value, INFINITY);
  ASSERT_EQ(h.errors.size(), 1u);  // hex floats are not exposition syntax
  EXPECT_EQ(h.errors[0].line, 7u);
  EXPECT_EQ(h.errors[0].column, 3u);
}

TEST(ExpositionParserTest, ParsesTextTimestampsAsMilliseconds) {
  auto h = Parse("m 1 1712345678901\nn{a=\"b\"} 2 -5\n");
  ASSERT_EQ(h.samples.size(), 2u);
  EXPECT_EQ(h.samples[0].timestamp_ms, 1712345678901);
  EXPECT_EQ(h.samples[1].timestamp_ms, -5);
}

TEST(ExpositionParserTest, RejectsFractionalTimestampInText) {
  auto h = Parse("m 1 1712345678.5\n");
  EXPECT_TRUE(h.samples.empty());
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_EQ(h.errors[0].column, 5u);
  EXPECT_NE(h.errors[0].message.find("milliseconds"), std::string::npos);
}

TEST(ExpositionParserTest, ConvertsOpenMetricsSecondsToMilliseconds) {
  ExpoParseStats stats;
  auto h = Parse("m_total 1 1712345678.901\nn 2 1712345678\n# EOF\n", &stats);
  ASSERT_EQ(h.samples.size(), 2u);
  EXPECT_EQ(h.samples[0].timestamp_ms, 1712345678901);
  EXPECT_EQ(h.samples[1].timestamp_ms, 1712345678000);
  EXPECT_TRUE(stats.saw_eof);
}

TEST(ExpositionParserTest, ExplicitDialectOverridesSniffing) {
  auto h = Parse("n 2 1712345678\n", nullptr, ExpoDialect::kOpenMetrics);
  ASSERT_EQ(h.samples.size(), 1u);
  EXPECT_EQ(h.samples[0].timestamp_ms, 1712345678000);
  auto t = Parse("n 2 17\n# EOF\n", nullptr, ExpoDialect::kPrometheusText);
  ASSERT_EQ(t.samples.size(), 1u);
  EXPECT_EQ(t.samples[0].timestamp_ms, 17);
}

TEST(ExpositionParserTest, SkipsExemplars) {
  auto h = Parse(
      "# TYPE req counter\n"
      "req_total{path=\"/\"} 17 # {trace_id=\"abc\"} 1.0 1712345678.1\n"
      "req_total{path=\"/x\"} 18 1712345679 # {trace_id=\"def\"} 2\n"
      "# EOF\n");
  EXPECT_TRUE(h.errors.empty());
  ASSERT_EQ(h.samples.size(), 2u);
  EXPECT_EQ(h.samples[0].value, 17);
  EXPECT_FALSE(h.samples[0].timestamp_ms.has_value());
  EXPECT_EQ(h.samples[1].timestamp_ms, 1712345679000);
}

TEST(ExpositionParserTest, AcceptsEmptyLabelSetsTrailingCommasAndBlanks) {
  auto h = Parse(
      "a{} 1\n"
      "b{x=\"1\",} 2\n"
      "c { x = \"1\" , y=\"2\" , } 3\n"
      "\td{x=\"\"}\t4\t\n"
      "\n"
      "   \n");
  EXPECT_TRUE(h.errors.empty()) << h.errors[0].message;
  ASSERT_EQ(h.samples.size(), 4u);
  EXPECT_TRUE(h.samples[0].labels.empty());
  EXPECT_EQ(h.samples[1].labels, (Pairs{{"x", "1"}}));
  EXPECT_EQ(h.samples[2].labels, (Pairs{{"x", "1"}, {"y", "2"}}));
  EXPECT_EQ(h.samples[3].labels, (Pairs{{"x", ""}}));
  EXPECT_EQ(h.samples[3].value, 4);
}

TEST(ExpositionParserTest, ToleratesCrlf) {
  auto h = Parse("# HELP m Help.\r\n# TYPE m gauge\r\nm{a=\"b\"} 1\r\nn 2 15\r\n");
  EXPECT_TRUE(h.errors.empty());
  ASSERT_EQ(h.samples.size(), 2u);
  EXPECT_EQ(h.metas[0].text, "Help.");
  EXPECT_EQ(h.metas[1].text, "gauge");
  EXPECT_EQ(h.samples[1].timestamp_ms, 15);
}

TEST(ExpositionParserTest, ParsesInputWithoutFinalNewline) {
  auto h = Parse("m 1\nn 2");
  ASSERT_EQ(h.samples.size(), 2u);
  EXPECT_EQ(h.samples[1].value, 2);
}

struct BadLine {
  std::string text;
  size_t column;
  std::string message_part;
};

class ExpositionParserErrorTest : public testing::TestWithParam<BadLine> {};

TEST_P(ExpositionParserErrorTest, ReportsPositionAndSkipsOnlyThatLine) {
  const BadLine& bad = GetParam();
  std::string text = "ok_before 1\n" + bad.text + "\nok_after 2\n";
  ExpoParseStats stats;
  auto h = Parse(text, &stats);
  ASSERT_EQ(h.errors.size(), 1u) << bad.text;
  const ExpoError& e = h.errors[0];
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, bad.column) << e.message;
  EXPECT_EQ(e.offset, 12 + bad.column - 1);
  EXPECT_NE(e.message.find(bad.message_part), std::string::npos) << e.message;
  ASSERT_EQ(h.samples.size(), 2u);
  EXPECT_EQ(h.samples[0].name, "ok_before");
  EXPECT_EQ(h.samples[1].name, "ok_after");
  EXPECT_EQ(stats.errors, 1u);
  EXPECT_EQ(stats.samples, 2u);
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, ExpositionParserErrorTest,
    testing::Values(
        BadLine{"1abc 1", 1, "start of a metric name"},
        BadLine{"{a=\"b\"} 1", 1, "metric name missing"},
        BadLine{"na-me 1", 3, "invalid character in metric name"},
        BadLine{"m{a=\"1\" b=\"2\"} 1", 9, "expected ',' or '}'"},
        BadLine{"m{a \"1\"} 1", 5, "expected '='"}, BadLine{"m{a=1} 1", 5, "expected '\"'"},
        BadLine{"m{a=\"1} 1", 5, "unterminated label value"},
        BadLine{"m{a=\"1\"", 8, "unterminated label set"},
        BadLine{"m{1a=\"1\"} 1", 3, "start of a label name"},
        BadLine{"m{a-b=\"1\"} 1", 4, "invalid character in label name"},
        BadLine{"m{a=\"1\",a=\"2\"} 1", 9, "duplicate label name"},
        BadLine{"m{a=\"\xff\"} 1", 6, "not valid UTF-8"}, BadLine{"m", 2, "missing value"},
        BadLine{"m{a=\"1\"}", 9, "missing value"}, BadLine{"m abc", 3, "invalid value \"abc\""},
        BadLine{"m{a=\"1\"}2", 9, "expected a blank"}, BadLine{"m 1 2 3", 7, "unexpected text"},
        BadLine{"m 1 ++2", 5, "invalid timestamp"},
        BadLine{"# TYPE m bogus", 10, "unknown metric type"},
        BadLine{"# TYPE m", 9, "missing type name"},
        BadLine{"# TYPE m gauge extra", 16, "unexpected text after TYPE"},
        BadLine{"# HELP", 7, "missing metric name"},
        BadLine{"# HELP 9m x", 8, "start of a metric name"}));

TEST(ExpositionParserTest, ReportsErrorAsOriginLineColumn) {
  auto h = Parse("m abc\n");
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_EQ(h.errors[0].ToString("scrape.prom"), "scrape.prom:1:3: invalid value \"abc\"");
}

TEST(ExpositionParserTest, AmdDocsEllipsisLabelIsAnErrorForThatLineOnly) {
  // Verbatim upstream line from ROCm/device-metrics-exporter docs.
  auto h = Parse(
      "# TYPE gpu_afid_errors gauge\n"
      "gpu_afid_errors{afid_index=\"0\", severity=\"fatal\", gpu_id=\"0\", ...} 30\n"
      "gpu_process_cu_occupancy{process_id=\"1234\"} 5\n");
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_EQ(h.errors[0].line, 2u);
  EXPECT_EQ(h.errors[0].column, 63u);  // the first "."
  ASSERT_EQ(h.samples.size(), 1u);
  EXPECT_EQ(h.samples[0].name, "gpu_process_cu_occupancy");
}

TEST(ExpositionParserTest, ReportsContentAfterEofOnce) {
  ExpoParseStats stats;
  auto h = Parse("a 1\n# EOF\nb 2\nc 3\n", &stats);
  ASSERT_EQ(h.samples.size(), 1u);
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_EQ(h.errors[0].line, 3u);
  EXPECT_TRUE(stats.saw_eof);
  EXPECT_EQ(stats.errors, 1u);
}

TEST(ExpositionParserTest, LabelViewsStayValidDuringCallbackWithManyEscapes) {
  // Many escaped values on one line exercise the scratch buffer: every view
  // must still read correctly when the sample is delivered.
  std::string line = "m{";
  for (int i = 0; i < 50; ++i) {
    line += "l" + std::to_string(i) + "=\"v\\\\" + std::to_string(i) + "\",";
  }
  line += "} 1\n";
  auto h = Parse(line);
  ASSERT_EQ(h.samples.size(), 1u);
  ASSERT_EQ(h.samples[0].labels.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(h.samples[0].labels[i].second, "v\\" + std::to_string(i));
  }
}

TEST(ExpositionParserTest, FindsQuotesEscapesAndBadUtf8AtEveryOffset) {
  // The value scan works 8 bytes at a time; every position within a word
  // must still be found.
  for (size_t k = 0; k < 20; ++k) {
    std::string pad(k, 'x');
    auto h = Parse("m{a=\"" + pad + "\",b=\"" + pad + "\\\"" + pad + "\"} 1\n");
    ASSERT_EQ(h.samples.size(), 1u) << k;
    EXPECT_EQ(h.samples[0].labels, (Pairs{{"a", pad}, {"b", pad + "\"" + pad}})) << k;
    auto bad =
        Parse("m{a=\"" + pad + "\xc3\xa9" + pad + "\",b=\"" + pad + "\xe2\x82" + pad + "\"} 1\n");
    ASSERT_EQ(bad.errors.size(), 1u) << k;
    EXPECT_EQ(bad.errors[0].column, 13 + 2 * k) << k;  // the value of b
  }
}

TEST(ExpositionParserTest, FindsDuplicateInLongLabelSet) {
  std::string line = "m{";
  for (int i = 0; i < 40; ++i) line += "l" + std::to_string(i) + "=\"v\",";
  size_t dup_column = line.size() + 1;
  line += "l7=\"again\"} 1\n";
  auto h = Parse(line);
  EXPECT_TRUE(h.samples.empty());
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_EQ(h.errors[0].column, dup_column);
  EXPECT_NE(h.errors[0].message.find("duplicate label name \"l7\""), std::string::npos);
}

TEST(ExpositionParserTest, SurvivesArbitraryBytes) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>((i * 131 + 7) % 256));
  ExpoParseStats stats;
  auto h = Parse(junk, &stats);
  EXPECT_LE(stats.samples + stats.errors + h.metas.size(), stats.lines);
  EXPECT_GT(stats.errors, 0u);
}

// Every verbatim vendor .prom fixture parses with the expected sample and
// error counts (errors only for the documented upstream quirks).
std::filesystem::path TelemetryFixtureDir() {
  std::filesystem::path in_tree =
      std::filesystem::path(GPUFLEET_SOURCE_DIR) / "tests/data/telemetry";
  if (std::filesystem::exists(in_tree)) return in_tree;
  return std::filesystem::path(GPUFLEET_SOURCE_DIR) / "../shared/fixtures/telemetry";
}

TEST(ExpositionParserTest, ParsesEveryVendorFixture) {
  std::filesystem::path dir = TelemetryFixtureDir();
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no telemetry fixtures at " << dir;
  struct Expect {
    size_t samples;
    size_t errors;
  };
  const std::map<std::string, Expect> expected = {
      {"amd-device-metrics-exporter_docs-metricslist-examples.prom", {23, 2}},
      {"amd-device-metrics-exporter_issue-171_MI300X-VF.prom", {1, 0}},
      {"dcgm-exporter_k8s-labels_T4_DCGM-issue-191.prom", {6, 0}},
      {"dcgm-exporter_mig_A100_cloud-native-docs.prom", {21, 0}},
      {"dcgm-exporter_xid-count_PR-239.prom", {1, 0}},
  };
  size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".prom") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    std::string text = buf.str();
    ExpoParseStats stats;
    auto h = Parse(text, &stats);
    std::string file = entry.path().filename().string();
    auto it = expected.find(file);
    if (it == expected.end()) {
      // A fixture added later: it must at least yield samples.
      EXPECT_GT(stats.samples, 0u) << file;
      continue;
    }
    EXPECT_EQ(stats.samples, it->second.samples) << file;
    EXPECT_EQ(stats.errors, it->second.errors) << file;
    for (const ExpoError& e : h.errors) {
      EXPECT_NE(e.message.find("label name"), std::string::npos) << e.ToString(file);
    }
    ++seen;
  }
  EXPECT_EQ(seen, expected.size());
}

// Remembers the raw label text of every sample and claims to know it the
// next time, as the translator does.
class RememberingHandler : public CollectingHandler {
 public:
  size_t KnownLabelSet(std::string_view rest) override {
    asked.emplace_back(rest);
    for (const std::string& raw : seen) {
      if (rest.size() > raw.size() && rest.starts_with(raw) && rest[raw.size()] == '}') {
        return raw.size();
      }
    }
    return std::string_view::npos;
  }
  void OnSample(const ExpoSample& s) override {
    CollectingHandler::OnSample(s);
    parsed.push_back(s.labels_parsed);
    raws.emplace_back(s.raw_labels);
    if (s.labels_parsed) seen.insert(std::string(s.raw_labels));
  }
  std::set<std::string> seen;
  std::vector<std::string> asked;
  std::vector<bool> parsed;
  std::vector<std::string> raws;
};

TEST(ExpositionParserTest, KnownLabelSetSkipsParsingOnlyForTextTheHandlerKnows) {
  RememberingHandler h;
  ParseExposition(
      "a{gpu=\"0\",UUID=\"GPU-1\"} 1\n"
      "b{gpu=\"0\",UUID=\"GPU-1\"} 2\n"      // known: skipped
      "c{gpu=\"0\",note=\"x}y\"} 3\n"        // '}' inside a value: parsed the first time
      "d{gpu=\"0\",note=\"x}y\"} 4\n"        // then known whole, inner '}' and all
      "e{gpu=\"0\",UUID=\"GPU-1\",z=\"1\"} 5\n"  // a known set as a prefix: not followed by '}'
      "f{gpu=\"0\",UUID=\"GPU-1\"} oops\n",  // known labels, bad value: still an error
      h);
  ASSERT_EQ(h.samples.size(), 5u);
  EXPECT_EQ(h.parsed, (std::vector<bool>{true, false, true, false, true}));
  EXPECT_TRUE(h.samples[1].labels.empty());
  EXPECT_EQ(h.raws[1], "gpu=\"0\",UUID=\"GPU-1\"");
  EXPECT_EQ(h.samples[1].value, 2);
  EXPECT_EQ(h.asked[2], "gpu=\"0\",note=\"x}y\"} 3");
  EXPECT_EQ(h.raws[2], "gpu=\"0\",note=\"x}y\"");
  ASSERT_EQ(h.samples[2].labels.size(), 2u);
  EXPECT_EQ(h.samples[2].labels[1].second, "x}y");
  EXPECT_EQ(h.raws[3], "gpu=\"0\",note=\"x}y\"");
  EXPECT_EQ(h.samples[3].value, 4);
  ASSERT_EQ(h.samples[4].labels.size(), 3u);
  EXPECT_EQ(h.samples[4].labels[2].second, "1");
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_EQ(h.errors[0].line, 6u);
}

}  // namespace
}  // namespace gpufleet
