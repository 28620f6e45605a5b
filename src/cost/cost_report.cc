#include "cost/cost_report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "core/duration.h"

namespace gpufleet::cost {
namespace {

std::string Dollars(int64_t micro) {
  // Round half away from zero to cents.
  int64_t cents = (micro >= 0 ? micro + 5000 : micro - 5000) / 10000;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s%lld.%02lld", cents < 0 ? "-" : "",
                static_cast<long long>(std::llabs(cents) / 100),
                static_cast<long long>(std::llabs(cents) % 100));
  return buf;
}

std::string HolderValue(std::string_view dim, int64_t holder, const Ledger& L,
                        const std::vector<std::pair<std::string, std::string>>& teams);

std::string Value(std::string_view dim, const ChargeLine& line, const Ledger& L,
                  const std::vector<std::pair<std::string, std::string>>& teams) {
  const MeteredDevice& d = L.devices.at(line.device);
  if (dim == "model") return d.model;
  if (dim == "cloud") return d.cloud;
  if (dim == "region") return d.region;
  if (dim == "node") return d.node;
  if (dim == "device") return d.key;
  if (dim == "pricing") {
    auto it = L.device_costs.find(line.device);
    return it == L.device_costs.end() ? "" : std::string(PricingName(it->second.price.pricing));
  }
  return HolderValue(dim, line.holder, L, teams);
}

// A network charge's group: its source cloud / region, "(network)" for the
// device dimensions, its holder for the rest.
std::string NetworkValue(std::string_view dim, const NetworkCharge& c, const Ledger& L,
                         const std::vector<std::pair<std::string, std::string>>& teams) {
  if (dim == "cloud") return c.cloud;
  if (dim == "region") return c.region;
  if (dim == "model" || dim == "node" || dim == "device" || dim == "pricing") return "(network)";
  return HolderValue(dim, c.holder, L, teams);
}

std::string HolderValue(std::string_view dim, int64_t holder, const Ledger& L,
                        const std::vector<std::pair<std::string, std::string>>& teams) {
  if (holder == kNoHolder) return "(unallocated)";
  auto it = L.holders.find(holder);
  if (it == L.holders.end()) return "(unknown holder)";
  const Holder& h = *it->second;
  if (dim == "team") return TeamOf(h, teams);
  auto or_dash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  if (dim == "namespace") return or_dash(h.namespace_);
  if (dim == "pod") return or_dash(h.pod);
  if (dim == "workload") return WorkloadOf(h);
  if (dim == "slurm_account") return or_dash(h.slurm_account);
  if (dim == "slurm_user") return or_dash(h.slurm_user);
  if (dim == "slurm_job") return or_dash(h.slurm_job);
  return "";
}

void Add(CostRow& row, const ChargeLine& l) {
  switch (l.category) {
    case Category::kBase:
      row.base_micro += l.micro_usd;
      row.allocation_micro += l.allocation_micro;
      row.gpu_hours += l.gpu_hours;
      break;
    case Category::kIdleAllocated:
    case Category::kIdleUnallocated:
    case Category::kIdleShare:
      row.idle_micro += l.micro_usd;
      row.idle_gpu_hours += l.gpu_hours;
      break;
    case Category::kContention:
      row.contention_micro += l.micro_usd;
      row.lost_gpu_hours += l.lost_gpu_hours;
      break;
  }
  row.total_micro += l.micro_usd;
}

}  // namespace

std::string WorkloadOf(const Holder& h) {
  if (!h.workload.empty()) return h.workload;
  if (!h.slurm_job.empty()) return "slurm job " + h.slurm_job;
  return h.pod.empty() ? "-" : h.pod;
}

std::string TeamOf(const Holder& h, const std::vector<std::pair<std::string, std::string>>& teams) {
  if (!h.team.empty()) return h.team;
  for (const auto& [ns, team] : teams) {
    if (ns == h.namespace_) return team;
  }
  if (!h.namespace_.empty()) return h.namespace_;
  if (!h.slurm_account.empty()) return h.slurm_account;
  return "(no team)";
}

const std::vector<std::string>& GroupingNames() {
  static const std::vector<std::string> kNames = {
      "team",  "namespace", "workload", "pod",  "slurm_account", "slurm_user", "slurm_job",
      "model", "cloud",     "region",   "node", "device",        "pricing"};
  return kNames;
}

StatusOr<CostReport> BuildReport(const Ledger& L, const std::vector<std::string>& by,
                                 const std::vector<std::pair<std::string, std::string>>& teams) {
  for (const std::string& b : by) {
    if (std::find(GroupingNames().begin(), GroupingNames().end(), b) == GroupingNames().end()) {
      std::string all;
      for (const std::string& n : GroupingNames()) all += (all.empty() ? "" : ", ") + n;
      return InvalidArgumentError("cannot group by '" + b + "' (one of: " + all + ")");
    }
  }
  CostReport r;
  r.from_s = L.from_s;
  r.to_s = L.to_s;
  r.basis = std::string(BasisName(L.policy.basis));
  r.idle_rule = L.policy.idle == IdleRule::kNone           ? "none"
                : L.policy.idle == IdleRule::kProportional ? "proportional"
                                                           : "owner";
  r.contention_rule = L.policy.contention == ContentionRule::kOff        ? "off"
                      : L.policy.contention == ContentionRule::kTransfer ? "transfer"
                                                                         : "surcharge";
  r.by = by;
  r.warnings = L.warnings;
  std::map<std::vector<std::string>, CostRow> groups;
  for (const ChargeLine& l : L.lines) {
    std::vector<std::string> key;
    for (const std::string& b : by) key.push_back(Value(b, l, L, teams));
    CostRow& row = groups[key];
    row.key = key;
    Add(row, l);
    Add(r.total, l);
  }
  for (const NetworkCharge& c : L.network) {
    std::vector<std::string> key;
    for (const std::string& b : by) key.push_back(NetworkValue(b, c, L, teams));
    CostRow& row = groups[key];
    row.key = key;
    for (CostRow* x : {&row, &r.total}) {
      x->network_micro += c.micro_usd;
      x->network_gb += c.gb;
      x->total_micro += c.micro_usd;
    }
  }
  for (auto& [k, row] : groups) r.rows.push_back(std::move(row));
  std::stable_sort(r.rows.begin(), r.rows.end(), [](const CostRow& a, const CostRow& b) {
    return a.total_micro > b.total_micro;
  });
  for (const auto& [id, dc] : L.device_costs) r.device_minutes += dc.minutes;
  return r;
}

std::string RenderText(const CostReport& r) {
  std::string out = "GPU cost " + IsoTime(r.from_s) + " .. " + IsoTime(r.to_s) + "  (basis " +
                    r.basis + ", idle " + r.idle_rule + ", contention " + r.contention_rule + ")\n";
  std::string head;
  for (const std::string& b : r.by) head += b + " / ";
  if (!head.empty()) head.resize(head.size() - 3);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-36s %9s %9s %11s %11s %10s %11s %10s %11s %8s\n", head.c_str(),
                "GPU-h", "IDLE GPU-h", "ALLOCATION", "BASE", "IDLE", "CONTENTION", "NETWORK",
                "TOTAL", "LOST GPU-h");
  out += buf;
  auto line = [&](const std::string& name, const CostRow& row) {
    std::snprintf(buf, sizeof buf, "%-36s %9.2f %9.2f %11s %11s %10s %11s %10s %11s %8.2f\n",
                  name.substr(0, 36).c_str(), row.gpu_hours, row.idle_gpu_hours,
                  Dollars(row.allocation_micro).c_str(), Dollars(row.base_micro).c_str(),
                  Dollars(row.idle_micro).c_str(), Dollars(row.contention_micro).c_str(),
                  Dollars(row.network_micro).c_str(), Dollars(row.total_micro).c_str(),
                  row.lost_gpu_hours);
    out += buf;
  };
  for (const CostRow& row : r.rows) {
    std::string name;
    for (const std::string& k : row.key) name += (name.empty() ? "" : " / ") + k;
    line(name, row);
  }
  line("TOTAL", r.total);
  out += "USD. BASE is the " + r.basis +
         " charge; ALLOCATION is held GPU time x price (OpenCost's basis) for "
         "comparison;\n"
         "CONTENTION moves the cost of time lost to contention from victims "
         "(-) to the "
         "neighbours that caused it (+).\n"
         "NETWORK is declared cross-region / cross-cloud transfer x egress price, on top of "
         "the GPUs' cost.\n";
  if (!r.warnings.empty()) {
    out += "PARTIAL: " + std::to_string(r.warnings.size()) +
           " device(s) could not be priced and are left out:\n";
    for (const std::string& w : r.warnings) out += "  " + w + "\n";
  }
  return out;
}

std::string RenderCsv(const CostReport& r) {
  std::string out;
  for (const std::string& b : r.by) out += b + ",";
  out +=
      "gpu_hours,idle_gpu_hours,allocation_usd,base_usd,idle_usd,contention_"
      "usd,network_usd,total_usd,"
      "lost_gpu_hours\n";
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  char buf[256];
  auto row_text = [&](const CostRow& row) {
    std::snprintf(buf, sizeof buf, "%.6f,%.6f,%s,%s,%s,%s,%s,%s,%.6f\n", row.gpu_hours,
                  row.idle_gpu_hours, Dollars(row.allocation_micro).c_str(),
                  Dollars(row.base_micro).c_str(), Dollars(row.idle_micro).c_str(),
                  Dollars(row.contention_micro).c_str(), Dollars(row.network_micro).c_str(),
                  Dollars(row.total_micro).c_str(), row.lost_gpu_hours);
    return std::string(buf);
  };
  for (const CostRow& row : r.rows) {
    for (const std::string& k : row.key) out += quote(k) + ",";
    out += row_text(row);
  }
  return out;
}

std::string RenderJson(const CostReport& r) {
  using nlohmann::json;
  auto row_json = [](const CostRow& row) {
    auto usd = [](int64_t micro) { return static_cast<double>(micro) / 1e6; };
    return json{{"gpu_hours", row.gpu_hours},
                {"idle_gpu_hours", row.idle_gpu_hours},
                {"allocation_usd", usd(row.allocation_micro)},
                {"base_usd", usd(row.base_micro)},
                {"idle_usd", usd(row.idle_micro)},
                {"contention_usd", usd(row.contention_micro)},
                {"network_usd", usd(row.network_micro)},
                {"network_gb", row.network_gb},
                {"total_usd", usd(row.total_micro)},
                {"lost_gpu_hours", row.lost_gpu_hours}};
  };
  json rows = json::array();
  for (const CostRow& row : r.rows) {
    json j = row_json(row);
    json key = json::object();
    for (size_t i = 0; i < r.by.size(); ++i) key[r.by[i]] = row.key[i];
    j["group"] = key;
    rows.push_back(j);
  }
  json out = {{"from", IsoTime(r.from_s)},
              {"to", IsoTime(r.to_s)},
              {"basis", r.basis},
              {"idle", r.idle_rule},
              {"contention", r.contention_rule},
              {"by", r.by},
              {"rows", rows},
              {"total", row_json(r.total)},
              {"device_minutes", r.device_minutes},
              {"partial", !r.warnings.empty()},
              {"warnings", r.warnings}};
  return out.dump(2) + "\n";
}

}  // namespace gpufleet::cost

namespace gpufleet::cost {

StatusOr<int64_t> ParseTimeArg(std::string_view text, int64_t now_s) {
  std::string t(text);
  auto bad = [&] {
    return InvalidArgumentError("time '" + t +
                                "': expected now, -30d / -6h / -90m, 2026-12-01, "
                                "2026-12-01T08:00:00Z or unix seconds");
  };
  if (t == "now") return now_s;
  if (!t.empty() && t[0] == '-' && t.size() >= 3) {
    char unit = t.back();
    int64_t mult = unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : 0;
    if (mult == 0) return bad();
    char* end = nullptr;
    long long n = std::strtoll(t.c_str() + 1, &end, 10);
    // 100,000 days (270 years) bounds the product well inside int64.
    if (end != t.c_str() + t.size() - 1 || n < 0 || n > 100'000LL * 86400 / mult) return bad();
    return now_s - n * mult;
  }
  if (!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (t.size() > 11) return bad();  // beyond the year 5000: a typo, not a time
    return static_cast<int64_t>(std::strtoll(t.c_str(), nullptr, 10));
  }
  struct tm tm = {};
  const char* end = strptime(t.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') {
    tm = {};
    end = strptime(t.c_str(), "%Y-%m-%d", &tm);
    if (end == nullptr || *end != '\0') return bad();
  }
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace gpufleet::cost
