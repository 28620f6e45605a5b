#include "place/gavel_data.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet::place {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

StatusOr<double> NonNegativeNumber(const nlohmann::json& v, std::string_view where) {
  if (!v.is_number()) return InvalidArgumentError(std::string(where) + ": expected a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0) {
    return InvalidArgumentError(std::string(where) + ": expected a finite number >= 0");
  }
  return x;
}

}  // namespace

std::string GavelJobType::Family() const {
  const size_t p = name.find(" (");
  return p == std::string::npos ? name : name.substr(0, p);
}

int GavelThroughputs::FindWorker(std::string_view name) const {
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int GavelThroughputs::FindJobType(std::string_view name, int scale_factor) const {
  for (size_t i = 0; i < job_types_.size(); ++i) {
    if (job_types_[i].name == name && job_types_[i].scale_factor == scale_factor) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void GavelThroughputs::Resize() {
  isolated_.assign(workers_.size() * job_types_.size(), 0.0);
  coloc_.assign(workers_.size() * job_types_.size() * job_types_.size(), GavelColocation{});
}

GavelThroughputs GavelThroughputs::FromTable(std::vector<std::string> workers,
                                             std::vector<GavelJobType> job_types,
                                             const std::vector<std::vector<double>>& isolated) {
  GavelThroughputs t;
  t.workers_ = std::move(workers);
  t.job_types_ = std::move(job_types);
  t.Resize();
  for (size_t j = 0; j < t.job_types_.size() && j < isolated.size(); ++j) {
    for (size_t w = 0; w < t.workers_.size() && w < isolated[j].size(); ++w) {
      t.isolated_[j * t.workers_.size() + w] = isolated[j][w];
    }
  }
  return t;
}

void GavelThroughputs::SetColocated(int w, int a, int b, double self_steps_per_s,
                                    double other_steps_per_s) {
  GavelColocation& c = coloc_[(w * job_types_.size() + a) * job_types_.size() + b];
  c.self_steps_per_s = self_steps_per_s;
  c.other_steps_per_s = other_steps_per_s;
  c.measured = true;
}

// Real key: "('ResNet-18 (batch size 16)', 1)".
StatusOr<GavelJobType> ParseGavelJobKey(std::string_view key) {
  const auto bad = [&](std::string_view why) {
    return InvalidArgumentError("job key \"" + std::string(key.substr(0, 80)) + "\": " +
                                std::string(why));
  };
  if (key.size() < 7 || key.substr(0, 2) != "('" || key.back() != ')') {
    return bad("expected ('<job type>', <scale factor>)");
  }
  const size_t close = key.rfind("', ");
  if (close == std::string_view::npos || close < 2) return bad("missing \"', \" separator");
  GavelJobType t;
  t.name = std::string(key.substr(2, close - 2));
  if (t.name.empty()) return bad("empty job type");
  const std::string_view num = key.substr(close + 3, key.size() - close - 4);
  int sf = 0;
  const auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), sf);
  if (ec != std::errc() || ptr != num.data() + num.size() || sf < 1 || sf > 1024) {
    return bad("scale factor must be an integer in [1, 1024]");
  }
  t.scale_factor = sf;
  return t;
}

StatusOr<GavelThroughputs> ParseGavelThroughputs(std::string_view json, std::string_view origin) {
  const std::string where0(origin);
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgumentError(where0 + ": not valid JSON");
  if (!doc.is_object()) return InvalidArgumentError(where0 + ": top level must be an object");
  GavelThroughputs t;
  // Pass 1: workers and job types (union over workers, ordered by scale factor, name).
  std::map<std::pair<int, std::string>, int> jobs;
  for (const auto& [worker, per_job] : doc.items()) {
    if (EndsWith(worker, "_unconsolidated")) {
      ++t.skipped_workers_;
      continue;
    }
    const std::string where = where0 + ": worker \"" + worker + "\"";
    if (!per_job.is_object()) return InvalidArgumentError(where + ": expected an object");
    t.workers_.push_back(worker);
    for (const auto& [key, _] : per_job.items()) {
      auto jt = ParseGavelJobKey(key);
      if (!jt.ok()) return jt.status().WithContext(where);
      jobs.emplace(std::make_pair(jt->scale_factor, jt->name), 0);
    }
  }
  if (t.workers_.empty()) return InvalidArgumentError(where0 + ": no consolidated worker types");
  for (auto& [k, index] : jobs) {
    index = static_cast<int>(t.job_types_.size());
    t.job_types_.push_back(GavelJobType{k.second, k.first});
  }
  t.Resize();
  // Pass 2: values.
  for (int w = 0; w < t.num_workers(); ++w) {
    for (const auto& [key, entry] : doc[t.workers_[w]].items()) {
      const std::string where = where0 + ": " + t.workers_[w] + "[" + key + "]";
      auto jt = ParseGavelJobKey(key);
      if (!jt.ok()) return jt.status().WithContext(where);
      const int a = jobs.at({jt->scale_factor, jt->name});
      if (!entry.is_object()) return InvalidArgumentError(where + ": expected an object");
      for (const auto& [other, value] : entry.items()) {
        const std::string w2 = where + "[" + other + "]";
        if (other == "null") {
          ASSIGN_OR_RETURN(double iso, NonNegativeNumber(value, w2));
          t.isolated_[a * t.workers_.size() + w] = iso;
          continue;
        }
        auto ot = ParseGavelJobKey(other);
        if (!ot.ok()) return ot.status().WithContext(w2);
        const auto it = jobs.find({ot->scale_factor, ot->name});
        if (it == jobs.end()) return InvalidArgumentError(w2 + ": unknown partner job type");
        if (!value.is_array() || value.size() != 2) {
          return InvalidArgumentError(w2 + ": expected [tput_self, tput_other]");
        }
        ASSIGN_OR_RETURN(double self, NonNegativeNumber(value[0], w2 + "[0]"));
        ASSIGN_OR_RETURN(double partner, NonNegativeNumber(value[1], w2 + "[1]"));
        t.SetColocated(w, a, it->second, self, partner);
      }
    }
  }
  return t;
}

StatusOr<GavelThroughputs> WithoutRuns(const GavelThroughputs& table, std::string_view spec) {
  const std::string where = "--cannot-run \"" + std::string(spec) + "\": ";
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return InvalidArgumentError(where + "expected FAMILY[,FAMILY...]:GPU[,GPU...]");
  }
  std::vector<char> family_out(table.num_job_types(), 0), worker_out(table.num_workers(), 0);
  for (std::string_view family : SplitString(spec.substr(0, colon), ',')) {
    bool found = false;
    for (int j = 0; j < table.num_job_types(); ++j) {
      if (table.job_types()[j].Family() == family) family_out[j] = found = true;
    }
    if (!found)
      return InvalidArgumentError(where + "no job family \"" + std::string(family) + "\"");
  }
  for (std::string_view worker : SplitString(spec.substr(colon + 1), ',')) {
    const int w = table.FindWorker(worker);
    if (w < 0) return InvalidArgumentError(where + "no GPU type \"" + std::string(worker) + "\"");
    worker_out[w] = 1;
  }
  GavelThroughputs t = table;
  for (int w = 0; w < t.num_workers(); ++w) {
    if (!worker_out[w]) continue;
    for (int a = 0; a < t.num_job_types(); ++a) {
      if (family_out[a]) t.SetIsolated(a, w, 0);
      for (int b = 0; b < t.num_job_types(); ++b) {
        if ((family_out[a] || family_out[b]) && t.Colocated(w, a, b).measured) {
          t.SetColocated(w, a, b, 0, 0);
        }
      }
    }
  }
  for (int j = 0; j < t.num_job_types(); ++j) {
    bool any = false, before = false;
    for (int w = 0; w < t.num_workers(); ++w) {
      any = any || t.Isolated(j, w) > 0;
      before = before || table.Isolated(j, w) > 0;
    }
    if (before && !any) {
      return InvalidArgumentError(where + "leaves " + t.job_types()[j].name + " at scale factor " +
                                  std::to_string(t.job_types()[j].scale_factor) +
                                  " no GPU type to run on");
    }
  }
  return t;
}

StatusOr<GavelThroughputs> LoadGavelThroughputs(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseGavelThroughputs(text, path);
}

}  // namespace gpufleet::place
