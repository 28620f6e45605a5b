#include "server/capture_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "core/clock.h"

extern char** environ;

namespace gpufleet {

bool IsSafeCaptureValue(std::string_view value) {
  if (value.empty() || value.front() == '-') return false;
  for (char c : value) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '@' || c == '+' || c == '=' || c == '-';
    if (!ok) return false;
  }
  return true;
}

StatusOr<std::vector<std::string>> BuildCaptureArgv(
    const std::vector<std::string>& argv_template,
    const std::map<std::string, std::string>& values) {
  if (argv_template.empty()) return InvalidArgumentError("capture command is empty");
  std::vector<std::string> out;
  out.reserve(argv_template.size());
  for (size_t i = 0; i < argv_template.size(); ++i) {
    const std::string& arg = argv_template[i];
    std::string where = "capture command argument " + std::to_string(i) + " '" + arg + "'";
    std::string result;
    size_t pos = 0;
    while (pos < arg.size()) {
      size_t open = arg.find('{', pos);
      if (open == std::string::npos) {
        result.append(arg, pos);
        break;
      }
      result.append(arg, pos, open - pos);
      size_t close = arg.find('}', open);
      if (close == std::string::npos) return InvalidArgumentError(where + ": unterminated '{'");
      std::string name = arg.substr(open + 1, close - open - 1);
      auto it = values.find(name);
      if (it == values.end()) {
        return InvalidArgumentError(where + ": unknown placeholder {" + name + "}");
      }
      if (name != "output" && !IsSafeCaptureValue(it->second)) {
        return InvalidArgumentError(where + ": value of {" + name + "} '" + it->second +
                                    "' has characters outside [A-Za-z0-9._:@+=-]");
      }
      result += it->second;
      pos = close + 1;
    }
    out.push_back(std::move(result));
  }
  return out;
}

CaptureRunner::CaptureRunner(CaptureRunnerOptions options) : options_(std::move(options)) {}

CaptureRunner::~CaptureRunner() {
  stopping_ = true;
  std::vector<Watcher> watchers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    watchers.swap(watchers_);
  }
  for (Watcher& w : watchers) w.thread.join();
}

size_t CaptureRunner::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return busy_nodes_.size();
}

size_t CaptureRunner::watcher_threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return watchers_.size();
}

void CaptureRunner::JoinFinishedLocked() {
  // A finished watcher has only its return left to run: joining is immediate.
  auto done = [](Watcher& w) {
    if (!w.finished->load()) return false;
    w.thread.join();
    return true;
  };
  watchers_.erase(std::remove_if(watchers_.begin(), watchers_.end(), done), watchers_.end());
}

StatusOr<std::string> CaptureRunner::Start(const CaptureRequest& request,
                                           std::function<void(const CaptureResult&)> done) {
  if (!IsSafeCaptureValue(request.node)) {
    return InvalidArgumentError("capture: node name '" + request.node + "' is not safe");
  }
  std::string output = options_.output_dir + "/incident-" + std::to_string(request.incident_id) +
                       "-" + request.node + (request.gpu.empty() ? "" : "-gpu" + request.gpu);
  std::map<std::string, std::string> values = {
      {"node", request.node},
      {"gpu", request.gpu.empty() ? "all" : request.gpu},
      {"gpu_uuid", request.gpu_uuid.empty() ? "none" : request.gpu_uuid},
      {"output", output},
      {"duration_s", std::to_string(options_.duration_ns / kNsPerSecond)},
      {"incident", std::to_string(request.incident_id)},
  };
  ASSIGN_OR_RETURN(std::vector<std::string> argv, BuildCaptureArgv(request.argv_template, values));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (busy_nodes_.count(request.node) != 0) {
      return FailedPreconditionError("capture: one already runs on node " + request.node);
    }
    busy_nodes_.insert(request.node);
  }
  auto release = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    busy_nodes_.erase(request.node);
  };
  std::error_code ec;
  std::filesystem::create_directories(options_.output_dir, ec);
  if (ec) {
    release();
    failed_++;
    return UnavailableError("capture: cannot create " + options_.output_dir + ": " + ec.message());
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  std::string log = output + ".log";
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, so the deadline kill reaches the command's children too.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    release();
    failed_++;
    return UnavailableError("capture: cannot run '" + argv[0] + "': " + std::strerror(rc));
  }
  started_++;
  CaptureResult result;
  result.incident_id = request.incident_id;
  result.output_path = output;
  int64_t deadline_ns = RealClock::Get().MonotonicNs() + 2 * options_.duration_ns;
  std::lock_guard<std::mutex> lock(mu_);
  JoinFinishedLocked();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  watchers_.push_back(Watcher{std::thread(&CaptureRunner::Watch, this, static_cast<int>(pid),
                                          request.node, std::move(result), deadline_ns,
                                          std::move(done), finished),
                              finished});
  return output;
}

void CaptureRunner::Watch(int pid, std::string node, CaptureResult result, int64_t deadline_ns,
                          std::function<void(const CaptureResult&)> done,
                          std::shared_ptr<std::atomic<bool>> finished) {
  int64_t kill_at_ns = 0;
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || r < 0) break;
    int64_t now = RealClock::Get().MonotonicNs();
    if (kill_at_ns == 0 && (now >= deadline_ns || stopping_)) {
      result.timed_out = !stopping_;
      kill(-pid, SIGTERM);
      kill_at_ns = now + (stopping_ ? 0 : options_.kill_grace_ns);
    } else if (kill_at_ns != 0 && now >= kill_at_ns) {
      kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (result.exit_code != 0) failed_++;
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_nodes_.erase(node);
  }
  if (done) done(result);
  finished->store(true);
}

}  // namespace gpufleet
