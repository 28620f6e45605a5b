// Ledger: charges for a period from the meter's device-minutes, the price
// book and the contention incidents.
//
// Per device-minute (money in integer micro-dollars, so sums are exact):
//   cost   = price per GPU-hour x partition fraction / 60
//            (+ measured energy x $/kWh on premises)
//   base   = cost                      basis "allocation" (OpenCost-like)
//          = cost x u                  basis "usage": u = utilization, or for
//                                      "usage-mean" the field's (utilization +
//                                      memory-bandwidth utilization) / 2; a
//                                      minute without a reading counts u = 1
//   base is split among the minute's holders by their own utilization when
//   every holder reports one (time-slicing, MPS), else equally, or by HAMi
//   slices (cost/shares.h: a 25% slice pays 25%); the rest of
//   the cost is idle: allocated-but-idle (split the same way, on the
//   holders' lines) or unallocated (no holder in the minute).
//   contention: for each minute a contention incident covers the device,
//   each victim is credited min(base, its loss) and the loss is charged to
//   the neighbours, or to "(unattributed contention)" when there is none.
//   Victims are the incident's workloads on the device and neighbours the
//   other holders; when the incident names all holders or none, holders
//   that appeared on the device after the others, within 3 minutes before
//   the incident's start or later, are the neighbours that moved in and
//   the others the victims (the period's first minute bounds what is seen);
//   loss = base x
//   slowdown ("transfer") or $rate per 10% slowdown per GPU-hour
//   ("surcharge", default $0.20). Credits and charges cancel.
// Idle rules, per device over the period: "none" keeps idle lines;
// "proportional" hands the device's idle to its holders in proportion to
// their base (OpenCost's shareIdle, per device); "owner" hands it to the
// node's owner team from the site file's [owners].
//
// Reconciliation (tested on random fleets): for every device, the sum of its
// lines equals its cost, to the micro-dollar. Network charges (the site's
// [[transfer]]s in the period, network.h) come on top, outside the lines.
//
// Partitions: MIG "Ng.*" profiles are N/7 of the GPU, AMD XCP modes SPX /
// DPX / TPX / QPX / CPX 1, 1/2, 1/3, 1/4, 1/8; other partitions 1/k where k
// is the number of partitions of that GPU the meter has seen.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/status.h"
#include "cost/meter.h"
#include "cost/network.h"
#include "cost/price_book.h"

namespace gpufleet::cost {

enum class Basis { kAllocation, kUsage, kUsageMean };
enum class IdleRule { kNone, kProportional, kOwner };
enum class ContentionRule { kOff, kTransfer, kSurcharge };

StatusOr<Basis> ParseBasis(std::string_view s);
StatusOr<IdleRule> ParseIdleRule(std::string_view s);
StatusOr<ContentionRule> ParseContentionRule(std::string_view s);
std::string_view BasisName(Basis b);

struct LedgerPolicy {
  Basis basis = Basis::kAllocation;
  IdleRule idle = IdleRule::kNone;
  ContentionRule contention = ContentionRule::kTransfer;
  double surcharge_usd_per_10pct_gpu_hour = 0.20;
};

enum class Category { kBase, kIdleAllocated, kIdleUnallocated, kIdleShare, kContention };
std::string_view CategoryName(Category c);

// Holder ids: > 0 meter holders; kUnattributed; owners get ids below it.
inline constexpr int64_t kNoHolder = 0;
inline constexpr int64_t kUnattributed = -1;

struct ChargeLine {
  int64_t device = 0;
  int64_t holder = kNoHolder;
  Category category = Category::kBase;
  int64_t micro_usd = 0;         // contention lines may be negative (credits)
  double gpu_hours = 0;          // base: held GPU time; idle lines: unheld GPU time they carry
  int64_t allocation_micro = 0;  // base lines: what the allocation basis would charge
  double lost_gpu_hours = 0;     // contention credits: GPU time lost to slowdown
};

struct DeviceCost {
  int64_t cost_micro = 0;
  int64_t minutes = 0;
  double fraction = 1;
  DevicePrice price;
  std::string error;  // why it could not be priced ("" when priced)
};

// A contention incident as the ledger needs it.
struct ContentionWindow {
  int64_t incident_id = 0;
  std::vector<std::string> devices;    // detect::DeviceKey or gpu uuid
  std::vector<std::string> workloads;  // victims: workload / pod names
  int64_t start_s = 0, end_s = 0;
  double slowdown = 0;  // 0-1
  std::string cause;
  std::string kind;  // the incident's kind (memory_contention, ...); "" when not known
};

struct Ledger {
  int64_t from_s = 0, to_s = 0;
  int64_t first_minute_s = 0;  // the first metered minute in the period (0: none)
  LedgerPolicy policy;
  std::vector<ChargeLine> lines;
  std::map<int64_t, MeteredDevice> devices;
  std::map<int64_t, DeviceCost> device_costs;
  // The holders the lines name, incl. synthetic ones (unattributed, owners,
  // network). Each pointer owns what it points to (a meter holder shares the
  // meter's list: a period of a long history copies none of it).
  std::map<int64_t, std::shared_ptr<const Holder>> holders;
  // The contention credits of each victim line by the kind of incident that
  // caused them: (device, holder, kind) -> micro-USD credited (positive).
  std::map<std::tuple<int64_t, int64_t, std::string>, int64_t> credits_by_kind;
  // Transfers charged on top of the devices' cost (network.h).
  std::vector<NetworkCharge> network;
  std::vector<std::string> warnings;  // unpriced devices, unknown owners...
  bool partial() const { return !warnings.empty(); }
};

using MinuteScan = std::function<Status(const std::function<void(const DeviceMinute&)>&)>;

// `owners`: node glob -> team for IdleRule::kOwner (first match wins).
StatusOr<Ledger> ComputeLedger(const std::vector<MeteredDevice>& devices,
                               std::shared_ptr<const std::vector<Holder>> holders,
                               const MinuteScan& scan, const PriceBook& prices,
                               const std::vector<ContentionWindow>& contention,
                               const std::vector<std::pair<std::string, std::string>>& owners,
                               const LedgerPolicy& policy, int64_t from_s, int64_t to_s);
// The same over a copy of `holders` (small fleets, tests).
StatusOr<Ledger> ComputeLedger(const std::vector<MeteredDevice>& devices,
                               const std::vector<Holder>& holders, const MinuteScan& scan,
                               const PriceBook& prices,
                               const std::vector<ContentionWindow>& contention,
                               const std::vector<std::pair<std::string, std::string>>& owners,
                               const LedgerPolicy& policy, int64_t from_s, int64_t to_s);

// Splits `total` in proportion to `weights` (largest remainder): the parts
// sum to `total` exactly. Equal parts when every weight is 0.
std::vector<int64_t> SplitExact(int64_t total, const std::vector<double>& weights);

// The share of a physical GPU one partition is (see above); `siblings` is
// the number of partitions of that GPU seen.
double PartitionFraction(const MeteredDevice& d, int siblings);

}  // namespace gpufleet::cost
