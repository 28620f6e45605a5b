#include "cost/job_query.h"

#include <cstdio>

#include "core/duration.h"
#include "cost/budget.h"
#include "cost/cost_query.h"
#include "cost/cost_report.h"

namespace gpufleet::cost {

StatusOr<std::vector<JobCost>> JobCostsFromStores(Meter& meter, WorkMeter& work,
                                                  detect::IncidentBook& incidents,
                                                  const PriceBook& prices, int64_t from_s,
                                                  int64_t to_s) {
  ASSIGN_OR_RETURN(Ledger ledger,
                   LedgerFromStores(meter, incidents, prices, LedgerPolicy(), from_s, to_s));
  ASSIGN_OR_RETURN(auto totals, work.Totals(from_s, to_s));
  return JobCosts(ledger, totals, prices.teams());
}

StatusOr<std::vector<UnitCostChange>> UnitCostChangesAt(Meter& meter, WorkMeter& work,
                                                        detect::IncidentBook& incidents,
                                                        const PriceBook& prices, int64_t now_s) {
  // Whole minutes only: the minute now_s is in is still being metered.
  const int64_t end = now_s / 60 * 60;
  const int64_t mid = end - kJumpRecentS;
  ASSIGN_OR_RETURN(std::vector<JobCost> recent,
                   JobCostsFromStores(meter, work, incidents, prices, mid, end));
  ASSIGN_OR_RETURN(std::vector<JobCost> baseline,
                   JobCostsFromStores(meter, work, incidents, prices, mid - kJumpBaselineS, mid));
  return UnitCostChanges(baseline, recent);
}

namespace {

std::string MonthName(int64_t t_s) { return IsoTime(t_s).substr(0, 7); }

}  // namespace

StatusOr<TeamSummary> TeamSummaryFromStores(Meter& meter, WorkMeter& work,
                                            detect::IncidentBook& incidents,
                                            const PriceBook& prices, const std::string& team,
                                            const std::string& month, int64_t now_s) {
  if (team.empty()) return InvalidArgumentError("team: required");
  int year = 0, mon = 0;
  char extra = 0;
  if (month.size() != 7 || std::sscanf(month.c_str(), "%4d-%2d%c", &year, &mon, &extra) != 2 ||
      mon < 1 || mon > 12 || year < 1970 || year > 9999) {
    return InvalidArgumentError("month '" + month + "': expected YYYY-MM");
  }
  ASSIGN_OR_RETURN(int64_t start, ParseTimeArg(month + "-01", now_s));
  const auto [from, to] = MonthOf(start);
  const auto [prev_from, prev_to] = MonthOf(from - 1);
  const int64_t end = std::min(to, now_s / 60 * 60);
  if (end <= from) return InvalidArgumentError("month " + month + " has not begun");
  ASSIGN_OR_RETURN(Ledger now_l,
                   LedgerFromStores(meter, incidents, prices, LedgerPolicy(), from, end));
  ASSIGN_OR_RETURN(Ledger before_l,
                   LedgerFromStores(meter, incidents, prices, LedgerPolicy(), prev_from, prev_to));
  ASSIGN_OR_RETURN(auto work_now, work.Totals(from, end));
  ASSIGN_OR_RETURN(auto work_before, work.Totals(prev_from, prev_to));
  return SummarizeTeam(team, now_l, work_now, before_l, work_before, prices.teams(), month,
                       MonthName(prev_from));
}

ApiReply SummaryQuery(const ApiParams& params, Meter& meter, WorkMeter& work,
                      detect::IncidentBook& incidents, const PriceBook& prices, int64_t now_s) {
  auto get = [&](const char* k, std::string def) {
    auto it = params.find(k);
    return it == params.end() ? def : it->second;
  };
  std::string format = get("format", "json");
  if (format != "json" && format != "text") {
    return {400, "text/plain", "format must be json or text"};
  }
  StatusOr<TeamSummary> s = TeamSummaryFromStores(meter, work, incidents, prices, get("team", ""),
                                                  get("month", MonthName(now_s)), now_s);
  if (!s.ok()) {
    return {s.status().code() == StatusCode::kInvalidArgument ? 400 : 500, "text/plain",
            std::string(s.status().message())};
  }
  if (format == "text") return {200, "text/plain", RenderSummaryText(*s)};
  return {200, "application/json", RenderSummaryJson(*s)};
}

}  // namespace gpufleet::cost
