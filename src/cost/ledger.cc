#include "cost/ledger.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <regex>
#include <set>
#include <unordered_map>

#include "cost/shares.h"

namespace gpufleet::cost {
namespace {

constexpr double kMicro = 1e6;
constexpr double kJoulesPerKwh = 3.6e6;
// A holder whose first minute on the device is no earlier than this before
// a contention incident's start is taken as the neighbour that moved in.
constexpr int64_t kArrivalSlackS = 180;

bool IsVictim(const Holder& h, const std::vector<std::string>& workloads) {
  for (const std::string& w : workloads) {
    if (w.empty()) continue;
    if (w == h.workload || w == h.pod || w == h.key || w == h.slurm_job) return true;
  }
  return false;
}

// Lines of one device, summed per (holder, category) while its minutes stream.
class DeviceAccumulator {
 public:
  ChargeLine& At(int64_t holder, Category c) {
    auto [it, inserted] = lines_.try_emplace({holder, static_cast<int>(c)});
    if (inserted) {
      it->second.holder = holder;
      it->second.category = c;
    }
    return it->second;
  }
  std::map<std::pair<int64_t, int>, ChargeLine>& lines() { return lines_; }
  void Clear() { lines_.clear(); }

 private:
  std::map<std::pair<int64_t, int>, ChargeLine> lines_;
};

// Holders by id without a node per holder (a month's report looks up tens of
// thousands): ids in order beside pointers, binary-searched. The meter's list
// is already in id order; any other is sorted here.
class HolderIndex {
 public:
  explicit HolderIndex(const std::vector<Holder>& holders) {
    std::vector<size_t> order(holders.size());
    std::iota(order.begin(), order.end(), size_t{0});
    auto by_id = [&](size_t a, size_t b) { return holders[a].id < holders[b].id; };
    if (!std::is_sorted(order.begin(), order.end(), by_id)) std::stable_sort(order.begin(), order.end(), by_id);
    ids_.reserve(order.size());
    ptrs_.reserve(order.size());
    for (size_t i : order) ids_.push_back(holders[i].id), ptrs_.push_back(&holders[i]);
  }
  // nullptr when absent; *pos (when given) is its place, for side tables of size().
  const Holder* Find(int64_t id, size_t* pos = nullptr) const {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it == ids_.end() || *it != id) return nullptr;
    if (pos != nullptr) *pos = static_cast<size_t>(it - ids_.begin());
    return ptrs_[it - ids_.begin()];
  }

 private:
  std::vector<int64_t> ids_;
  std::vector<const Holder*> ptrs_;
};

}  // namespace

StatusOr<Basis> ParseBasis(std::string_view s) {
  if (s == "allocation") return Basis::kAllocation;
  if (s == "usage") return Basis::kUsage;
  if (s == "usage-mean") return Basis::kUsageMean;
  return InvalidArgumentError("basis must be allocation, usage or usage-mean, got '" +
                              std::string(s) + "'");
}

StatusOr<IdleRule> ParseIdleRule(std::string_view s) {
  if (s == "none") return IdleRule::kNone;
  if (s == "proportional") return IdleRule::kProportional;
  if (s == "owner") return IdleRule::kOwner;
  return InvalidArgumentError("idle rule must be none, proportional or owner, got '" +
                              std::string(s) + "'");
}

StatusOr<ContentionRule> ParseContentionRule(std::string_view s) {
  if (s == "off") return ContentionRule::kOff;
  if (s == "transfer") return ContentionRule::kTransfer;
  if (s == "surcharge") return ContentionRule::kSurcharge;
  return InvalidArgumentError("contention rule must be off, transfer or surcharge, got '" +
                              std::string(s) + "'");
}

std::string_view BasisName(Basis b) {
  switch (b) {
    case Basis::kAllocation:
      return "allocation";
    case Basis::kUsage:
      return "usage";
    case Basis::kUsageMean:
      return "usage-mean";
  }
  return "allocation";
}

std::string_view CategoryName(Category c) {
  switch (c) {
    case Category::kBase:
      return "base";
    case Category::kIdleAllocated:
      return "idle_allocated";
    case Category::kIdleUnallocated:
      return "idle_unallocated";
    case Category::kIdleShare:
      return "idle_share";
    case Category::kContention:
      return "contention";
  }
  return "base";
}

std::vector<int64_t> SplitExact(int64_t total, const std::vector<double>& weights) {
  std::vector<int64_t> out(weights.size(), 0);
  if (weights.empty()) return out;
  double sum = 0;
  for (double w : weights) sum += std::max(0.0, w);
  std::vector<double> w(weights.size());
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = sum > 0 ? std::max(0.0, weights[i]) / sum : 1.0 / static_cast<double>(w.size());
  }
  int64_t given = 0;
  std::vector<std::pair<double, size_t>> rest;
  for (size_t i = 0; i < w.size(); ++i) {
    double exact = static_cast<double>(total) * w[i];
    out[i] = static_cast<int64_t>(std::floor(exact));
    given += out[i];
    rest.push_back({exact - static_cast<double>(out[i]), i});
  }
  std::stable_sort(rest.begin(), rest.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  int64_t left = total - given;
  // Floating error can leave |left| beyond the count of parts; spread it.
  for (size_t k = 0; left != 0; k = (k + 1) % rest.size()) {
    int64_t step = left > 0 ? 1 : -1;
    out[rest[k].second] += step;
    left -= step;
  }
  return out;
}

double PartitionFraction(const MeteredDevice& d, int siblings) {
  if (d.partition_kind.empty()) return 1.0;
  static const std::regex kMig(R"(^(\d)g\.)");
  std::smatch m;
  if (std::regex_search(d.partition_profile, m, kMig)) return std::stoi(m[1]) / 7.0;
  const std::string& p = d.partition_profile;
  if (p == "SPX") return 1.0;
  if (p == "DPX") return 1.0 / 2;
  if (p == "TPX") return 1.0 / 3;
  if (p == "QPX") return 1.0 / 4;
  if (p == "CPX") return 1.0 / 8;
  return 1.0 / std::max(1, siblings);
}

StatusOr<Ledger> ComputeLedger(const std::vector<MeteredDevice>& devices,
                               const std::vector<Holder>& holders, const MinuteScan& scan,
                               const PriceBook& prices,
                               const std::vector<ContentionWindow>& contention,
                               const std::vector<std::pair<std::string, std::string>>& owners,
                               const LedgerPolicy& policy, int64_t from_s, int64_t to_s) {
  return ComputeLedger(devices, std::make_shared<const std::vector<Holder>>(holders), scan, prices,
                       contention, owners, policy, from_s, to_s);
}

StatusOr<Ledger> ComputeLedger(const std::vector<MeteredDevice>& devices,
                               std::shared_ptr<const std::vector<Holder>> holders_ptr,
                               const MinuteScan& scan, const PriceBook& prices,
                               const std::vector<ContentionWindow>& contention,
                               const std::vector<std::pair<std::string, std::string>>& owners,
                               const LedgerPolicy& policy, int64_t from_s, int64_t to_s) {
  const std::vector<Holder>& holders = *holders_ptr;
  Ledger L;
  L.from_s = from_s;
  L.to_s = to_s;
  L.policy = policy;
  std::unordered_map<std::string, int> siblings;
  for (const MeteredDevice& d : devices) {
    L.devices[d.id] = d;
    if (!d.partition_kind.empty()) siblings[d.gpu_uuid]++;
  }
  // The holders by id; L.holders gets those the period charges (a fleet's
  // history may hold far more holders than one period sees).
  const HolderIndex by_id(holders);
  // Holder -> HAMi share (shares.h; <= 0: none), computed when first needed
  // (NaN: not yet).
  std::vector<double> hami(holders.size(), std::nan(""));
  auto hami_share = [&](int64_t id) {
    size_t pos = 0;
    const Holder* h = by_id.Find(id, &pos);
    if (h == nullptr) return 0.0;
    if (std::isnan(hami[pos])) {
      hami[pos] = 0;
      StatusOr<double> share = HamiShare(*h);
      if (!share.ok()) {
        L.warnings.push_back(share.status().message() + " (charged without a share)");
      } else {
        hami[pos] = *share;
      }
    }
    return hami[pos];
  };
  Holder unattributed;
  unattributed.id = kUnattributed;
  unattributed.key = unattributed.team = unattributed.workload = "(unattributed contention)";
  L.holders[kUnattributed] = std::make_shared<const Holder>(std::move(unattributed));

  for (const MeteredDevice& d : devices) {
    DeviceCost& dc = L.device_costs[d.id];
    dc.fraction = PartitionFraction(d, siblings[d.gpu_uuid]);
    StatusOr<DevicePrice> p = prices.Resolve({d.node, d.cloud, d.region, d.model});
    if (p.ok()) {
      dc.price = *p;
    } else {
      dc.error = p.status().message();
    }
  }

  std::unordered_map<std::string, std::vector<const ContentionWindow*>> windows;
  for (const ContentionWindow& w : contention) {
    for (const std::string& dev : w.devices) windows[dev].push_back(&w);
  }
  std::map<std::string, int64_t> owner_ids;
  std::set<int64_t> unpriced_seen;

  DeviceAccumulator acc;
  int64_t current = 0;
  std::unordered_map<int64_t, int64_t> first_seen;  // holder -> first minute on `current`
  auto finalize = [&](int64_t device) {
    if (device == 0) return;
    auto& lines = acc.lines();
    bool share = policy.idle == IdleRule::kProportional;
    int64_t owner = 0;
    if (policy.idle == IdleRule::kOwner) {
      const std::string& node = L.devices[device].node;
      for (const auto& [glob, team] : owners) {
        if (fnmatch(glob.c_str(), node.c_str(), 0) != 0) continue;
        auto [it, inserted] =
            owner_ids.try_emplace(team, kUnattributed - 1 - static_cast<int64_t>(owner_ids.size()));
        if (inserted) {
          Holder h;
          h.id = it->second;
          h.key = "owner:" + team;
          h.team = team;
          h.workload = "(idle, owner " + team + ")";
          L.holders[h.id] = std::make_shared<const Holder>(std::move(h));
        }
        owner = it->second;
        break;
      }
    }
    if (share || owner != 0) {
      int64_t idle = 0;
      double idle_hours = 0;
      std::vector<int64_t> ids;
      std::vector<double> base;
      for (auto it = lines.begin(); it != lines.end();) {
        Category c = it->second.category;
        if (c == Category::kIdleAllocated || c == Category::kIdleUnallocated) {
          idle += it->second.micro_usd;
          idle_hours += it->second.gpu_hours;
          it = lines.erase(it);
          continue;
        }
        if (c == Category::kBase && it->second.micro_usd > 0) {
          ids.push_back(it->second.holder);
          base.push_back(static_cast<double>(it->second.micro_usd));
        }
        ++it;
      }
      if (owner != 0) {
        ids = {owner};
        base = {1};
      }
      if (ids.empty()) {
        // Nobody held the device in the period: its idle stays unallocated.
        ChargeLine& l = acc.At(kNoHolder, Category::kIdleUnallocated);
        l.micro_usd += idle;
        l.gpu_hours += idle_hours;
      } else {
        std::vector<int64_t> parts = SplitExact(idle, base);
        double base_sum = 0;
        for (double b : base) base_sum += b;
        for (size_t i = 0; i < ids.size(); ++i) {
          ChargeLine& l = acc.At(ids[i], Category::kIdleShare);
          l.micro_usd += parts[i];
          l.gpu_hours += idle_hours * base[i] / base_sum;
        }
      }
    }
    for (auto& [k, line] : acc.lines()) {
      line.device = device;
      L.lines.push_back(line);
      if (line.holder > 0 && L.holders.count(line.holder) == 0) {
        // Shares ownership of the whole list, points at this holder.
        if (const Holder* h = by_id.Find(line.holder)) {
          L.holders.emplace(line.holder, std::shared_ptr<const Holder>(holders_ptr, h));
        }
      }
    }
    acc.Clear();
  };

  // Scratch of the minute below, kept between calls (a month is many blocks).
  std::vector<double> w;
  std::vector<int64_t> base_parts, idle_parts, alloc_parts;
  RETURN_IF_ERROR(scan([&](const DeviceMinute& m) {
    if (m.device != current) {
      finalize(current);
      current = m.device;
      first_seen.clear();
    }
    auto dc_it = L.device_costs.find(m.device);
    if (dc_it == L.device_costs.end() || !dc_it->second.error.empty()) {
      if (unpriced_seen.insert(m.device).second) {
        L.warnings.push_back(dc_it == L.device_costs.end()
                                 ? "device id " + std::to_string(m.device) + " is not in the meter"
                                 : dc_it->second.error);
      }
      return;
    }
    if (L.first_minute_s == 0 || m.minute_s < L.first_minute_s) L.first_minute_s = m.minute_s;
    // A block of the hourly rollup counts as `n` minutes alike (meter.h).
    const int64_t n = std::max<int64_t>(1, m.repeat);
    DeviceCost& dc = dc_it->second;
    const double frac = dc.fraction;
    for (const HolderMinute& h : m.holders) first_seen.try_emplace(h.holder, m.minute_s);
    int64_t cost =
        std::llround(kMicro * (dc.price.usd_per_gpu_hour * frac / 60 +
                               std::max(0.0, m.energy_j) * dc.price.usd_per_kwh / kJoulesPerKwh));
    dc.cost_micro += cost * n;
    dc.minutes += n;
    const double gpu_hours = frac / 60;
    if (m.holders.empty()) {
      ChargeLine& l = acc.At(kNoHolder, Category::kIdleUnallocated);
      l.micro_usd += cost * n;
      l.gpu_hours += gpu_hours * static_cast<double>(n);
      return;
    }
    w.assign(m.holders.size(), 1.0);
    bool all_util = true;
    double util_total = 0;
    for (const HolderMinute& h : m.holders) {
      all_util = all_util && h.util_mean >= 0;
      util_total += std::max(0.0, h.util_mean);
    }
    if (all_util && util_total > 0) {
      for (size_t i = 0; i < w.size(); ++i) w[i] = std::max(0.0, m.holders[i].util_mean);
    }
    double held = 1;
    bool sliced = false;
    for (const HolderMinute& h : m.holders) sliced = hami_share(h.holder) > 0 || sliced;
    if (sliced) {
      std::vector<double> shares;
      for (const HolderMinute& h : m.holders) {
        const double s = hami_share(h.holder);
        shares.push_back(s > 0 ? s : -1);
      }
      MinuteSplit split = SplitMinute(shares, w);
      w = std::move(split.weights);
      held = split.held;
      if (held < 1) {  // the part of the GPU no HAMi slice holds
        int64_t held_cost = std::llround(static_cast<double>(cost) * held);
        ChargeLine& l = acc.At(kNoHolder, Category::kIdleUnallocated);
        l.micro_usd += (cost - held_cost) * n;
        l.gpu_hours += gpu_hours * (1 - held) * static_cast<double>(n);
        cost = held_cost;
      }
    }
    double wsum = std::accumulate(w.begin(), w.end(), 0.0);
    double u = 1;
    if (policy.basis == Basis::kUsage && m.util_mean >= 0) u = m.util_mean;
    if (policy.basis == Basis::kUsageMean && m.util_mean >= 0) {
      u = m.bw_mean >= 0 ? (m.util_mean + m.bw_mean) / 2 : m.util_mean;
    }
    u = std::clamp(u, 0.0, 1.0);
    int64_t base = policy.basis == Basis::kAllocation ? cost : std::llround(cost * u);
    if (w.size() == 1) {  // what SplitExact gives one part, without its work
      base_parts.assign(1, base);
      idle_parts.assign(1, cost - base);
      alloc_parts.assign(1, cost);
    } else {
      base_parts = SplitExact(base, w);
      idle_parts = SplitExact(cost - base, w);
      alloc_parts = SplitExact(cost, w);
    }
    for (size_t i = 0; i < m.holders.size(); ++i) {
      ChargeLine& b = acc.At(m.holders[i].holder, Category::kBase);
      b.micro_usd += base_parts[i] * n;
      b.allocation_micro += alloc_parts[i] * n;
      b.gpu_hours += gpu_hours * held * w[i] / wsum * static_cast<double>(n);
      if (idle_parts[i] != 0)
        acc.At(m.holders[i].holder, Category::kIdleAllocated).micro_usd += idle_parts[i] * n;
    }
    // Blocks come only where no contention window covers their hour.
    if (policy.contention == ContentionRule::kOff || n > 1) return;
    const MeteredDevice& dev = L.devices[m.device];
    for (const std::string* key : {&dev.key, &dev.gpu_uuid}) {
      auto wit = windows.find(*key);
      if (wit == windows.end() || key->empty()) continue;
      for (const ContentionWindow* cw : wit->second) {
        if (m.minute_s + 60 <= cw->start_s || m.minute_s >= cw->end_s || cw->slowdown <= 0) {
          continue;
        }
        std::vector<size_t> victims, neighbours;
        for (size_t i = 0; i < m.holders.size(); ++i) {
          const Holder* h = by_id.Find(m.holders[i].holder);
          bool v = h != nullptr && IsVictim(*h, cw->workloads);
          (v ? victims : neighbours).push_back(i);
        }
        if (victims.empty() || neighbours.empty()) {
          // The incident names every holder (or none): the neighbour is the
          // holder that arrived when the contention began.
          victims.clear();
          neighbours.clear();
          int64_t earliest = std::numeric_limits<int64_t>::max();
          for (const HolderMinute& h : m.holders)
            earliest = std::min(earliest, first_seen[h.holder]);
          for (size_t i = 0; i < m.holders.size(); ++i) {
            int64_t first = first_seen[m.holders[i].holder];
            bool arrived = first > earliest && first >= cw->start_s - kArrivalSlackS;
            (arrived ? neighbours : victims).push_back(i);
          }
          if (victims.empty()) {
            victims.swap(neighbours);
            neighbours.clear();
          }
        }
        double s = std::min(cw->slowdown, 1.0);
        for (size_t vi : victims) {
          int64_t loss = policy.contention == ContentionRule::kTransfer
                             ? std::llround(static_cast<double>(base_parts[vi]) * s)
                             : std::llround(kMicro * policy.surcharge_usd_per_10pct_gpu_hour *
                                            (s / 0.10) * gpu_hours * held * w[vi] / wsum);
          loss = std::clamp<int64_t>(loss, 0, std::max<int64_t>(0, base_parts[vi]));
          if (loss == 0) continue;
          ChargeLine& credit = acc.At(m.holders[vi].holder, Category::kContention);
          credit.micro_usd -= loss;
          L.credits_by_kind[{m.device, m.holders[vi].holder, cw->kind}] += loss;
          credit.lost_gpu_hours += gpu_hours * held * w[vi] / wsum * s;
          if (neighbours.empty()) {
            acc.At(kUnattributed, Category::kContention).micro_usd += loss;
            continue;
          }
          std::vector<double> nw;
          for (size_t ni : neighbours) nw.push_back(std::max(1e-9, w[ni]));
          std::vector<int64_t> parts = SplitExact(loss, nw);
          for (size_t k = 0; k < neighbours.size(); ++k) {
            acc.At(m.holders[neighbours[k]].holder, Category::kContention).micro_usd += parts[k];
          }
        }
      }
      break;  // one key per device: the DeviceKey match wins over the uuid
    }
  }));
  finalize(current);
  L.network = ChargeNetwork(prices.transfers(), prices.egress(), holders_ptr, L.holders, from_s,
                            to_s, L.warnings);
  return L;
}

}  // namespace gpufleet::cost
