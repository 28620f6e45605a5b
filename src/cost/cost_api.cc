#include "cost/cost_api.h"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "cost/budget.h"
#include "cost/cost_export.h"
#include "cost/cost_query.h"
#include "cost/cost_report.h"
#include "cost/unit_cost.h"

namespace gpufleet::cost {
namespace {

constexpr int64_t kMaxPeriodS = 400LL * 86400;

ApiReply Fail(const Status& st) {
  return {st.code() == StatusCode::kInvalidArgument ? 400 : 500, "text/plain",
          std::string(st.message())};
}

std::string Get(const ApiParams& p, const char* key, const char* fallback) {
  auto it = p.find(key);
  return it == p.end() || it->second.empty() ? std::string(fallback) : it->second;
}

Status CheckPeriod(int64_t from, int64_t to) {
  if (to <= from) return InvalidArgumentError("the period's end must be after its start");
  if (to - from > kMaxPeriodS) return InvalidArgumentError("period over 400 days");
  return OkStatus();
}

// OpenCost's window: "7d", "24h", "30m", "today", "week", "month", or
// "start,end".
StatusOr<std::pair<int64_t, int64_t>> ParseWindow(const std::string& w, int64_t now_s) {
  time_t now = static_cast<time_t>(now_s);
  struct tm tm;
  gmtime_r(&now, &tm);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  int64_t midnight = static_cast<int64_t>(timegm(&tm));
  if (w == "today") return std::make_pair(midnight, now_s);
  if (w == "week") return std::make_pair(midnight - int64_t{86400} * tm.tm_wday, now_s);
  if (w == "month") return std::make_pair(midnight - int64_t{86400} * (tm.tm_mday - 1), now_s);
  if (size_t comma = w.find(','); comma != std::string::npos) {
    ASSIGN_OR_RETURN(int64_t a, ParseTimeArg(w.substr(0, comma), now_s));
    ASSIGN_OR_RETURN(int64_t b, ParseTimeArg(w.substr(comma + 1), now_s));
    return std::make_pair(a, b);
  }
  StatusOr<int64_t> from = ParseTimeArg("-" + w, now_s);
  if (!from.ok()) {
    return InvalidArgumentError("window '" + w +
                                "': expected 7d, 24h, 30m, today, week, month or start,end");
  }
  return std::make_pair(*from, now_s);
}

StatusOr<LedgerPolicy> Policy(const ApiParams& p) {
  LedgerPolicy policy;
  ASSIGN_OR_RETURN(policy.basis, ParseBasis(Get(p, "basis", "allocation")));
  ASSIGN_OR_RETURN(policy.idle, ParseIdleRule(Get(p, "idle", "none")));
  ASSIGN_OR_RETURN(policy.contention, ParseContentionRule(Get(p, "contention", "transfer")));
  return policy;
}

}  // namespace

ApiReply CostQuery(const ApiParams& params, Meter& meter, detect::IncidentBook& incidents,
                   const PriceBook& prices, int64_t now_s, WorkMeter* work) {
  StatusOr<int64_t> from = ParseTimeArg(Get(params, "from", "-30d"), now_s);
  if (!from.ok()) return Fail(from.status().WithContext("from"));
  StatusOr<int64_t> to = ParseTimeArg(Get(params, "to", "now"), now_s);
  if (!to.ok()) return Fail(to.status().WithContext("to"));
  if (Status st = CheckPeriod(*from, *to); !st.ok()) return Fail(st);
  StatusOr<LedgerPolicy> policy = Policy(params);
  if (!policy.ok()) return Fail(policy.status());
  std::string format = Get(params, "format", "json");
  if (format != "json" && format != "csv" && format != "text" && format != "focus") {
    return Fail(InvalidArgumentError("format must be json, csv, text or focus"));
  }
  std::vector<std::string> by;
  for (std::string_view part : SplitString(Get(params, "by", "team"), ',')) {
    if (!TrimWhitespace(part).empty()) by.emplace_back(TrimWhitespace(part));
  }
  StatusOr<Ledger> ledger = LedgerFromStores(meter, incidents, prices, *policy, *from, *to);
  if (!ledger.ok()) return Fail(ledger.status());
  if (format == "focus") return {200, "text/csv", RenderFocusCsv(*ledger, prices.teams())};
  StatusOr<CostReport> report = BuildReport(*ledger, by, prices.teams());
  if (!report.ok()) return Fail(report.status());
  if (format == "csv") return {200, "text/csv", RenderCsv(*report)};
  if (format == "text") return {200, "text/plain", RenderText(*report)};
  const std::string jobs_arg = Get(params, "jobs", "auto");
  if (jobs_arg != "auto" && jobs_arg != "true" && jobs_arg != "false") {
    return Fail(InvalidArgumentError("jobs must be auto, true or false"));
  }
  if (work == nullptr || jobs_arg == "false" || !JobsWanted(by, jobs_arg == "true")) {
    return {200, "application/json", RenderJson(*report)};
  }
  StatusOr<std::map<std::string, WorkTotals>> totals = work->Totals(*from, *to);
  if (!totals.ok()) return Fail(totals.status());
  StatusOr<std::vector<JobCost>> jobs = JobCosts(*ledger, *totals, prices.teams());
  if (!jobs.ok()) return Fail(jobs.status());
  return {200, "application/json", WithJobs(RenderJson(*report), *jobs)};
}

StatusOr<std::vector<BudgetStatus>> BudgetStatuses(Meter& meter, detect::IncidentBook& incidents,
                                                   const PriceBook& prices, int64_t at_s) {
  const auto [month_start, month_end] = MonthOf(at_s);
  const int64_t now = std::min(at_s, month_end);
  if (now <= month_start) return std::vector<BudgetStatus>();
  ASSIGN_OR_RETURN(Ledger mtd,
                   LedgerFromStores(meter, incidents, prices, LedgerPolicy(), month_start, now));
  ASSIGN_OR_RETURN(Ledger recent, LedgerFromStores(meter, incidents, prices, LedgerPolicy(),
                                                   RecentStart(month_start, now), now));
  ASSIGN_OR_RETURN(CostReport mtd_report, BuildReport(mtd, {"team"}, prices.teams()));
  ASSIGN_OR_RETURN(CostReport recent_report, BuildReport(recent, {"team"}, prices.teams()));
  int64_t recent_from = std::max(recent.from_s, recent.first_minute_s);
  return EvaluateBudgets(prices.budgets(), mtd_report, recent_report, recent_from, now);
}

ApiReply BudgetQuery(const ApiParams& params, Meter& meter, detect::IncidentBook& incidents,
                     const PriceBook& prices, int64_t now_s) {
  StatusOr<int64_t> at = ParseTimeArg(Get(params, "at", "now"), now_s);
  if (!at.ok()) return Fail(at.status().WithContext("at"));
  StatusOr<std::vector<BudgetStatus>> statuses = BudgetStatuses(meter, incidents, prices, *at);
  if (!statuses.ok()) return Fail(statuses.status());
  nlohmann::json rows = nlohmann::json::array();
  for (const BudgetStatus& s : *statuses) {
    rows.push_back({{"team", s.team},
                    {"budget_usd", s.budget_usd},
                    {"spent_usd", s.spent_usd},
                    {"rate_usd_per_day", s.rate_usd_per_day},
                    {"forecast_usd", s.forecast_usd},
                    {"state", s.state},
                    {"summary", s.summary}});
  }
  return {200, "application/json", nlohmann::json{{"budgets", rows}}.dump(2) + "\n"};
}

ApiReply AllocationQuery(const ApiParams& params, Meter& meter, detect::IncidentBook& incidents,
                         const PriceBook& prices, int64_t now_s) {
  StatusOr<std::pair<int64_t, int64_t>> window = ParseWindow(Get(params, "window", "7d"), now_s);
  if (!window.ok()) return Fail(window.status());
  if (Status st = CheckPeriod(window->first, window->second); !st.ok()) return Fail(st);
  auto flag = [&](const char* key, bool fallback) -> StatusOr<bool> {
    std::string v = Get(params, key, fallback ? "true" : "false");
    if (v == "true") return true;
    if (v == "false") return false;
    return InvalidArgumentError(std::string(key) + " must be true or false");
  };
  StatusOr<bool> include_idle = flag("includeIdle", false);
  if (!include_idle.ok()) return Fail(include_idle.status());
  StatusOr<bool> share_idle = flag("shareIdle", false);
  if (!share_idle.ok()) return Fail(share_idle.status());
  LedgerPolicy policy;
  policy.idle = *share_idle ? IdleRule::kProportional : IdleRule::kNone;
  StatusOr<Ledger> alloc =
      LedgerFromStores(meter, incidents, prices, policy, window->first, window->second);
  if (!alloc.ok()) return Fail(alloc.status());
  policy.basis = Basis::kUsage;
  StatusOr<Ledger> usage =
      LedgerFromStores(meter, incidents, prices, policy, window->first, window->second);
  if (!usage.ok()) return Fail(usage.status());
  StatusOr<std::string> body = RenderOpenCostAllocation(
      *alloc, *usage, Get(params, "aggregate", "namespace"), *include_idle, prices.teams());
  if (!body.ok()) return Fail(body.status());
  return {200, "application/json", *body};
}

}  // namespace gpufleet::cost
