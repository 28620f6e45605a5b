// EvalIncidentTracker groups findings exactly as the server's life cycle.
#include <gtest/gtest.h>

#include "detect/detect_eval.h"

namespace gpufleet::detect {
namespace {

Finding Contention(const std::string& kind, const std::string& gpu) {
  Finding f;
  f.kind = kind;
  f.key = kind + "/n1/" + gpu;
  f.devices = {"n1/" + gpu};
  f.causes = {{"bandwidth_saturation", 0.8, ""}};
  return f;
}

// Regression: the evaluation grouped findings with its own rule (a gap of
// more than 3 intervals ended an incident; contention kinds on one device
// were merged), so its precision and recall measured a rule the server does
// not ship. It must group exactly as the server's life cycle does.
TEST(DetectEvalSmokeTest, EvaluationUsesServerLifecycle) {
  constexpr int64_t kS = 1'000'000'000;
  const DetectConfig config = DefaultDetectConfig();
  ASSERT_EQ(config.interval_ns, 10 * kS);
  EvalIncidentTracker tracker(config);
  std::unique_ptr<IncidentBook> book = NewMemoryIncidentBook();
  IncidentLifecycle server(*book);  // the server's policy, 120 s
  // Present 0-100 s, absent 100 s (10 intervals: the old rule split here),
  // present 200-300 s, absent 150 s (> resolve_after), present at 460 s.
  // The sustained rule fires on the same GPU from 250 s.
  for (int64_t t = 0; t <= 460; t += 10) {
    std::vector<Finding> findings;
    const bool on = t <= 100 || (t >= 200 && t <= 300) || t == 460;
    if (on) findings.push_back(Contention(kKindMemoryContention, "3"));
    if (t >= 250 && t <= 300) findings.push_back(Contention(kKindSustained, "3"));
    ASSERT_TRUE(tracker.Add(findings, t * kS).ok());
    ASSERT_TRUE(server.Step(findings, t * kS).first_error.ok());
  }
  StatusOr<std::vector<EvalIncident>> got = tracker.Incidents();
  ASSERT_TRUE(got.ok());
  StatusOr<std::vector<IncidentRecord>> want = book->List(std::nullopt);
  ASSERT_TRUE(want.ok());
  ASSERT_EQ(got->size(), 3u);
  ASSERT_EQ(want->size(), got->size());
  for (size_t i = 0; i < got->size(); ++i) {
    const IncidentRecord& w = (*want)[want->size() - 1 - i];  // List is newest first
    EXPECT_EQ((*got)[i].first_ns, w.first_seen_ns) << i;
    EXPECT_EQ((*got)[i].last_ns, w.last_seen_ns) << i;
    EXPECT_EQ((*got)[i].label, "bandwidth_saturation") << i;
  }
  EXPECT_EQ((*got)[0].first_ns, 0);
  EXPECT_EQ((*got)[0].last_ns, 300 * kS);   // one incident across the 100 s gap
  EXPECT_EQ((*got)[1].first_ns, 250 * kS);  // the sustained rule: its own key
  EXPECT_EQ((*got)[2].first_ns, 460 * kS);  // after resolve: a new incident
}

}  // namespace
}  // namespace gpufleet::detect
