#include "cost/cost_metrics.h"

#include <tuple>
#include <unordered_map>

#include "core/labels.h"
#include "core/strings.h"
#include "cost/ledger.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::cost {
namespace {

struct Group {
  double usd_per_hour = 0;
  double effective_pflops = 0;
};

}  // namespace

std::string RenderCostMetrics(const std::vector<MeteredDevice>& devices, const PriceBook& prices,
                              const std::map<std::string, double>& tensor_activity) {
  std::unordered_map<std::string, int> siblings;
  for (const MeteredDevice& d : devices) {
    if (!d.partition_kind.empty()) siblings[d.gpu_uuid]++;
  }
  std::string out =
      "# HELP gpufleet_cost_device_usd_per_hour What one metered GPU or partition costs per hour "
      "(site prices or the public catalog; energy excluded).\n"
      "# TYPE gpufleet_cost_device_usd_per_hour gauge\n";
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
  for (const MeteredDevice& d : devices) {
    StatusOr<DevicePrice> p = prices.Resolve({d.node, d.cloud, d.region, d.model});
    if (!p.ok()) continue;
    const double usd = p->usd_per_gpu_hour * PartitionFraction(d, siblings[d.gpu_uuid]);
    Labels labels{{"node", d.node},     {"gpu_uuid", d.gpu_uuid},
                  {"model", d.model},   {"cloud", d.cloud},
                  {"region", d.region}, {"pricing", std::string(PricingName(p->pricing))}};
    if (!d.partition_id.empty()) labels.Set("partition_id", d.partition_id);
    out += "gpufleet_cost_device_usd_per_hour";
    AppendLabelList(labels.pairs(), out);
    out += " ";
    AppendDouble(usd, out);
    out += "\n";
    auto act = tensor_activity.find(d.key);
    const GpuModelSpec* spec = HardwareCatalog::Default().Find(d.model);
    if (act == tensor_activity.end() || spec == nullptr || spec->peak_bf16_flops <= 0) continue;
    Group& g = groups[{d.model, d.cloud, d.region}];
    g.usd_per_hour += usd;
    g.effective_pflops +=
        spec->peak_bf16_flops / 1e15 * PartitionFraction(d, siblings[d.gpu_uuid]) * act->second;
  }
  out +=
      "# HELP gpufleet_cost_usd_per_effective_pflop_hour Price over delivered compute: the "
      "devices' prices / (peak dense bf16 PFLOP/s x measured tensor activity), per model, cloud "
      "and region.\n"
      "# TYPE gpufleet_cost_usd_per_effective_pflop_hour gauge\n";
  for (const auto& [key, g] : groups) {
    if (g.effective_pflops <= 0) continue;
    const auto& [model, cloud, region] = key;
    out += "gpufleet_cost_usd_per_effective_pflop_hour";
    AppendLabelList(Labels{{"model", model}, {"cloud", cloud}, {"region", region}}.pairs(), out);
    out += " ";
    AppendDouble(g.usd_per_hour / g.effective_pflops, out);
    out += "\n";
  }
  return out;
}

}  // namespace gpufleet::cost
