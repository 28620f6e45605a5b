#include "trace/clock_alignment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "trace/kineto_test_util.h"
#include "trace/trace_loader.h"

namespace gpufleet::trace {
namespace {

using testing::WriteTemp;

std::string Micros(int64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return buf;
}

// A rank's trace with `steps` allreduces that END at true time
// t0 + k * 10 ms (+ deterministic jitter) on every rank. The rank's clock
// reads native = true + offset_ns + drift * (true - t0); times are written
// relative to `base_ns` as Kineto does.
std::string RankTrace(int rank, int steps, int64_t base_ns, int64_t offset_ns, double drift,
                      bool with_seq) {
  const int64_t t0 = 1'700'000'000'000'000'000;
  auto native = [&](int64_t true_ns) {
    return true_ns + offset_ns +
           static_cast<int64_t>(std::llround(drift * static_cast<double>(true_ns - t0)));
  };
  std::string doc = "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) +
                    ", \"world_size\": 2}, \"traceEvents\": [\n";
  for (int k = 0; k < steps; ++k) {
    int64_t jitter = ((k * 7919 + rank * 104729) % 401) - 200;  // +-200 ns
    int64_t end = t0 + k * 10'000'000 + jitter;
    int64_t start = end - 2'000'000 - rank * 150'000 - (k % 5) * 10'000;  // ranks arrive apart
    int64_t s = native(start) - base_ns, e = native(end) - base_ns;
    if (k > 0) doc += ",\n";
    doc += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"step\", \"pid\": 10, \"tid\": 10, "
           "\"ts\": " + Micros(s - 1'000'000) + ", \"dur\": 10.0},\n";
    doc += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32\", "
           "\"pid\": 0, \"tid\": 40, \"ts\": " + Micros(s) + ", \"dur\": " + Micros(e - s) +
           ", \"args\": {\"device\": 0, \"stream\": 40, \"Collective name\": \"allreduce\", "
           "\"Process Group Name\": \"0\", \"In msg nelems\": 1024, \"dtype\": \"Float\"" +
           (with_seq ? ", \"Seq\": " + std::to_string(k) : std::string()) + "}}";
  }
  doc += "\n], \"baseTimeNanoseconds\": " + std::to_string(base_ns) + "}";
  return doc;
}

std::map<int64_t, int64_t> CollectiveEnds(const Timeline& t, uint32_t file) {
  std::map<int64_t, int64_t> ends;
  for (const Event& e : t.events) {
    if (e.collective == kNoCollective || t.process(e).file != file) continue;
    ends[t.collectives[e.collective].seq] = e.end_ns();
  }
  return ends;
}

TEST(ClockAlignmentTest, RecoversKnownOffsetAndDriftFromCollectiveEnds) {
  // Rank 1's clock runs 1.234567 ms behind and gains 50 ppm; its Kineto base
  // is another 3-month window than rank 0's.
  const int64_t offset = -1'234'567;
  const double drift = 50e-6;
  std::string r0 = WriteTemp("r0.json", RankTrace(0, 40, 1'699'000'000'000'000'000, 0, 0, true));
  std::string r1 = WriteTemp(
      "r1.json", RankTrace(1, 40, 1'691'000'000'000'000'000, offset, drift, true));
  LoadOptions options;
  auto loaded = LoadTraces({r0, r1}, options);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Timeline& t = *loaded;
  ASSERT_EQ(t.files.size(), 2u);
  EXPECT_EQ(t.files[0].clock_offset_ns, 0);
  EXPECT_NE(t.files[1].alignment.find("drift fit"), std::string::npos) << t.files[1].alignment;
  // aligned = native + off + ppm (native - anchor): the inverse of the clock
  // model above, so ppm ~= -50 and off(anchor) ~= -(offset + drift*(T-t0)).
  EXPECT_NEAR(t.files[1].clock_drift_ppm, -50.0, 0.1);
  const int64_t t0 = 1'700'000'000'000'000'000;
  double true_at_anchor = static_cast<double>(t.files[1].clock_anchor_ns - offset - t0) /
                              (1 + drift) + static_cast<double>(t0);
  double expected_off = static_cast<double>(-offset) - drift * (true_at_anchor - t0);
  EXPECT_NEAR(static_cast<double>(t.files[1].clock_offset_ns), expected_off, 1000.0);
  // After alignment matching collective ends coincide within the jitter.
  auto e0 = CollectiveEnds(t, 0), e1 = CollectiveEnds(t, 1);
  ASSERT_EQ(e0.size(), 40u);
  ASSERT_EQ(e1.size(), 40u);
  for (const auto& [seq, end] : e0) EXPECT_NEAR(static_cast<double>(e1[seq] - end), 0, 1000);
  // Events stay sorted after the shift.
  for (size_t i = 1; i < t.events.size(); ++i) {
    ASSERT_LE(t.events[i - 1].start_ns, t.events[i].start_ns);
  }
}

TEST(ClockAlignmentTest, OffsetOnlyWithInferredSequenceNumbers) {
  const int64_t base = 1'699'000'000'000'000'000;
  std::string r0 = WriteTemp("o0.json", RankTrace(0, 3, base, 0, 0, false));
  std::string r1 = WriteTemp("o1.json", RankTrace(1, 3, base, 777'000, 0, false));
  auto loaded = LoadTraces({r0, r1}, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const SourceFile& f = loaded->files[1];
  EXPECT_NEAR(static_cast<double>(f.clock_offset_ns), -777'000.0, 500.0);
  EXPECT_EQ(f.clock_drift_ppm, 0);
  EXPECT_NE(f.alignment.find("inferred seq"), std::string::npos) << f.alignment;
  EXPECT_NE(FormatAlignment(*loaded).find("o1.json"), std::string::npos);
}

TEST(ClockAlignmentTest, FilesWithoutSharedCollectivesKeepTheirEpochClock) {
  const int64_t base = 1'699'000'000'000'000'000;
  std::string r0 = WriteTemp("n0.json", RankTrace(0, 3, base, 0, 0, true));
  std::string other = WriteTemp(
      "n1.json", R"json({"traceEvents": [{"ph": "X", "name": "x", "pid": 1, "tid": 1,
                    "ts": 5.0, "dur": 1.0}], "baseTimeNanoseconds": 1699000000000000000})json");
  auto loaded = LoadTraces({r0, other}, {});
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->files[1].clock_offset_ns, 0);
  EXPECT_EQ(loaded->files[1].alignment, "epoch (baseTimeNanoseconds)");
  LoadOptions no_align;
  no_align.align = false;
  auto raw = LoadTraces({r0, other}, no_align);
  ASSERT_TRUE(raw.ok());
  EXPECT_TRUE(raw->files[1].alignment.empty());
}

}  // namespace
}  // namespace gpufleet::trace
