#include "server/advise_client.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/strings.h"
#include "core/toml_reader.h"
#include "server/canary_runs.h"
#include "server/series_query.h"

namespace gpufleet {
namespace {

using nlohmann::json;

StatusOr<json> ParseAnswer(std::string_view body, std::string_view what) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return DataLossError(std::string(what) + ": the answer is not a JSON object");
  }
  return j;
}

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double Num(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

struct CostRow {
  double gpu_hours = 0, idle_gpu_hours = 0, allocation_usd = 0, idle_usd = 0, lost_gpu_hours = 0;
};

// rows[i].group[key] -> the row's figures.
StatusOr<std::map<std::string, CostRow>> CostRows(std::string_view body, const char* key,
                                                  std::string_view what) {
  ASSIGN_OR_RETURN(json j, ParseAnswer(body, what));
  auto rows = j.find("rows");
  if (rows == j.end() || !rows->is_array()) {
    return DataLossError(std::string(what) + ": no \"rows\" array");
  }
  std::map<std::string, CostRow> out;
  for (const json& r : *rows) {
    if (!r.is_object() || !r.contains("group") || !r["group"].is_object()) continue;
    const std::string name = Str(r["group"], key);
    CostRow& c = out[name];
    c.gpu_hours += Num(r, "gpu_hours");
    c.idle_gpu_hours += Num(r, "idle_gpu_hours");
    c.allocation_usd += Num(r, "allocation_usd");
    c.idle_usd += Num(r, "idle_usd");
    c.lost_gpu_hours += Num(r, "lost_gpu_hours");
  }
  return out;
}

// The rows of a cost answer whose workload is one of `labels`, added up.
CostRow SumRows(const std::map<std::string, CostRow>& rows, const std::set<std::string>& labels) {
  CostRow sum;
  for (const std::string& l : labels) {
    auto it = rows.find(l);
    if (it == rows.end()) continue;
    sum.gpu_hours += it->second.gpu_hours;
    sum.allocation_usd += it->second.allocation_usd;
    sum.lost_gpu_hours += it->second.lost_gpu_hours;
  }
  return sum;
}

// One series of step reports: the workload labels it carries
// (workload_name, workload_pod: the fleet names a job by either) and its
// values.
struct StepSeries {
  std::set<std::string> names;
  std::vector<double> values;
};

StatusOr<std::vector<StepSeries>> StepTimes(std::string_view body) {
  constexpr std::string_view kWhat = "GET /api/v1/series?metric=gpu_workload_step_duration_seconds";
  ASSIGN_OR_RETURN(json j, ParseAnswer(body, kWhat));
  auto series = j.find("series");
  if (series == j.end() || !series->is_array()) {
    return DataLossError(std::string(kWhat) + ": no \"series\" array");
  }
  std::vector<StepSeries> out;
  for (const json& one : *series) {
    if (!one.is_object() || !one.contains("labels") || !one["labels"].is_object()) continue;
    auto v = one.find("v");
    if (v == one.end() || !v->is_array()) continue;
    StepSeries s;
    for (const json& x : *v) {
      if (x.is_number() && std::isfinite(x.get<double>()) && x.get<double>() > 0) {
        s.values.push_back(x.get<double>());
      }
    }
    s.names = {Str(one["labels"], "workload_name"), Str(one["labels"], "workload_pod")};
    s.names.erase("");
    out.push_back(std::move(s));
  }
  return out;
}

// Each node's newest canary run, read as place::CanaryHealth.
StatusOr<std::map<std::string, place::CanaryHealth>> CanaryByNode(std::string_view body) {
  constexpr std::string_view kWhat = "GET /api/v1/canary/runs";
  ASSIGN_OR_RETURN(json j, ParseAnswer(body, kWhat));
  auto runs = j.find("runs");
  if (runs == j.end() || !runs->is_array()) {
    return DataLossError(std::string(kWhat) + ": no \"runs\" array");
  }
  std::map<std::string, place::CanaryHealth> out;
  for (const json& run : *runs) {  // newest first
    if (!run.is_object()) continue;
    const std::string node = Str(run, "target");  // the node that ran it
    if (node.empty() || out.count(node)) continue;
    place::CanaryHealth& h = out[node];
    auto checks = run.find("checks");
    if (checks == run.end() || !checks->is_array()) continue;
    const std::string id = run.contains("id") && run["id"].is_number_integer()
                               ? std::to_string(run["id"].get<int64_t>())
                               : "?";
    for (const json& c : *checks) {
      if (!c.is_object()) continue;
      const std::string verdict = Str(c, "verdict"), name = Str(c, "name"), unit = Str(c, "unit");
      if (verdict != "regression" && verdict != "fail") continue;
      const double value = Num(c, "value"), baseline = Num(c, "baseline");
      if (unit == "pass" || !(value > 0) || !(baseline > 0)) {
        // A diagnostic that failed, or a benchmark that gave no figure.
        if (!h.failed_diagnostic) h.note = name + " failed (canary run " + id + ")";
        h.failed_diagnostic = true;
        continue;
      }
      const double ratio = unit == "seconds" ? baseline / value : value / baseline;
      if (ratio > 0 && ratio < h.factor && !h.failed_diagnostic) {
        h.factor = ratio;
        char buf[48];
        std::snprintf(buf, sizeof(buf), " at %.2f of its baseline", ratio);
        h.note = name + buf + " (canary run " + id + ")";
      }
    }
  }
  return out;
}

}  // namespace

StatusOr<std::vector<AdviseJobSpec>> ParseAdviseJobs(std::string_view toml,
                                                     std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table top, ParseToml(toml, origin));
  TomlReader root(top, origin);
  RETURN_IF_ERROR(root.CheckKeys({"job"}));
  std::vector<AdviseJobSpec> out;
  std::set<std::string> names;
  RETURN_IF_ERROR(root.ForEachTable("job", [&](const TomlReader& r) -> Status {
    RETURN_IF_ERROR(r.CheckKeys(
        {"name", "job_type", "remaining_steps", "checkpoint_minutes", "startup_minutes"}));
    AdviseJobSpec j;
    RETURN_IF_ERROR(r.Require("name", j.name));
    if (j.name.empty()) return r.FieldError(*r.Get("name"), "name", "must not be empty");
    if (!names.insert(j.name).second) {
      return r.FieldError(*r.Get("name"), "name", "job \"" + j.name + "\" is listed twice");
    }
    RETURN_IF_ERROR(r.Require("job_type", j.job_type));
    RETURN_IF_ERROR(r.Require("remaining_steps", j.remaining_steps, 1e-9, 1e15));
    RETURN_IF_ERROR(r.Read("checkpoint_minutes", j.checkpoint_minutes, 0.0, 1e5));
    RETURN_IF_ERROR(r.Read("startup_minutes", j.startup_minutes, 0.0, 1e5));
    j.where = TomlPlace(origin, r.table());
    out.push_back(std::move(j));
    return OkStatus();
  }));
  if (out.empty()) return InvalidArgumentError(std::string(origin) + ": no [[job]] tables");
  return out;
}

StatusOr<AdviseSnapshot> SnapshotFromApis(const AdviseAnswers& answers,
                                          const std::vector<AdviseJobSpec>& jobs) {
  ASSIGN_OR_RETURN(json fleet, ParseAnswer(answers.fleet, "GET /api/v1/fleet"));
  auto devices = fleet.find("devices");
  if (devices == fleet.end() || !devices->is_array()) {
    return DataLossError("GET /api/v1/fleet: no \"devices\" array");
  }
  ASSIGN_OR_RETURN(auto by_workload,
                   CostRows(answers.cost_by_workload, "workload", "GET /api/v1/cost?by=workload"));
  ASSIGN_OR_RETURN(auto by_node,
                   CostRows(answers.cost_by_node, "node", "GET /api/v1/cost?by=node"));
  ASSIGN_OR_RETURN(auto by_workload_recent, CostRows(answers.cost_by_workload_recent, "workload",
                                                     "GET /api/v1/cost?from=-15m&by=workload"));
  ASSIGN_OR_RETURN(auto step_times, StepTimes(answers.step_series));
  ASSIGN_OR_RETURN(auto canary, CanaryByNode(answers.canary_runs));
  const auto health = [&](const std::string& node) {
    auto it = canary.find(node);
    return it == canary.end() ? place::CanaryHealth() : it->second;
  };

  AdviseSnapshot s;
  std::map<std::string, size_t> capacity_of;  // node -> index in s.capacity
  for (const json& d : *devices) {
    if (!d.is_object()) continue;
    const bool up = d.contains("up") && d["up"].is_boolean() && d["up"].get<bool>();
    const bool stale = d.contains("stale") && d["stale"].is_boolean() && d["stale"].get<bool>();
    if (!up || stale || !Str(d, "workload").empty()) continue;
    // A partition (MIG instance, Intel tile: ".../p0") is not a whole GPU,
    // and the throughput model knows whole GPUs only.
    const std::string key = Str(d, "device");
    const size_t slash = key.rfind('/');
    if (slash != std::string::npos && key.size() > slash + 2 && key.compare(slash, 2, "/p") == 0 &&
        key.find_first_not_of("0123456789", slash + 2) == std::string::npos) {
      continue;
    }
    const std::string node = Str(d, "node");
    auto [it, fresh] = capacity_of.try_emplace(node, s.capacity.size());
    if (fresh) {
      place::FreeCapacity c;
      c.node = node, c.gpu_model = Str(d, "model"), c.cloud = Str(d, "cloud"),
      c.region = Str(d, "region");
      c.canary = health(node);
      auto cost = by_node.find(node);
      if (cost != by_node.end()) {
        const double hours = cost->second.gpu_hours + cost->second.idle_gpu_hours;
        if (hours > 0) {
          c.usd_per_gpu_hour = (cost->second.allocation_usd + cost->second.idle_usd) / hours;
          c.price_source = "cost ledger, node " + node + ", last hour";
        }
      }
      s.capacity.push_back(c);
    }
    s.capacity[it->second].free_gpus++;
  }

  for (const AdviseJobSpec& spec : jobs) {
    place::RunningJob j;
    j.name = spec.name;
    j.job_type = spec.job_type;
    j.remaining_steps = spec.remaining_steps;
    j.checkpoint_minutes = spec.checkpoint_minutes;
    j.startup_minutes = spec.startup_minutes;
    j.gpus = 0;
    std::set<std::string> labels;  // every workload label on its devices (id, pod)
    for (const json& d : *devices) {
      if (!d.is_object()) continue;
      const std::string workload = Str(d, "workload");  // outlives the views SplitString returns
      std::vector<std::string> names;
      for (std::string_view w : SplitString(workload, ',')) names.emplace_back(w);
      if (std::find(names.begin(), names.end(), spec.name) == names.end()) continue;
      if (j.gpus == 0) {
        j.node = Str(d, "node"), j.gpu_model = Str(d, "model");
        j.cloud = Str(d, "cloud"), j.region = Str(d, "region");
      }
      ++j.gpus;
      j.open_incidents += static_cast<int>(Num(d, "open_incidents"));
      labels.insert(names.begin(), names.end());
    }
    if (j.gpus == 0) {
      s.not_found.push_back(spec.name + " (" + spec.where + "): no device of the fleet runs it");
      continue;
    }
    j.canary = health(j.node);
    const CostRow paid = SumRows(by_workload, labels);
    if (paid.gpu_hours > 0) {
      j.usd_per_gpu_hour = paid.allocation_usd / paid.gpu_hours;
      j.contention_loss = paid.lost_gpu_hours / paid.gpu_hours;
      j.price_source = "cost ledger, workload " + spec.name + ", last hour";
    }
    std::vector<double> steps;  // each series once, whichever of its labels names the job
    for (const StepSeries& one : step_times) {
      if (std::any_of(one.names.begin(), one.names.end(),
                      [&](const std::string& n) { return labels.count(n) > 0; })) {
        steps.insert(steps.end(), one.values.begin(), one.values.end());
      }
    }
    if (!steps.empty()) {
      auto mid = steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2);
      std::nth_element(steps.begin(), mid, steps.end());
      j.measured_step_s = *mid;
      j.step_samples = static_cast<int64_t>(steps.size());
      // The loss the measurement carries: over the same recent window.
      const CostRow recent = SumRows(by_workload_recent, labels);
      j.contention_loss = recent.gpu_hours > 0 ? recent.lost_gpu_hours / recent.gpu_hours : 0;
    }
    s.jobs.push_back(std::move(j));
  }
  return s;
}

StatusOr<AdviseSnapshot> FetchAdviseSnapshot(HttpClient& client, const std::string& server_url,
                                             const std::string& token,
                                             const std::vector<AdviseJobSpec>& jobs) {
  const HttpHeaders auth = BearerHeader(token);
  const int64_t timeout = 30 * kNsPerSecond;
  ASSIGN_OR_RETURN(std::string fleet, HttpGet(client, server_url + "/api/v1/fleet", timeout, auth));
  ASSIGN_OR_RETURN(
      std::string by_workload,
      HttpGet(client, server_url + "/api/v1/cost?from=-1h&by=workload&format=json", timeout, auth));
  ASSIGN_OR_RETURN(
      std::string by_node,
      HttpGet(client, server_url + "/api/v1/cost?from=-1h&by=node&format=json", timeout, auth));
  ASSIGN_OR_RETURN(std::string by_workload_recent,
                   HttpGet(client, server_url + "/api/v1/cost?from=-15m&by=workload&format=json",
                           timeout, auth));
  ASSIGN_OR_RETURN(std::string steps,
                   HttpGet(client,
                           server_url +
                               "/api/v1/series?metric=gpu_workload_step_duration_seconds"
                               "&from=-15m&step=15s&limit=" +
                               std::to_string(kSeriesMaxLimit),
                           timeout, auth));
  // A server that keeps no canary runs answers 404: no canary to count then.
  HttpRequest canary_request;
  canary_request.url =
      server_url + "/api/v1/canary/runs?latest=node&limit=" + std::to_string(kCanaryRunsMaxLimit);
  canary_request.timeout_ns = timeout;
  canary_request.headers = auth;
  ASSIGN_OR_RETURN(HttpResponse canary, client.Send(canary_request));
  if (canary.status == 404) {
    canary.body = R"({"runs":[]})";
  } else if (canary.status != 200) {
    return UnavailableError(canary_request.url + ": HTTP " + std::to_string(canary.status));
  }
  return SnapshotFromApis({fleet, by_workload, by_node, by_workload_recent, steps, canary.body},
                          jobs);
}

}  // namespace gpufleet
