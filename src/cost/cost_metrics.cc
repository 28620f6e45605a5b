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

std::vector<DevicePriceRow> PriceDevices(const std::vector<MeteredDevice>& devices,
                                       const PriceBook& prices) {
  std::unordered_map<std::string, int> siblings;
  for (const MeteredDevice& d : devices) {
    if (!d.partition_kind.empty()) siblings[d.gpu_uuid]++;
  }
  std::vector<DevicePriceRow> out;
  for (const MeteredDevice& d : devices) {
    StatusOr<DevicePrice> p = prices.Resolve({d.node, d.cloud, d.region, d.model});
    if (!p.ok()) continue;
    DevicePriceRow pd;
    pd.device = &d;
    pd.fraction = PartitionFraction(d, siblings[d.gpu_uuid]);
    pd.usd_per_hour = p->usd_per_gpu_hour * pd.fraction;
    pd.usd_per_kwh = p->usd_per_kwh;
    pd.labels = Labels{{"node", d.node},     {"gpu_uuid", d.gpu_uuid},
                       {"model", d.model},   {"cloud", d.cloud},
                       {"region", d.region}, {"pricing", std::string(PricingName(p->pricing))}};
    if (!d.partition_id.empty()) pd.labels.Set("partition_id", d.partition_id);
    out.push_back(std::move(pd));
  }
  return out;
}

std::vector<RemoteWriteSeries> DevicePriceSeries(const std::vector<MeteredDevice>& devices,
                                                 const PriceBook& prices, int64_t timestamp_ms) {
  std::vector<RemoteWriteSeries> out;
  for (const DevicePriceRow& pd : PriceDevices(devices, prices)) {
    RemoteWriteSeries s{pd.labels, {{timestamp_ms, pd.usd_per_hour}}};
    s.labels.Set("__name__", "gpufleet_cost_device_usd_per_hour");
    out.push_back(s);
    if (pd.usd_per_kwh <= 0) continue;
    s.labels.Set("__name__", "gpufleet_cost_device_usd_per_kwh");
    s.samples[0].value = pd.usd_per_kwh;
    out.push_back(std::move(s));
  }
  return out;
}

std::string RenderCostMetrics(const std::vector<MeteredDevice>& devices, const PriceBook& prices,
                              const std::map<std::string, double>& tensor_activity) {
  const std::vector<DevicePriceRow> priced = PriceDevices(devices, prices);
  std::string out =
      "# HELP gpufleet_cost_device_usd_per_hour What one metered GPU or partition costs per hour "
      "(site prices or the public catalog; energy excluded).\n"
      "# TYPE gpufleet_cost_device_usd_per_hour gauge\n";
  for (const DevicePriceRow& pd : priced) {
    out += "gpufleet_cost_device_usd_per_hour";
    AppendLabelList(pd.labels.pairs(), out);
    out += " ";
    AppendDouble(pd.usd_per_hour, out);
    out += "\n";
  }
  out +=
      "# HELP gpufleet_cost_device_usd_per_kwh What a kWh of an on-premises device's measured "
      "energy costs (absent in clouds, where energy is in the price).\n"
      "# TYPE gpufleet_cost_device_usd_per_kwh gauge\n";
  for (const DevicePriceRow& pd : priced) {
    if (pd.usd_per_kwh <= 0) continue;
    out += "gpufleet_cost_device_usd_per_kwh";
    AppendLabelList(pd.labels.pairs(), out);
    out += " ";
    AppendDouble(pd.usd_per_kwh, out);
    out += "\n";
  }
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
  for (const DevicePriceRow& pd : priced) {
    const MeteredDevice& d = *pd.device;
    auto act = tensor_activity.find(d.key);
    const GpuModelSpec* spec = HardwareCatalog::Default().Find(d.model);
    if (act == tensor_activity.end() || spec == nullptr || spec->peak_bf16_flops <= 0) continue;
    Group& g = groups[{d.model, d.cloud, d.region}];
    g.usd_per_hour += pd.usd_per_hour;
    g.effective_pflops += spec->peak_bf16_flops / 1e15 * pd.fraction * act->second;
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
