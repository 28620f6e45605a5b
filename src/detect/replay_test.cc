#include "detect/replay.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_util.h"
#include "detect/finding.h"
#include "detect/gavel_colocation.h"
#include "detect/replay_reader.h"
#include "detect/sim_recording.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kT0 = 1'733'300'000;  // unix seconds

std::vector<std::tuple<std::string, int64_t, double>> ReadAll(ReplayReader& r) {
  std::vector<std::tuple<std::string, int64_t, double>> out;
  r.ForEach([&](const Labels& l, int64_t ts, double v) {
    out.emplace_back(l.ToString(), ts, v);
  });
  return out;
}

TEST(ReplayReaderTest, SeriesBySeriesOpenMetricsComesOutInDataTime) {
  // The layout promtool takes: one series after the other.
  std::string text =
      "# TYPE gpu_utilization_ratio gauge\n"
      "gpu_utilization_ratio{gpu=\"0\",node=\"n1\"} 0.1 1733300000\n"
      "gpu_utilization_ratio{gpu=\"0\",node=\"n1\"} 0.2 1733300010\n"
      "gpu_utilization_ratio{gpu=\"1\",node=\"n1\"} 0.3 1733300000\n"
      "gpu_utilization_ratio{gpu=\"1\",node=\"n1\"} 0.4 1733300010.5\n"
      "# EOF\n";
  ReplayReader r;
  r.AddBuffer("rec.om", text);
  auto got = ReadAll(r);
  ASSERT_EQ(got.size(), 4u);
  std::vector<int64_t> ts;
  for (auto& [l, t, v] : got) ts.push_back(t);
  EXPECT_TRUE(std::is_sorted(ts.begin(), ts.end()));
  EXPECT_EQ(std::get<1>(got[3]), 1733300010500 * 1'000'000);
  EXPECT_EQ(r.stats().runs, 2u);
  EXPECT_EQ(r.stats().backwards, 1u);
  EXPECT_EQ(r.stats().late, 0u);  // each series is in order within the file
}

// Regression (found by detect_replay_fuzz): label values were kept as views
// into the parser's scratch space and read after it was freed; escaped
// values live only there.
TEST(ReplayReaderTest, LabelValuesAreCopiedOutOfTheParser) {
  std::string text =
      "gpu_utilization_ratio{gpu=\"0\",node=\"n\\\"1\"} 0.1 1733300000\n"
      "gpu_utilization_ratio{gpu=\"1\",node=\"n2\"} 0.2 1733300000\n"
      "gpu_utilization_ratio{gpu=\"0\",node=\"n\\\"1\"} 0.3 1733300010\n";
  ReplayReader r;
  r.AddBuffer("esc.prom", text);
  std::vector<std::string> nodes;
  r.ForEach([&](const Labels& l, int64_t, double) { nodes.emplace_back(l.Get("node")); });
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0], "n\"1");
  EXPECT_EQ(nodes[2], "n\"1");
}

// A series seen before is found by its text up to the first '}' and its
// labels are not parsed again: a '}' inside a value, a series whose text is
// a prefix of another's, an exemplar and a malformed repeat must all come
// out as a full parse gives them.
TEST(ReplayReaderTest, RepeatedSeriesComeOutAsTheirFirstParse) {
  std::string text =
      "m{a=\"x}y\",b=\"1\"} 1 1733300000\n"
      "m{a=\"x\"} 2 1733300000\n"
      "m{a=\"x\",c=\"2\"} 3 1733300000\n"
      "m{a=\"x}y\",b=\"1\"} 4 1733300010\n"
      "m{a=\"x\"} 5 1733300010 # {trace_id=\"t\"} 9 1733300010\n"
      "m{a=\"x\",c=\"2\"} 6 1733300010\n"
      "m{a=\"x\"} oops 1733300020\n"
      "m{a=\"x\"}7 1733300020\n"
      "# EOF\n";
  ReplayReader r;
  r.AddBuffer("rep.om", text);
  auto got = ReadAll(r);
  ASSERT_EQ(got.size(), 6u);
  std::multiset<std::string> first, second;
  for (size_t i = 0; i < 3; ++i)
    first.insert(std::get<0>(got[i]) + std::to_string(std::get<2>(got[i]) + 3));
  for (size_t i = 3; i < 6; ++i)
    second.insert(std::get<0>(got[i]) + std::to_string(std::get<2>(got[i])));
  EXPECT_EQ(first, second);
  EXPECT_EQ(r.stats().malformed, 2u);
  EXPECT_EQ(std::get<1>(got[4]), 1733300010LL * kS);
  // A repeat's errors are those of a full parse of its line (here the
  // lines alone, so nothing is known): same column, same message.
  ReplayReader alone;
  alone.AddBuffer("rep.om",
                  "m{a=\"x\"} oops 1733300020\nm{a=\"x\"}7 1733300020\n"
                  "m{a=\"x\"} 7 1733300020 junk\n");
  ReadAll(alone);
  ReplayReader repeat;
  repeat.AddBuffer("rep.om",
                   "m{a=\"x\"} 1 1733300000\nm{a=\"x\"} oops 1733300020\n"
                   "m{a=\"x\"}7 1733300020\nm{a=\"x\"} 7 1733300020 junk\n");
  ReadAll(repeat);
  ASSERT_EQ(alone.stats().errors.size(), 3u);
  ASSERT_EQ(repeat.stats().errors.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const std::string& a = alone.stats().errors[i];
    const std::string& b = repeat.stats().errors[i];
    EXPECT_EQ(a.substr(a.find(": ")), b.substr(b.find(": "))) << a << " / " << b;
  }
  EXPECT_NE(alone.stats().errors[0].find("column 10: invalid value"), std::string::npos)
      << alone.stats().errors[0];
}

// A recording in time order (equal timestamps included) is one run (and the
// reader identifies no series in it); a step back at its end starts a
// second run, and a line older than its own series' previous sample is
// late, however far back in the in-order part that sample is.
TEST(ReplayReaderTest, TimeOrderedFileIsOneRunAndAStepBackIsStillFound) {
  const std::string ordered =
      "m{n=\"a\"} 1 100\n"
      "m{n=\"b\"} 1 100\n"
      "m{n=\"a\"} 2 110\n"
      "m{n=\"b\"} 2 110\n";
  const std::string ordered_file = ordered + "# EOF\n";
  const std::string stepped_file =
      ordered + "m{n=\"b\"} 3 120\nm{n=\"a\"} 3 105\n# EOF\n";  // a's clock stepped back
  ReplayReader in_order;
  in_order.AddBuffer("ordered.om", ordered_file);
  EXPECT_EQ(ReadAll(in_order).size(), 4u);
  EXPECT_EQ(in_order.stats().runs, 1u);
  EXPECT_EQ(in_order.stats().backwards + in_order.stats().late, 0u);

  ReplayReader stepped;
  stepped.AddBuffer("stepped.om", stepped_file);
  auto got = ReadAll(stepped);
  EXPECT_EQ(got.size(), 5u);
  EXPECT_EQ(stepped.stats().late, 1u);
  EXPECT_EQ(stepped.stats().runs, 2u);
  EXPECT_EQ(stepped.stats().backwards, 1u);

  // A series seen only at the very start and again after a step back, older:
  // late as well, however far back its newest sample is.
  const std::string far =
      "m{n=\"c\"} 1 100\nm{n=\"a\"} 1 100\nm{n=\"a\"} 2 110\nm{n=\"a\"} 3 120\n"
      "m{n=\"a\"} 4 115\nm{n=\"c\"} 2 99\nm{n=\"c\"} 3 101\n# EOF\n";
  ReplayReader far_back;
  far_back.AddBuffer("far.om", far);
  EXPECT_EQ(ReadAll(far_back).size(), 5u);
  EXPECT_EQ(far_back.stats().late, 2u);
}

// A node whose clock steps back: its samples older than their series'
// previous one arrived late and are dropped (as a TSDB rejects them), not
// sorted in between that series' earlier samples. Other series are merged
// as before.
TEST(ReplayReaderTest, SamplesOlderThanTheirSeriesArriveLateAndAreDropped) {
  std::string text =
      "m{n=\"a\"} 1 100\n"
      "m{n=\"b\"} 1 100\n"
      "m{n=\"a\"} 2 110\n"
      "m{n=\"b\"} 2 110\n"
      "m{n=\"a\"} 3 95\n"  // a's clock stepped back 15 s
      "m{n=\"b\"} 3 120\n"
      "m{n=\"a\"} 4 105\n"  // still behind a's 110
      "m{n=\"a\"} 5 115\n"
      "# EOF\n";
  ReplayReader r;
  r.AddBuffer("skew.om", text);
  std::vector<std::pair<int64_t, double>> a, b;
  r.ForEach([&](const Labels& l, int64_t ts, double v) {
    (l.Get("n") == "a" ? a : b).emplace_back(ts / kS, v);
  });
  EXPECT_EQ(a, (std::vector<std::pair<int64_t, double>>{{100, 1}, {110, 2}, {115, 5}}));
  EXPECT_EQ(b, (std::vector<std::pair<int64_t, double>>{{100, 1}, {110, 2}, {120, 3}}));
  EXPECT_EQ(r.stats().late, 2u);
  EXPECT_EQ(r.stats().samples, 6u);
}

TEST(ReplayReaderTest, VictoriaMetricsExportLines) {
  std::string text =
      "{\"metric\":{\"__name__\":\"gpu_utilization_ratio\",\"node\":\"n1\",\"gpu\":\"0\"},"
      "\"values\":[0.5,0.7],\"timestamps\":[1733300000000,1733300020000]}\n"
      "{\"metric\":{\"__name__\":\"gpu_utilization_ratio\",\"node\":\"n1\",\"gpu\":\"1\"},"
      "\"values\":[0.6,null],\"timestamps\":[1733300010000,1733300030000]}\n";
  ReplayReader r;
  r.AddBuffer("rec.jsonl", text);
  auto got = ReadAll(r);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(std::get<2>(got[0]), 0.5);
  EXPECT_EQ(std::get<2>(got[1]), 0.6);
  EXPECT_EQ(std::get<2>(got[2]), 0.7);
  // Each line its own series (every line once came out with the first
  // line's labels: the key was built from labels already moved away).
  const std::string gpu0 = "{__name__=\"gpu_utilization_ratio\",gpu=\"0\",node=\"n1\"}";
  const std::string gpu1 = "{__name__=\"gpu_utilization_ratio\",gpu=\"1\",node=\"n1\"}";
  EXPECT_EQ(std::get<0>(got[0]), gpu0);
  EXPECT_EQ(std::get<0>(got[1]), gpu1);
  EXPECT_EQ(std::get<0>(got[2]), gpu0);
  EXPECT_EQ(r.stats().nan, 1u);
}

TEST(ReplayReaderTest, PromtoolTsdbDumpLines) {
  // `promtool tsdb dump` (Prometheus 2.x): the name among the labels, sorted
  // by label name (an upper-case one before __name__), ", " between them,
  // millisecond timestamps, one series after another.
  std::string text =
      "{Hostname=\"h\", __name__=\"DCGM_FI_DEV_GPU_UTIL\", gpu=\"0\"} 95 1733300000000\n"
      "{Hostname=\"h\", __name__=\"DCGM_FI_DEV_GPU_UTIL\", gpu=\"0\"} 96 1733300010000\n"
      "{__name__=\"gpu_utilization_ratio\", gpu=\"1\", node=\"n1\"} 0.5 1733300005000\n"
      "{gpu=\"2\", node=\"n1\"} 0.5 1733300005000\n";  // no name: malformed
  ReplayReader r;
  r.AddBuffer("dump.txt", text);
  auto got = ReadAll(r);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], std::make_tuple(std::string("{Hostname=\"h\",__name__=\"DCGM_FI_DEV_GPU_UTIL\","
                                                "gpu=\"0\"}"),
                                    int64_t{1733300000} * kS, 95.0));
  EXPECT_EQ(got[1], std::make_tuple(std::string("{__name__=\"gpu_utilization_ratio\",gpu=\"1\","
                                                "node=\"n1\"}"),
                                    int64_t{1733300005} * kS, 0.5));
  EXPECT_EQ(std::get<2>(got[2]), 96.0);
  EXPECT_EQ(r.stats().malformed, 1u);
}

TEST(ReplayReaderTest, ExportLinesAsTextReadBackAsTheSameSamples) {
  // What a vendor recording in VictoriaMetrics' format becomes before the
  // exporter translation, which reads text.
  const std::string json =
      "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"0\",\"Hostname\":\"n1\","
      "\"modelName\":\"NVIDIA H100 80GB HBM3\"},\"values\":[95,\"7.5e1\"],"
      "\"timestamps\":[1733300000000,1733300010500]}\n"
      "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"1\",\"Hostname\":\"n1\","
      "\"note\":\"a \\\"quoted\\\" value\"},\"values\":[3],\"timestamps\":[1733300005000]}\n";
  ReplayReader from_json;
  from_json.AddBuffer("rec.jsonl", json);
  const std::string text = SamplesAsText(from_json);
  EXPECT_EQ(
      text.substr(0, text.find('\n')),
      "DCGM_FI_DEV_GPU_UTIL{Hostname=\"n1\",gpu=\"0\",modelName=\"NVIDIA H100 80GB HBM3\"} 95 "
      "1733300000000");
  ReplayReader json_again, from_text;
  json_again.AddBuffer("rec.jsonl", json);
  from_text.AddBuffer("rec.prom", text);
  const auto want = ReadAll(json_again);
  ASSERT_EQ(want.size(), 3u);
  EXPECT_EQ(ReadAll(from_text), want);
  EXPECT_EQ(from_text.stats().malformed, 0u);

  // VictoriaMetrics takes any label name; text cannot hold "k8s.pod".
  ReplayReader odd;
  odd.AddBuffer("odd.jsonl",
                "{\"metric\":{\"__name__\":\"m\",\"k8s.pod\":\"p\"},\"values\":[1,2],"
                "\"timestamps\":[1000,2000]}\n"
                "{\"metric\":{\"__name__\":\"m\",\"pod\":\"p\"},\"values\":[3],"
                "\"timestamps\":[1500]}\n");
  uint64_t skipped = 0;
  EXPECT_EQ(SamplesAsText(odd, &skipped), "m{pod=\"p\"} 3 1500\n");
  EXPECT_EQ(skipped, 2u);
}

TEST(ReplayReaderTest, BadInputIsCountedNotFatal) {
  std::string text =
      "gpu_utilization_ratio{gpu=\"0\",node=\"n1\"} 0.1 1733300000\n"
      "gpu_utilization_ratio{gpu=\"0\",node=\"n1\" 0.2 1733300010\n"  // no '}'
      "gpu_utilization_ratio{gpu=\"0\",node=\"n1\"} 0.3\n"             // no timestamp
      "gpu_utilization_ratio{gpu=\"0\",node=\"n1\"} NaN 1733300030\n"
      "gpu_utilization_ratio{gpu=\"0\",node=\"n1\"} 0.5 1733300040\n";
  ReplayReader r;
  r.AddBuffer("bad.prom", text);
  auto got = ReadAll(r);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(r.stats().malformed, 1u);
  EXPECT_EQ(r.stats().no_timestamp, 1u);
  EXPECT_EQ(r.stats().nan, 1u);
  ASSERT_FALSE(r.stats().errors.empty());
  EXPECT_EQ(r.stats().errors[0].rfind("bad.prom:2:", 0), 0u) << r.stats().errors[0];
  ReplayReader j;
  j.AddBuffer("bad.jsonl", "{\"metric\":{\"node\":\"n1\"},\"values\":[1],\"timestamps\":[1]}\n{oops\n");
  EXPECT_TRUE(ReadAll(j).empty());
  EXPECT_EQ(j.stats().malformed, 2u);
}

TEST(ReplayTruthTest, ParsesRowsAndCountsBadOnes) {
  uint64_t bad = 0;
  std::vector<std::string> errors;
  auto rows = ParseTruthCsv(
      "kind,cause,node,gpu_uuid,start_s,end_s,slowdown\n"
      "memory_contention,bandwidth_saturation,n1,GPU-a,100,200,0.18\n"
      "variance,,n1,GPU-b,100,50,\n"
      "baseline_deviation,,n1,GPU-c,100,300,\n",
      "t.csv", &bad, &errors);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_DOUBLE_EQ((*rows)[0].slowdown, 0.18);
  EXPECT_LT((*rows)[1].slowdown, 0);
  EXPECT_EQ(bad, 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("t.csv:3:", 0), 0u);
  EXPECT_FALSE(ParseTruthCsv("a,b\n", "t.csv", &bad, &errors).ok());
}

// Twenty minutes of two GPUs; GPU 0 runs with the DRAM busy and warps
// starved from minute 5 to minute 15, and (when `slowed`) its SMs 30% less
// active than before: the measured slowdown that makes it contention.
std::string Recording(bool slowed = true) {
  std::string out;
  for (const char* gpu : {"0", "1"}) {
    for (const char* metric : {"gpu_memory_bandwidth_utilization_ratio", "gpu_sm_occupancy_ratio",
                               "gpu_utilization_ratio", "gpu_sm_active_ratio"}) {
      for (int64_t t = 0; t < 1200; t += 10) {
        const bool hot = gpu[0] == '0' && t >= 300 && t < 900;
        double v = 0.6;
        if (std::string_view(metric) == "gpu_memory_bandwidth_utilization_ratio") v = hot ? 0.93 : 0.5;
        if (std::string_view(metric) == "gpu_sm_occupancy_ratio") v = hot ? 0.3 : 0.7;
        if (std::string_view(metric) == "gpu_sm_active_ratio") v = hot && slowed ? 0.56 : 0.8;
        out += std::string(metric) + "{gpu=\"" + gpu + "\",gpu_uuid=\"GPU-" + gpu +
               "\",node=\"n1\"} " + std::to_string(v) + " " + std::to_string(kT0 + t) + "\n";
      }
    }
  }
  return out + "# EOF\n";
}

TEST(ReplayTest, ContendedGpuOpensOneIncidentThatTheTruthMatches) {
  const std::string text = Recording();
  ReplayReader r;
  r.AddBuffer("rec.om", text);
  auto result = RunReplay(DefaultDetectConfig(), r);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->devices, 2u);
  int contention = 0;
  for (const IncidentRecord& inc : result->incidents) {
    if (ScoredKind(inc.kind) == "contention") {
      ++contention;
      EXPECT_EQ(inc.subject.Get("gpu"), "0");
      EXPECT_GE(inc.first_seen_ns, (kT0 + 300) * kS);
    }
  }
  EXPECT_EQ(contention, 1);
  std::vector<TruthRow> truth(1);
  truth[0] = {"memory_contention", "", "n1", "GPU-0", (kT0 + 300) * kS, (kT0 + 900) * kS, 0.2};
  ReplayScore score = ScoreReplay(DefaultDetectConfig(), *result, truth);
  const ScoreLine* line = nullptr;
  for (const ScoreLine& l : score.lines) {
    if (l.kind == "contention" && l.cause.empty()) line = &l;
  }
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->detected, 1);
  EXPECT_EQ(line->bucket_detected[3], 1);
  EXPECT_EQ(line->true_incidents, line->incidents);
  EXPECT_NE(FormatReplay(*result, &score).find("| contention | all | 1 | 1 |"), std::string::npos)
      << FormatReplay(*result, &score);
}

// Workload-level incidents carry their devices only in `devices`.
TEST(ReplayTest, WorkloadIncidentMatchesByItsDevices) {
  ReplayResult result;
  result.devices = 1;
  result.first_ns = kT0 * kS;
  result.last_ns = (kT0 + 3600) * kS;
  IncidentRecord inc;
  inc.kind = "cloud_specific";
  inc.devices = {"n1/0", "n1/1"};
  inc.first_seen_ns = (kT0 + 600) * kS;
  inc.last_seen_ns = (kT0 + 1200) * kS;
  result.incidents = {inc};
  std::vector<TruthRow> truth(1);
  truth[0] = {"cloud_specific", "", "n1", "1", kT0 * kS, (kT0 + 1800) * kS, -1};
  ReplayScore score = ScoreReplay(DefaultDetectConfig(), result, truth);
  ASSERT_EQ(score.lines.size(), 1u);
  EXPECT_EQ(score.lines[0].detected, 1);
  EXPECT_EQ(score.false_incidents, 0);
  // The JSON lists the devices; one that covers a single device names it as
  // node and gpu, so a reader matching on those finds it too.
  nlohmann::json j = nlohmann::json::parse(ReplayJson(result, &score));
  EXPECT_EQ(j["incidents"][0]["devices"], (nlohmann::json{"n1/0", "n1/1"}));
  EXPECT_EQ(j["incidents"][0]["node"], "");
  result.incidents[0].devices = {"n1/1"};
  j = nlohmann::json::parse(ReplayJson(result, nullptr));
  EXPECT_EQ(j["incidents"][0]["node"], "n1");
  EXPECT_EQ(j["incidents"][0]["gpu"], "1");
}

// Hard-negative rows are windows, not episodes: an unmatched incident on
// their device is charged to the shortest one it overlaps, unless it also
// overlaps a true episode there (a real problem under the wrong kind).
// Latency counts as within bound against the opening rule's own window.
TEST(ReplayTest, HardNegativesTakeTheFalseIncidentsOnTheirWindows) {
  ReplayResult result;
  result.devices = 2;
  result.first_ns = kT0 * kS;
  result.last_ns = (kT0 + 86400) * kS;
  auto incident = [](const std::string& kind, const std::string& gpu, int64_t from_s,
                     int64_t to_s) {
    IncidentRecord inc;
    inc.kind = kind;
    inc.subject = Labels{{"node", "n1"}, {"gpu", gpu}};
    inc.first_seen_ns = (kT0 + from_s) * kS;
    inc.last_seen_ns = (kT0 + to_s) * kS;
    return inc;
  };
  result.incidents = {
      incident("sustained_contention", "0", 1000, 1500),   // in the throttle window
      incident("baseline_deviation", "0", 50000, 50600),   // in the whole-run window only
      incident("baseline_deviation", "1", 10100, 10400),   // during a true episode
      incident("memory_contention", "1", 10100, 10400),    // the true one, 100 s late
      incident("sustained_contention", "1", 30400, 30900)};  // true, 400 s late
  std::vector<TruthRow> truth = {
      {"hard_negative", "solo_memory_bound", "n1", "0", kT0 * kS, (kT0 + 86400) * kS, -1},
      {"hard_negative", "thermal_throttle", "n1", "0", (kT0 + 900) * kS, (kT0 + 4000) * kS, -1},
      {"contention", "memory_pressure", "n1", "1", (kT0 + 10000) * kS, (kT0 + 11000) * kS, 0.3},
      {"contention", "memory_pressure", "n1", "1", (kT0 + 30000) * kS, (kT0 + 31000) * kS, 0.3}};
  const ReplayScore score = ScoreReplay(DefaultDetectConfig(), result, truth);
  EXPECT_EQ(score.false_incidents, 3);
  EXPECT_EQ(score.false_during_episodes, 1);
  ASSERT_EQ(score.negatives.size(), 2u);
  for (const NegativeLine& n : score.negatives) {
    EXPECT_EQ(n.false_incidents, 1) << n.kind;
    EXPECT_EQ(n.false_by_kind.size(), 1u) << n.kind;
  }
  EXPECT_EQ(score.negatives[0].kind, "solo_memory_bound");
  EXPECT_EQ(score.negatives[0].false_by_kind.count("baseline_deviation"), 1u);
  EXPECT_EQ(score.negatives[1].false_by_kind.count("sustained_contention"), 1u);
  const ScoreLine* line = nullptr;
  for (const ScoreLine& l : score.lines) {
    if (l.kind == "contention" && l.cause.empty()) line = &l;
  }
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->episodes, 2);
  EXPECT_EQ(line->detected, 2);
  // 100 s <= 2m + 20 s (memory_contention); 400 s > 5m + 20 s (sustained).
  EXPECT_EQ(line->within_bound, 1);
}

// The same DRAM-heavy phase without any slowdown or neighbour: a job
// memory-bound on its own is informational, not a (false) contention alert.
TEST(ReplayTest, MemoryBoundAloneAtFullSpeedIsInformational) {
  const std::string text = Recording(/*slowed=*/false);
  ReplayReader r;
  r.AddBuffer("rec.om", text);
  auto result = RunReplay(DefaultDetectConfig(), r);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  int memory_bound = 0;
  for (const IncidentRecord& inc : result->incidents) {
    EXPECT_NE(ScoredKind(inc.kind), "contention") << inc.summary;
    if (inc.kind == kKindMemoryBound) {
      ++memory_bound;
      EXPECT_EQ(inc.severity, "info");
    }
  }
  EXPECT_EQ(memory_bound, 1);
  ReplayScore score = ScoreReplay(DefaultDetectConfig(), *result, {});
  EXPECT_EQ(score.false_incidents, 0);
  EXPECT_EQ(score.informational, 1);
}

}  // namespace
}  // namespace gpufleet::detect

namespace gpufleet::detect {
namespace {

// `sim detect --write`: the simulated fleet in the replay format reads back
// without a skipped sample and its truth without a bad row.
TEST(SimRecordingTest, WrittenFleetReplaysCleanly) {
  FleetSimOptions sim;
  sim.duration_s = 2 * 3600;
  sim.warmup_s = 600;
  sim.mean_gap_s = 1800;
  sim.inject_negatives = false;  // clock skew writes backwards timestamps on purpose
  const std::string gavel =
      std::string(GPUFLEET_SOURCE_DIR) + "/" + std::string(kGavelColocationPath);
  if (!std::filesystem::exists(gavel)) GTEST_SKIP() << gavel << " absent (../shared)";
  auto table = LoadGavelColocation(gavel);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  sim.colocation = table->pairs;
  const std::string dir = ::testing::TempDir() + "/gpufleet_sim_recording";
  auto rec = WriteSimRecording(sim, dir);
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  EXPECT_GT(rec->truth_rows, 0);
  ReplayReader reader;
  ASSERT_TRUE(reader.AddFile(rec->series_path).ok());
  auto result = RunReplay(DefaultDetectConfig(), reader);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->input.samples, rec->samples);
  EXPECT_EQ(result->input.malformed + result->input.backwards + result->dropped_out_of_order, 0u);
  EXPECT_EQ(result->devices, 16u);
  auto text = ReadFileToString(rec->truth_path);
  ASSERT_TRUE(text.ok());
  uint64_t bad = 0;
  std::vector<std::string> errors;
  auto rows = ParseTruthCsv(*text, rec->truth_path, &bad, &errors);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(static_cast<int>(rows->size()), rec->truth_rows);
  EXPECT_EQ(bad, 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpufleet::detect
