#include "server/capture_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/clock.h"

namespace gpufleet {
namespace {

std::string TempDir(const std::string& name) {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("gpufleet_capture_" + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove_all(p);
  return p.string();
}

// Waits for the runner's completion callback.
struct Done {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<CaptureResult> result;
  std::function<void(const CaptureResult&)> Callback() {
    return [this](const CaptureResult& r) {
      std::lock_guard<std::mutex> lock(mu);
      result = r;
      cv.notify_all();
    };
  }
  bool Wait() {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(20), [this] { return result.has_value(); });
  }
};

TEST(CaptureRunnerTest, SubstitutesPlaceholdersPerArgument) {
  StatusOr<std::vector<std::string>> argv = BuildCaptureArgv(
      {"nsys", "profile", "--duration={duration_s}", "--output={output}", "{node}:{gpu}"},
      {{"node", "aws-h100-0"}, {"gpu", "6"}, {"duration_s", "30"}, {"output", "/tmp/x y"}});
  ASSERT_TRUE(argv.ok()) << argv.status().ToString();
  EXPECT_EQ(*argv, (std::vector<std::string>{"nsys", "profile", "--duration=30",
                                             "--output=/tmp/x y", "aws-h100-0:6"}));
}

TEST(CaptureRunnerTest, RejectsHostileValuesAndUnknownPlaceholders) {
  for (const char* hostile : {"$(rm -rf /)", "n1; reboot", "a b", "`id`", "-rf", "x|y", ""}) {
    StatusOr<std::vector<std::string>> argv =
        BuildCaptureArgv({"ssh", "{node}", "true"}, {{"node", hostile}});
    EXPECT_FALSE(argv.ok()) << hostile;
    EXPECT_EQ(argv.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_FALSE(BuildCaptureArgv({"x", "{nope}"}, {}).ok());
  EXPECT_FALSE(BuildCaptureArgv({"x", "{node"}, {{"node", "a"}}).ok());
  EXPECT_FALSE(BuildCaptureArgv({}, {}).ok());
}

TEST(CaptureRunnerTest, ShellMetacharactersInTheTemplateReachTheProgramLiterally) {
  std::string dir = TempDir("literal");
  CaptureRunner runner({dir, 5 * kNsPerSecond, kNsPerSecond});
  Done done;
  CaptureRequest req;
  req.incident_id = 7;
  req.node = "n1";
  // No shell runs: printf receives "$(id);echo pwned" as one argument.
  req.argv_template = {"printf", "%s|%s", "$(id);echo pwned", "{node}"};
  StatusOr<std::string> out = runner.Start(req, done.Callback());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, dir + "/incident-7-n1");
  ASSERT_TRUE(done.Wait());
  EXPECT_EQ(done.result->exit_code, 0);
  std::ifstream log(*out + ".log");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_EQ(text.str(), "$(id);echo pwned|n1");
  std::filesystem::remove_all(dir);
}

TEST(CaptureRunnerTest, KillsACaptureAtItsDeadlineAndAllowsOnePerNode) {
  std::string dir = TempDir("deadline");
  // Deadline = 2 x duration = 200 ms.
  CaptureRunner runner({dir, 100 * kNsPerMs, 100 * kNsPerMs});
  Done done;
  CaptureRequest req;
  req.incident_id = 1;
  req.node = "n1";
  req.argv_template = {"sleep", "30"};
  ASSERT_TRUE(runner.Start(req, done.Callback()).ok());
  CaptureRequest second = req;
  second.incident_id = 2;
  StatusOr<std::string> refused = runner.Start(second, nullptr);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(done.Wait());
  EXPECT_TRUE(done.result->timed_out);
  EXPECT_EQ(done.result->exit_code, -1);
  EXPECT_EQ(runner.started(), 1u);
  // The node is free again.
  Done again;
  second.argv_template = {"true"};
  EXPECT_TRUE(runner.Start(second, again.Callback()).ok());
  ASSERT_TRUE(again.Wait());
  EXPECT_EQ(again.result->exit_code, 0);
  std::filesystem::remove_all(dir);
}

TEST(CaptureRunnerTest, FinishedWatcherThreadsAreJoinedByTheNextStart) {
  std::string dir = TempDir("reap");
  CaptureRunner runner({dir, kNsPerSecond, kNsPerSecond});
  CaptureRequest req;
  req.node = "n1";
  req.argv_template = {"true"};
  for (int i = 1; i <= 8; ++i) {
    req.incident_id = i;
    Done done;
    ASSERT_TRUE(runner.Start(req, done.Callback()).ok());
    ASSERT_TRUE(done.Wait());
    // Earlier captures were joined by the starts since. A watcher marks
    // itself finished just after its callback, so the last one or two can
    // still be unjoined (slack for a descheduled thread on a busy machine).
    // Without reaping this would be i.
    EXPECT_LE(runner.watcher_threads(), 3u) << "capture " << i;
  }
  EXPECT_EQ(runner.started(), 8u);
  std::filesystem::remove_all(dir);
}

TEST(CaptureRunnerTest, MissingProgramIsAnErrorNotACrash) {
  std::string dir = TempDir("missing");
  CaptureRunner runner({dir, kNsPerSecond, kNsPerSecond});
  CaptureRequest req;
  req.incident_id = 1;
  req.node = "n1";
  req.argv_template = {"/nonexistent/gpufleet-no-such-profiler"};
  StatusOr<std::string> out = runner.Start(req, nullptr);
  EXPECT_FALSE(out.ok());
  EXPECT_EQ(runner.failed(), 1u);
  EXPECT_EQ(runner.running(), 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpufleet
