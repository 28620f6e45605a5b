// CaptureRunner: conditional deep instrumentation. When a capture trigger
// fires (a cheap signal such as low utilization or a page-fault rate), the
// server runs the configured capture command (an nsys / rocprofv3 invocation,
// usually wrapped in ssh or kubectl exec to reach the node) for a bounded
// time and records where its output went on the incident.
//
// Safety: the command is an argv template from the operator's config, never
// a shell line. Placeholders ({node}, {gpu}, {gpu_uuid}, {output},
// {duration_s}, {incident}) are substituted inside one argument at a time, and
// values that come from telemetry are checked against a safe character set
// first, so `$(rm -rf /)` or `;` in a label can neither reach a shell nor
// split into extra arguments. The process gets SIGTERM at its deadline and
// SIGKILL `kill_grace_ns` later. At most one capture runs per node.
//
// Thread safety: all methods are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/status.h"

namespace gpufleet {

// True when every byte is in [A-Za-z0-9._:@+=-] (and not empty, not
// starting with '-' so a value cannot pose as an option).
bool IsSafeCaptureValue(std::string_view value);

// Substitutes {name} placeholders in each element of `argv_template` from
// `values`. InvalidArgument naming the argument when a placeholder is unknown
// or unterminated, or when a value used is not IsSafeCaptureValue (except
// "output", which the runner builds itself). The result has exactly as many
// elements as the template.
StatusOr<std::vector<std::string>> BuildCaptureArgv(
    const std::vector<std::string>& argv_template,
    const std::map<std::string, std::string>& values);

struct CaptureRunnerOptions {
  std::string output_dir = "/var/tmp/gpufleet-captures";
  int64_t duration_ns = 30'000'000'000;  // {duration_s}; the deadline is twice this
  int64_t kill_grace_ns = 5'000'000'000;
};

struct CaptureRequest {
  int64_t incident_id = 0;
  std::string node;
  std::string gpu;
  std::string gpu_uuid;
  std::vector<std::string> argv_template;
};

struct CaptureResult {
  int64_t incident_id = 0;
  std::string output_path;  // {output}; the command's stdout+stderr go to output_path + ".log"
  int exit_code = -1;       // -1 when killed or not started
  bool timed_out = false;
  Status status;  // why it failed to start, or OK
};

class CaptureRunner {
 public:
  explicit CaptureRunner(CaptureRunnerOptions options);
  ~CaptureRunner();  // kills running captures and waits for them

  // Starts a capture in the background. Returns the output path that will be
  // written; FailedPrecondition when a capture already runs on the node;
  // InvalidArgument from BuildCaptureArgv. `done` is called on the runner's
  // thread when the process ended.
  StatusOr<std::string> Start(const CaptureRequest& request,
                              std::function<void(const CaptureResult&)> done);

  uint64_t started() const { return started_.load(); }
  uint64_t failed() const { return failed_.load(); }
  size_t running() const;
  // Watcher threads not yet joined: finished ones are joined by the next
  // Start(), so a long-running server holds at most the running captures'
  // threads plus the ones that ended since the last start.
  size_t watcher_threads() const;

 private:
  struct Watcher {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  void Watch(int pid, std::string node, CaptureResult result, int64_t deadline_ns,
             std::function<void(const CaptureResult&)> done,
             std::shared_ptr<std::atomic<bool>> finished);
  void JoinFinishedLocked();  // REQUIRES: mu_ held

  const CaptureRunnerOptions options_;
  std::atomic<uint64_t> started_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::set<std::string> busy_nodes_;   // guarded by mu_
  std::vector<Watcher> watchers_;      // guarded by mu_
};

}  // namespace gpufleet
