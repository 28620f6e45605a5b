#include "trace/report_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "trace/analysis_testing.h"

namespace gpufleet::trace {
namespace {

using testing::HandTrace;

// Two ranks with compute, comm, a copy and launches, like a tiny training step.
Timeline& Sample(HandTrace& h) {
  for (int rank = 0; rank < 2; ++rank) {
    h.Launch(rank, 7, "gemm<float>", EventKind::kKernel, 0, 10, 20, 580);
    h.Launch(rank, 8, "ncclDevKernel_AllReduce", EventKind::kCommKernel, 20, 10, 400 + rank * 50,
             400 - rank * 50);
    h.Launch(rank, 9, "Memcpy HtoD", EventKind::kMemcpy, 30, 10, 850, 100, 4096);
    h.Launch(rank, 7, "relu", EventKind::kKernel, 900, 10, 950, 50);
  }
  h.timeline().files[0].clock_offset_ns = 12345;
  h.timeline().files[0].alignment = "collective ends";
  return h.Finish();
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ReportWriterTest, FormatDurationPicksUnits) {
  EXPECT_EQ(FormatDuration(950), "950 ns");
  EXPECT_EQ(FormatDuration(12'345), "12.3 us");
  EXPECT_EQ(FormatDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(FormatDuration(1.5e9), "1.50 s");
}

TEST(ReportWriterTest, ShortKernelNameDropsVoidAndParameters) {
  EXPECT_EQ(ShortKernelName("void at::native::f<4, (int)2>(int, float*)"),
            "at::native::f<4, (int)2>");
  EXPECT_EQ(ShortKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ncclWork*)"),
            "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(ShortKernelName("Memcpy HtoD (Pageable -> Device)"),
            "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(ShortKernelName("gemm"), "gemm");
}

TEST(ReportWriterTest, SummaryHasAlignedTablesAndKeyNumbers) {
  HandTrace h;
  Timeline& t = Sample(h);
  AnalysisReport r = Analyze(t, {});
  std::string s = FormatSummary(t, r);
  EXPECT_NE(s.find("8 device ops"), std::string::npos);
  EXPECT_NE(s.find("Temporal breakdown"), std::string::npos);
  EXPECT_NE(s.find("offset 12.3 us"), std::string::npos);
  // Temporal table: header + 2 ranks, all the same width (right-aligned columns).
  std::vector<std::string> lines = Lines(s);
  size_t header = 0;
  while (header < lines.size() && lines[header].find("  rank  ") != 0) ++header;
  ASSERT_LT(header + 2, lines.size());
  EXPECT_EQ(lines[header].size(), lines[header + 1].size());
  EXPECT_EQ(lines[header].size(), lines[header + 2].size());
  EXPECT_EQ(lines[header + 1].find("  rank 0"), 0u);
  // Rank 0: span 20..1000 = 980 ns; compute 580 + 50 = 630 -> 64.3%.
  EXPECT_NE(lines[header + 1].find("980 ns"), std::string::npos);
  EXPECT_NE(lines[header + 1].find("64.3%"), std::string::npos);
  EXPECT_NE(s.find("Stragglers: metric"), std::string::npos);
}

TEST(ReportWriterTest, JsonHasStableKeysFilesAndNumbers) {
  HandTrace h;
  Timeline& t = Sample(h);
  t.files[0].partial = true;
  t.files[0].skipped = 3;
  AnalysisReport r = Analyze(t, {});
  auto j = nlohmann::json::parse(ReportJson(t, r));
  EXPECT_TRUE(j["partial"].get<bool>());
  ASSERT_EQ(j["files"].size(), 1u);
  EXPECT_EQ(j["files"][0]["clock_offset_ns"], 12345);
  EXPECT_EQ(j["files"][0]["alignment"], "collective ends");
  EXPECT_TRUE(j["files"][0]["partial"].get<bool>());
  EXPECT_EQ(j["files"][0]["skipped"], 3);
  ASSERT_EQ(j["temporal_breakdown"].size(), 2u);
  EXPECT_EQ(j["temporal_breakdown"][0]["span_ns"], 980);
  EXPECT_EQ(j["temporal_breakdown"][0]["compute_ns"], 630);
  EXPECT_EQ(j["kernels"]["top"][0]["name"], "gemm<float>");
  EXPECT_EQ(j["kernels"]["top"][0]["duration_ns"]["count"], 2);
  EXPECT_EQ(j["launch_delay"]["delay_ns"]["count"], 8);
  EXPECT_EQ(j["overlap"].size(), 2u);
  EXPECT_TRUE(j["stragglers"]["computed"].get<bool>());
  EXPECT_EQ(j["processes"][1]["label"], "rank 1");
  for (const char* key : {"idle_time", "notes", "device_ops", "host_events"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(ReportWriterTest, MarkdownTablesAndPartialBanner) {
  HandTrace h;
  Timeline& t = Sample(h);
  t.files[0].partial = true;
  AnalysisReport r = Analyze(t, {});
  std::string md = ReportMarkdown(t, r);
  EXPECT_NE(md.find("**Partial result**"), std::string::npos);
  EXPECT_NE(md.find("| rank | span | compute | comm | memory | idle |"), std::string::npos);
  EXPECT_NE(md.find("| rank 0 | 980 ns | 64.3% |"), std::string::npos);
  EXPECT_NE(md.find("gemm\\<float\\>"), std::string::npos);  // escaped for Markdown
  EXPECT_NE(md.find("## Stragglers"), std::string::npos);
}

// Minimal well-formedness check: every non-void element is closed in order,
// attribute quotes balance, and nothing outside the file is referenced.
::testing::AssertionResult WellFormed(const std::string& html) {
  std::vector<std::string> stack;
  const std::vector<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link"};
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    size_t end = html.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed < at " << i;
    std::string tag = html.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty() || tag[0] == '!') continue;
    size_t quotes = 0;
    for (char ch : tag) quotes += ch == '"';
    if (quotes % 2) return ::testing::AssertionFailure() << "odd quotes in <" << tag << ">";
    bool closing = tag[0] == '/';
    bool self_closing = tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" /"));
    if (self_closing || std::find(kVoid.begin(), kVoid.end(), name) != kVoid.end()) continue;
    if (!closing) {
      stack.push_back(name);
      if (name == "style") {  // CSS may contain '>' selectors; skip to </style>
        i = html.find("</style>", i);
        if (i == std::string::npos) return ::testing::AssertionFailure() << "no </style>";
      }
      continue;
    }
    if (stack.empty() || stack.back() != name) {
      return ::testing::AssertionFailure()
             << "</" << name << "> closes <" << (stack.empty() ? "" : stack.back()) << ">";
    }
    stack.pop_back();
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "<" << stack.back() << "> unclosed";
  return ::testing::AssertionSuccess();
}

TEST(ReportWriterTest, HtmlIsSelfContainedAndWellFormed) {
  HandTrace h;
  Timeline& t = Sample(h);
  AnalysisReport r = Analyze(t, {});
  std::string html = ReportHtml(t, r);
  EXPECT_TRUE(WellFormed(html));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_NE(html.find("gemm&lt;float&gt;"), std::string::npos);
  EXPECT_NE(html.find("rank 1 dev 0 q 8"), std::string::npos);  // a timeline lane
  EXPECT_NE(html.find("#e15759"), std::string::npos);           // comm color drawn
  EXPECT_NE(html.find("Temporal breakdown"), std::string::npos);
  EXPECT_NE(html.find("Launch delay"), std::string::npos);
}

TEST(ReportWriterTest, HtmlSizeIsBoundedForLargeTraces) {
  HandTrace h;
  int64_t t0 = 0;
  for (int i = 0; i < 200'000; ++i) {  // 200k tiny kernels on 4 queues
    h.Op(h.Stream(0, i % 4), i % 3 ? "k_a" : "k_b", i % 7 ? EventKind::kKernel : EventKind::kMemcpy,
         t0, 40);
    t0 += 13;
  }
  Timeline& t = h.Finish();
  AnalysisReport r = Analyze(t, {});
  std::string html = ReportHtml(t, r);
  EXPECT_TRUE(WellFormed(html));
  EXPECT_LT(html.size(), 600'000u);  // bounded by lanes x width, not by events
}

}  // namespace
}  // namespace gpufleet::trace
