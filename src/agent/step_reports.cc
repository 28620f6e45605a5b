#include "agent/step_reports.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace gpufleet {
namespace {

using nlohmann::json;

constexpr std::string_view kMetric = "gpu_workload_step_duration_seconds";
constexpr size_t kMaxSteps = 1000;
constexpr size_t kMaxText = 256;
constexpr double kMaxStepS = 86400;

StatusOr<std::string> Text(const json& j, const char* field, bool required) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) {
    if (required) return InvalidArgumentError(std::string(field) + ": missing");
    return std::string();
  }
  if (!it->is_string()) return InvalidArgumentError(std::string(field) + ": not a string");
  std::string v = it->get<std::string>();
  if (required && v.empty()) return InvalidArgumentError(std::string(field) + ": empty");
  if (v.size() > kMaxText) {
    return InvalidArgumentError(std::string(field) + ": longer than " + std::to_string(kMaxText));
  }
  return v;
}

}  // namespace

StepReports::StepReports(NodeIdentity node, StepReportsOptions options)
    : node_(std::move(node)), options_(options) {}

Status StepReports::Accept(std::string_view body, int64_t now_ns) {
  json j;
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    return InvalidArgumentError("step report: not JSON at byte " + std::to_string(e.byte));
  } catch (const json::exception& e) {  // e.g. a number beyond a double
    return InvalidArgumentError(std::string("step report: ") + e.what());
  }
  if (!j.is_object()) return InvalidArgumentError("step report: not a JSON object");
  auto pid_it = j.find("pid");
  if (pid_it == j.end()) return InvalidArgumentError("pid: missing");
  if (!pid_it->is_number_integer()) return InvalidArgumentError("pid: not an integer");
  const int64_t pid = pid_it->get<int64_t>();
  if (pid <= 0 || pid > INT32_MAX) return InvalidArgumentError("pid: out of range");
  ASSIGN_OR_RETURN(std::string workload, Text(j, "workload", true));
  ASSIGN_OR_RETURN(std::string team, Text(j, "team", false));
  ASSIGN_OR_RETURN(std::string gpu_uuid, Text(j, "gpu_uuid", false));
  auto steps = j.find("steps_s");
  if (steps == j.end()) return InvalidArgumentError("steps_s: missing");
  if (!steps->is_array() || steps->empty() || steps->size() > kMaxSteps) {
    return InvalidArgumentError("steps_s: not an array of 1 to " + std::to_string(kMaxSteps) +
                                " durations");
  }
  double last = 0;
  for (size_t i = 0; i < steps->size(); ++i) {
    const json& v = (*steps)[i];
    const double s = v.is_number() ? v.get<double>() : -1;
    if (!std::isfinite(s) || s <= 0 || s >= kMaxStepS) {
      return InvalidArgumentError("steps_s[" + std::to_string(i) +
                                  "]: not a duration in seconds in (0, 86400)");
    }
    last = s;
  }
  std::lock_guard lock(mu_);
  auto key = std::make_pair(pid, std::move(workload));
  auto it = reporters_.find(key);
  if (it == reporters_.end()) {
    if (reporters_.size() >= options_.max_reporters) {
      return UnavailableError("step report: already " +
                                    std::to_string(options_.max_reporters) + " reporters");
    }
    it = reporters_.emplace(std::move(key), Reporter{}).first;
  }
  Reporter& r = it->second;
  r.team = std::move(team);
  r.gpu_uuid = std::move(gpu_uuid);
  r.last_step_s = last;
  r.last_report_ns = now_ns;
  return OkStatus();
}

void StepReports::Collect(std::vector<Sample>& out, int64_t now_ns) {
  std::lock_guard lock(mu_);
  std::erase_if(reporters_, [&](const auto& kv) {
    return now_ns - kv.second.last_report_ns > options_.expire_ns;
  });
  if (reporters_.empty()) return;
  // The device each host pid runs on, from the collectors' process series.
  std::unordered_map<std::string, size_t> device_of_pid;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].name != "gpu_process_memory_bytes") continue;
    std::string_view pid = out[i].labels.Get("pid");
    if (!pid.empty()) device_of_pid.emplace(std::string(pid), i);
  }
  DeviceInfo node_only;
  const Labels node_labels = DeviceLabels(node_only, node_);
  const size_t existing = out.size();
  for (const auto& [key, r] : reporters_) {
    const std::string pid = std::to_string(key.first);
    Labels labels;
    if (auto it = device_of_pid.find(pid); it != device_of_pid.end() && it->second < existing) {
      for (const auto& [name, value] : out[it->second].labels.pairs()) {
        if (IsDeviceLabel(name)) labels.Set(name, value);
      }
    } else {
      labels = node_labels;
      if (!r.gpu_uuid.empty()) labels.Set("gpu_uuid", r.gpu_uuid);
    }
    labels.Set("pid", pid);
    labels.Set("workload_name", key.second);
    if (!r.team.empty()) labels.Set("workload_team", r.team);
    Sample s;
    s.name = std::string(kMetric);
    s.labels = std::move(labels);
    s.value = r.last_step_s;
    out.push_back(std::move(s));
  }
}

size_t StepReports::reporters() const {
  std::lock_guard lock(mu_);
  return reporters_.size();
}

}  // namespace gpufleet
