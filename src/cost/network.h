// Network charges: cross-region and cross-cloud transfer x the source
// cloud's egress price, charged to the job that moved the bytes.
//
// Where the bytes come from: declared per job in the site's cost TOML,
//
//   [[transfer]]
//   workload = "train-llm"       # or pod / slurm_job: which holder pays
//   team = "research"            # for a job the meter never saw (optional)
//   from = "aws/us-east-1"       # cloud/region the bytes leave
//   to = "gcp/us-central1"       # cloud/region, or "internet"
//   gb = 1200                    # 10^9 bytes
//   at = "2026-12-03"            # when (date or RFC 3339); charged in
//                                # the period that contains it
//
// The canonical schema has no counters of bytes leaving a region or cloud
// (gpu_interconnect_* are GPU-to-GPU links inside a node, gpu_pcie_* the
// host link), so declarations are the only source for now.
//
// Rule: same cloud and region: free (inter-zone not modelled); same cloud,
// another region: the cloud's "inter_region" price; another cloud, on
// premises or "internet": the source cloud's "internet" price. Prices come
// from data/prices/egress.toml (first volume tier, per GB or GiB as the
// cloud bills). A source cloud without a price is charged $0 and named in a
// warning (the report is partial).
//
// Reconciliation: network is charged on top of device cost. For every
// period, the report's total = the devices' cost (lines reconcile per
// device) + the network charges; network lines are not device lines.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/toml_reader.h"
#include "cost/meter.h"

namespace gpufleet::cost {

struct EgressPrice {
  std::string cloud, kind;  // kind: inter_region | internet
  double usd_per_unit = 0;
  double unit_bytes = 1e9;  // GB or GiB
  std::string source, date, where;
};

class EgressTable {
 public:
  // `[[egress]]` rows as in data/prices/egress.toml; errors name file:line
  // and field.
  static StatusOr<EgressTable> Parse(std::string_view toml, std::string_view origin);
  // The `[[egress]]` tables under `root` (a site file's, called by
  // PriceBook::Parse; other keys are the caller's to check).
  static StatusOr<EgressTable> ParseTables(const TomlReader& root);
  // The embedded data/prices/egress.toml.
  static const EgressTable& Default();
  // `site`'s rows, then `base`'s for the (cloud, kind) pairs `site` does not
  // price: a site's negotiated network rate, or one the catalog lacks.
  static EgressTable Overlay(const EgressTable& base, const EgressTable& site);
  const EgressPrice* Find(std::string_view cloud, std::string_view kind) const;
  const std::vector<EgressPrice>& rows() const { return rows_; }

 private:
  std::vector<EgressPrice> rows_;
};

struct Transfer {
  std::string workload, pod, slurm_job, team;
  std::string from_cloud, from_region, to_cloud, to_region;  // to_cloud "internet": no region
  double gb = 0;
  int64_t at_s = 0;
  std::string where;  // "site.toml:12"
};

// The [[transfer]] tables of a site file (called by PriceBook::Parse).
StatusOr<std::vector<Transfer>> ParseTransfers(const TomlReader& root);

struct NetworkCharge {
  int64_t holder = 0;             // a meter holder, or a synthetic one (see AddNetwork)
  std::string cloud, region, to;  // source cloud / region; destination "cloud/region" or "internet"
  std::string kind;               // inter_region | internet | free
  double gb = 0;
  int64_t micro_usd = 0;
  int64_t at_s = 0;
  std::string source, date, where;
};

// Charges the transfers whose `at` is in [from_s, to_s). A transfer's holder
// is the lowest id of `known` whose workload, pod or Slurm job it names
// (copied into `holders`); else a synthetic holder (ids from
// kNetworkHolderBase down) added to `holders`.
// Unpriced clouds add to `warnings`.
std::vector<NetworkCharge> ChargeNetwork(const std::vector<Transfer>& transfers,
                                         const EgressTable& egress,
                                         const std::shared_ptr<const std::vector<Holder>>& known,
                                         std::map<int64_t, std::shared_ptr<const Holder>>& holders,
                                         int64_t from_s,
                                         int64_t to_s, std::vector<std::string>& warnings);

inline constexpr int64_t kNetworkHolderBase = -1'000'000;

}  // namespace gpufleet::cost
