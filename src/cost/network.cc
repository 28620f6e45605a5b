#include "cost/network.h"

#include <cmath>

#include "core/embedded.h"
#include "cost/cost_report.h"

namespace gpufleet::cost {
namespace {

constexpr double kMicro = 1e6;

// "cloud/region" -> (cloud, region); `allow_internet`: "internet" alone.
Status SplitPlace(const TomlReader& t, std::string_view key, bool allow_internet,
                  std::string& cloud, std::string& region) {
  std::string text;
  RETURN_IF_ERROR(t.Require(key, text));
  if (allow_internet && text == "internet") {
    cloud = "internet";
    return OkStatus();
  }
  size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string::npos) {
    return t.FieldError(*t.Get(key), key,
                        "'" + text + "' must be cloud/region" +
                            (allow_internet ? std::string(" or internet") : std::string()));
  }
  cloud = text.substr(0, slash);
  region = text.substr(slash + 1);
  return OkStatus();
}

}  // namespace

StatusOr<EgressTable> EgressTable::Parse(std::string_view toml, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(toml, origin));
  TomlReader r(root, origin);
  RETURN_IF_ERROR(r.CheckKeys({"egress"}));
  return ParseTables(r);
}

EgressTable EgressTable::Overlay(const EgressTable& base, const EgressTable& site) {
  EgressTable out = site;
  for (const EgressPrice& p : base.rows_) {
    if (site.Find(p.cloud, p.kind) == nullptr) out.rows_.push_back(p);
  }
  return out;
}

StatusOr<EgressTable> EgressTable::ParseTables(const TomlReader& r) {
  EgressTable table;
  RETURN_IF_ERROR(r.ForEachTable("egress", [&](const TomlReader& e) -> Status {
    RETURN_IF_ERROR(e.CheckKeys({"cloud", "kind", "usd_per_unit", "per", "source", "date"}));
    EgressPrice p;
    p.where = TomlPlace(e.origin(), e.table());
    std::string per;
    RETURN_IF_ERROR(e.Require("cloud", p.cloud));
    RETURN_IF_ERROR(e.Require("kind", p.kind));
    RETURN_IF_ERROR(e.Require("usd_per_unit", p.usd_per_unit, 0.0, 10.0));
    RETURN_IF_ERROR(e.Require("per", per));
    RETURN_IF_ERROR(e.Require("source", p.source));
    RETURN_IF_ERROR(e.Require("date", p.date));
    // Every price carries where it came from and when.
    for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"cloud", &p.cloud},
                                     {"source", &p.source},
                                     {"date", &p.date}}) {
      if (value->empty()) return e.FieldError(*e.Get(key), key, "must not be empty");
    }
    if (p.kind != "inter_region" && p.kind != "internet") {
      return e.FieldError(*e.Get("kind"), "kind", "must be inter_region or internet");
    }
    if (per != "GB" && per != "GiB") return e.FieldError(*e.Get("per"), "per", "must be GB or GiB");
    p.unit_bytes = per == "GB" ? 1e9 : 1073741824.0;
    if (table.Find(p.cloud, p.kind) != nullptr) {
      return e.FieldError(*e.Get("kind"), "kind", "a second " + p.kind + " price for " + p.cloud);
    }
    table.rows_.push_back(std::move(p));
    return OkStatus();
  }));
  return table;
}

const EgressTable& EgressTable::Default() {
  static const EgressTable* table = [] {
    std::optional<std::string_view> text = FindEmbeddedFile("prices/egress.toml");
    GPUFLEET_CHECK(text.has_value());
    StatusOr<EgressTable> t = Parse(*text, "egress.toml");
    GPUFLEET_CHECK(t.ok());
    return new EgressTable(std::move(*t));
  }();
  return *table;
}

const EgressPrice* EgressTable::Find(std::string_view cloud, std::string_view kind) const {
  for (const EgressPrice& p : rows_) {
    if (p.cloud == cloud && p.kind == kind) return &p;
  }
  return nullptr;
}

StatusOr<std::vector<Transfer>> ParseTransfers(const TomlReader& root) {
  std::vector<Transfer> out;
  RETURN_IF_ERROR(root.ForEachTable("transfer", [&](const TomlReader& t) -> Status {
    RETURN_IF_ERROR(
        t.CheckKeys({"workload", "pod", "slurm_job", "team", "from", "to", "gb", "at"}));
    Transfer x;
    x.where = TomlPlace(t.origin(), t.table());
    RETURN_IF_ERROR(t.Read("workload", x.workload));
    RETURN_IF_ERROR(t.Read("pod", x.pod));
    RETURN_IF_ERROR(t.Read("slurm_job", x.slurm_job));
    RETURN_IF_ERROR(t.Read("team", x.team));
    if (x.workload.empty() && x.pod.empty() && x.slurm_job.empty()) {
      return t.Error(t.table(), "a [[transfer]] needs workload, pod or slurm_job (who pays)");
    }
    RETURN_IF_ERROR(SplitPlace(t, "from", false, x.from_cloud, x.from_region));
    RETURN_IF_ERROR(SplitPlace(t, "to", true, x.to_cloud, x.to_region));
    RETURN_IF_ERROR(t.Require("gb", x.gb, 0.0, 1e12));
    std::string at;
    RETURN_IF_ERROR(t.Require("at", at));
    StatusOr<int64_t> at_s = ParseTimeArg(at, 0);
    if (!at_s.ok() || at.empty() || at[0] == '-' || at == "now") {
      return t.FieldError(*t.Get("at"), "at", "'" + at + "' must be a date or RFC 3339 time");
    }
    x.at_s = *at_s;
    out.push_back(std::move(x));
    return OkStatus();
  }));
  return out;
}

std::vector<NetworkCharge> ChargeNetwork(const std::vector<Transfer>& transfers,
                                         const EgressTable& egress,
                                         const std::shared_ptr<const std::vector<Holder>>& known,
                                         std::map<int64_t, std::shared_ptr<const Holder>>& holders,
                                         int64_t from_s,
                                         int64_t to_s, std::vector<std::string>& warnings) {
  std::vector<NetworkCharge> out;
  int64_t next_synthetic = kNetworkHolderBase;
  for (const auto& [id, h] : holders) next_synthetic = std::min(next_synthetic, id - 1);
  for (const Transfer& x : transfers) {
    if (x.at_s < from_s || x.at_s >= to_s) continue;
    NetworkCharge c;
    c.cloud = x.from_cloud;
    c.region = x.from_region;
    c.to = x.to_cloud == "internet" ? "internet" : x.to_cloud + "/" + x.to_region;
    c.gb = x.gb;
    c.at_s = x.at_s;
    c.where = x.where;
    const Holder* match = nullptr;
    for (const Holder& h : *known) {
      if (h.id <= 0) continue;
      if ((!x.workload.empty() && x.workload == h.workload) || (!x.pod.empty() && x.pod == h.pod) ||
          (!x.slurm_job.empty() && x.slurm_job == h.slurm_job)) {
        if (match == nullptr || h.id < match->id) match = &h;
      }
    }
    if (match != nullptr) {
      c.holder = match->id;
      holders.try_emplace(match->id, std::shared_ptr<const Holder>(known, match));
    }
    if (c.holder == 0) {
      Holder h;
      h.id = next_synthetic--;
      h.workload = !x.workload.empty() ? x.workload : !x.pod.empty() ? x.pod : x.slurm_job;
      h.pod = x.pod;
      h.slurm_job = x.slurm_job;
      h.team = x.team;
      h.key = "transfer:" + h.workload;
      holders[h.id] = std::make_shared<const Holder>(std::move(h));
      c.holder = h.id;
    }
    if (x.to_cloud == x.from_cloud && x.to_region == x.from_region) {
      c.kind = "free";
    } else {
      c.kind = x.to_cloud == x.from_cloud ? "inter_region" : "internet";
      const EgressPrice* p = egress.Find(x.from_cloud, c.kind);
      if (p == nullptr) {
        warnings.push_back(
            x.where + ": no " + c.kind + " egress price for cloud '" + x.from_cloud +
            "' (data/prices/egress.toml or the site file's [[egress]]): transfer charged $0");
      } else {
        c.micro_usd = std::llround(kMicro * p->usd_per_unit * x.gb * 1e9 / p->unit_bytes);
        c.source = p->source;
        c.date = p->date;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpufleet::cost
