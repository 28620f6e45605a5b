#include "cost/team_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "cost/cost_report.h"
#include "detect/finding.h"

namespace gpufleet::cost {
namespace {

std::string Usd(int64_t micro) {
  const int64_t cents = (micro + (micro >= 0 ? 5000 : -5000)) / 10000;
  std::string digits = std::to_string(std::llabs(cents) / 100);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s$%s.%02lld", cents < 0 ? "-" : "", digits.c_str(),
                static_cast<long long>(std::llabs(cents) % 100));
  return buf;
}

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", std::fabs(v));
  return buf;
}

struct Figures {
  TeamMonth month;
  std::map<std::string, int64_t> workloads;                         // team's workloads -> cost
  std::map<std::string, int64_t> gross, lost;                       // per workload
  std::map<std::string, std::set<std::string>> pods;                // per workload
  std::map<std::pair<std::string, std::string>, int64_t> culprits;  // (workload, team) -> charged
  std::map<std::string, int64_t> where;                             // "cloud model" -> credited
  std::map<std::string, int64_t> kinds;  // incident kind -> credited to the team
};

// "memory contention" for memory_contention; "contention" for an unknown kind.
std::string KindWords(const std::string& kind) {
  if (kind == detect::kKindMemoryContention) return "memory contention";
  if (kind == detect::kKindLatencyBound) return "latency-bound contention";
  if (kind == detect::kKindSustained) return "sustained contention";
  return "contention";
}

Figures Gather(const std::string& team, const Ledger& L,
               const std::map<std::string, WorkTotals>& work,
               const std::vector<std::pair<std::string, std::string>>& teams) {
  Figures f;
  std::map<int64_t, int64_t> credited;  // device -> credits to the team (positive)
  for (const ChargeLine& l : L.lines) {
    auto h = L.holders.find(l.holder);
    if (l.holder == kNoHolder || h == L.holders.end() || TeamOf(*h->second, teams) != team) continue;
    f.month.cost_micro += l.micro_usd;
    f.workloads[WorkloadOf(*h->second)] += l.micro_usd;
    if (!h->second->pod.empty()) f.pods[WorkloadOf(*h->second)].insert(h->second->pod);
    if (l.category != Category::kContention) {
      f.month.gross_micro += l.micro_usd;
      f.gross[WorkloadOf(*h->second)] += l.micro_usd;
    } else if (l.micro_usd < 0) {
      f.month.lost_micro -= l.micro_usd;
      f.lost[WorkloadOf(*h->second)] -= l.micro_usd;
      credited[l.device] -= l.micro_usd;
    } else {
      f.month.caused_micro += l.micro_usd;
    }
  }
  for (const auto& [key, micro] : L.credits_by_kind) {
    auto h = L.holders.find(std::get<1>(key));
    if (h == L.holders.end() || TeamOf(*h->second, teams) != team) continue;
    f.kinds[std::get<2>(key)] += micro;
  }
  for (const NetworkCharge& c : L.network) {
    auto h = L.holders.find(c.holder);
    if (h == L.holders.end() || TeamOf(*h->second, teams) != team) continue;
    f.month.cost_micro += c.micro_usd;
    f.month.gross_micro += c.micro_usd;
    f.gross[WorkloadOf(*h->second)] += c.micro_usd;
    f.workloads[WorkloadOf(*h->second)] += c.micro_usd;
  }
  // Culprits: positive contention lines of other teams' holders on the
  // devices where this team was credited.
  for (const ChargeLine& l : L.lines) {
    if (l.category != Category::kContention || l.micro_usd <= 0 || !credited.count(l.device)) {
      continue;
    }
    auto h = L.holders.find(l.holder);
    if (h == L.holders.end()) continue;
    std::string t = l.holder > 0 ? TeamOf(*h->second, teams) : h->second->team;
    if (t == team && l.holder > 0) continue;
    f.culprits[{WorkloadOf(*h->second), t}] += l.micro_usd;
  }
  for (const auto& [dev, micro] : credited) {
    auto d = L.devices.find(dev);
    if (d == L.devices.end()) continue;
    std::string w = (d->second.cloud.empty() ? "unknown-cloud" : d->second.cloud) + " " +
                    (d->second.model.empty() ? "unknown-model" : d->second.model);
    f.where[w] += micro;
  }
  // Per step: the team's workloads that reported steps, their cost and loss.
  // (Work of a workload_name, else of the workload's pods, as JobCosts.)
  for (const auto& [w, micro] : f.workloads) {
    WorkTotals t;
    if (auto it = work.find(w); it != work.end()) {
      t = it->second;
    } else {
      for (const std::string& pod : f.pods[w]) {
        auto p = work.find(kPodKeyPrefix + pod);
        if (p == work.end()) continue;
        t.steps += p->second.steps;
        t.tokens += p->second.tokens;
      }
    }
    f.month.tokens += t.tokens;
    if (t.steps <= 0) continue;
    f.month.steps += t.steps;
    f.month.step_cost_micro += f.gross[w];
    f.month.step_lost_micro += f.lost[w];
  }
  if (f.month.steps > 0) {
    f.month.usd_per_step =
        static_cast<double>(f.month.step_cost_micro) / 1e6 / static_cast<double>(f.month.steps);
  }
  return f;
}

template <typename K>
std::pair<K, int64_t> Largest(const std::map<K, int64_t>& m) {
  std::pair<K, int64_t> best{};
  for (const auto& [k, v] : m) {
    if (v > best.second) best = {k, v};
  }
  return best;
}

}  // namespace

StatusOr<TeamSummary> SummarizeTeam(const std::string& team, const Ledger& now,
                                    const std::map<std::string, WorkTotals>& work_now,
                                    const Ledger& before,
                                    const std::map<std::string, WorkTotals>& work_before,
                                    const std::vector<std::pair<std::string, std::string>>& teams,
                                    const std::string& month, const std::string& previous_month) {
  if (team.empty()) return InvalidArgumentError("summary: team must not be empty");
  TeamSummary s;
  s.team = team;
  s.month = month;
  s.previous_month = previous_month;
  Figures a = Gather(team, now, work_now, teams);
  Figures b = Gather(team, before, work_before, teams);
  s.now = a.month;
  s.before = b.month;
  for (const auto& [w, micro] : a.workloads) s.top_workloads.push_back({w, micro});
  std::stable_sort(s.top_workloads.begin(), s.top_workloads.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  if (s.top_workloads.size() > 3) s.top_workloads.resize(3);

  if (a.workloads.empty() && b.workloads.empty()) {
    s.sentences.push_back(team + " was charged nothing in " + month + " or " + previous_month +
                          ".");
    return s;
  }
  std::string first = team + " spent " + Usd(s.now.cost_micro) + " in " + month;
  if (s.before.cost_micro > 0) {
    s.cost_change_pct =
        (static_cast<double>(s.now.cost_micro) / static_cast<double>(s.before.cost_micro) - 1) *
        100;
    first += ", " + Pct(s.cost_change_pct) + (s.cost_change_pct >= 0 ? " more" : " less") +
             " than in " + previous_month + " (" + Usd(s.before.cost_micro) + ").";
  } else {
    first += "; nothing in " + previous_month + ".";
  }
  s.sentences.push_back(first);

  if (s.now.usd_per_step > 0 && s.before.usd_per_step > 0) {
    s.step_cost_change_pct = (s.now.usd_per_step / s.before.usd_per_step - 1) * 100;
    char buf[160];
    std::snprintf(buf, sizeof buf, "Cost per step %s %s ($%.4g -> $%.4g, %lld steps this month).",
                  s.step_cost_change_pct >= 0 ? "rose" : "fell",
                  Pct(s.step_cost_change_pct).c_str(), s.before.usd_per_step, s.now.usd_per_step,
                  static_cast<long long>(s.now.steps));
    s.sentences.push_back(buf);
    const double lost_now =
        static_cast<double>(s.now.step_lost_micro) / 1e6 / static_cast<double>(s.now.steps);
    const double lost_before =
        static_cast<double>(s.before.step_lost_micro) / 1e6 / static_cast<double>(s.before.steps);
    s.contention_points = (lost_now - lost_before) / s.before.usd_per_step * 100;
  } else {
    s.sentences.push_back(
        "Cost per step is not known: the team's workloads reported no steps "
        "(gpu_workload_step_duration_seconds) in both months.");
  }

  if (s.now.lost_micro > 0) {
    for (const auto& [kind, micro] : a.kinds) s.lost_by_kind.push_back({kind, micro});
    std::stable_sort(s.lost_by_kind.begin(), s.lost_by_kind.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    // One kind: "memory contention"; several: "contention" and the split
    // "memory contention $1.50, latency-bound contention $0.50".
    std::string kind = "contention", split;
    if (s.lost_by_kind.size() == 1) kind = KindWords(s.lost_by_kind[0].first);
    for (size_t i = 0; s.lost_by_kind.size() > 1 && i < s.lost_by_kind.size(); ++i) {
      split += std::string(i ? ", " : "") + KindWords(s.lost_by_kind[i].first) + " " +
               Usd(s.lost_by_kind[i].second);
    }
    auto [culprit, charged] = Largest(a.culprits);
    auto [where, credited] = Largest(a.where);
    s.culprit = culprit.first;
    s.culprit_team = culprit.second;
    s.where = where;
    std::string who = s.culprit.empty() ? "an unidentified neighbour"
                                        : "workload " + s.culprit +
                                              (s.culprit_team.empty() || s.culprit_team == team
                                                   ? std::string()
                                                   : " (team " + s.culprit_team + ")");
    std::string place = " on " + where + " nodes, caused by " + who + ".";
    if (s.step_cost_change_pct != 0 && s.now.usd_per_step > 0 && s.before.usd_per_step > 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.0f points of the change", s.contention_points);
      s.sentences.push_back(std::string(buf) + " came from GPU time lost to " + kind + " (" +
                            Usd(s.now.lost_micro) + (split.empty() ? "" : ": " + split) + ")" +
                            place);
    } else {
      s.sentences.push_back(Usd(s.now.lost_micro) + " of GPU time was lost to " + kind +
                            (split.empty() ? "" : " (" + split + ")") + place);
    }
  } else {
    s.sentences.push_back("No GPU time was lost to contention this month.");
  }
  if (s.now.caused_micro > 0) {
    s.sentences.push_back(team + " was charged " + Usd(s.now.caused_micro) +
                          " for contention its workloads caused to others.");
  }
  if (!s.top_workloads.empty()) {
    std::string top = "Largest workloads: ";
    for (size_t i = 0; i < s.top_workloads.size(); ++i) {
      top +=
          (i ? ", " : "") + s.top_workloads[i].first + " (" + Usd(s.top_workloads[i].second) + ")";
    }
    s.sentences.push_back(top + ".");
  }
  return s;
}

std::string RenderSummaryText(const TeamSummary& s) {
  std::string out;
  for (const std::string& line : s.sentences) out += line + "\n";
  return out;
}

std::string RenderSummaryJson(const TeamSummary& s) {
  using nlohmann::json;
  auto month = [](const TeamMonth& m) {
    return json{{"cost_usd", static_cast<double>(m.cost_micro) / 1e6},
                {"cost_before_contention_usd", static_cast<double>(m.gross_micro) / 1e6},
                {"lost_to_contention_usd", static_cast<double>(m.lost_micro) / 1e6},
                {"charged_for_contention_caused_usd", static_cast<double>(m.caused_micro) / 1e6},
                {"steps", m.steps},
                {"stepping_workloads_cost_usd", static_cast<double>(m.step_cost_micro) / 1e6},
                {"tokens", m.tokens},
                {"usd_per_step", m.usd_per_step < 0 ? json(nullptr) : json(m.usd_per_step)}};
  };
  json lost_by_kind = json::object();
  for (const auto& [kind, micro] : s.lost_by_kind) {
    lost_by_kind[kind.empty() ? "unknown" : kind] = static_cast<double>(micro) / 1e6;
  }
  json top = json::array();
  for (const auto& [w, micro] : s.top_workloads) {
    top.push_back({{"workload", w}, {"cost_usd", static_cast<double>(micro) / 1e6}});
  }
  json out = {{"team", s.team},
              {"month", s.month},
              {"previous_month", s.previous_month},
              {"this_month", month(s.now)},
              {"previous", month(s.before)},
              {"cost_change_pct", s.cost_change_pct},
              {"step_cost_change_pct", s.step_cost_change_pct},
              {"contention_points", s.contention_points},
              {"culprit", s.culprit},
              {"culprit_team", s.culprit_team},
              {"where", s.where},
              {"lost_to_contention_by_kind", lost_by_kind},
              {"top_workloads", top},
              {"sentences", s.sentences}};
  return out.dump(2) + "\n";
}

}  // namespace gpufleet::cost
