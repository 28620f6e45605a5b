#include "server/place_prices.h"

#include <cstdio>

namespace gpufleet {

place::PriceLookup PriceBookLookup(std::shared_ptr<const cost::PriceBook> book) {
  return [book](const place::NodeSpec& node) -> StatusOr<place::GpuHourQuote> {
    const GpuModelSpec* spec = place::ResolveGpuModel(node.gpu_model);
    cost::PricedDevice dev{node.name, node.cloud, node.region,
                           spec != nullptr ? spec->key : node.gpu_model};
    StatusOr<cost::DevicePrice> p = book->Resolve(dev);
    if (p.ok() && p->usd_per_gpu_hour > 0) {
      return place::GpuHourQuote{p->usd_per_gpu_hour, p->source, p->date,
                                 std::string(cost::PricingName(p->pricing)) + ": " + p->basis};
    }
    if (node.price_usd_per_gpu_hour > 0) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "$%.2f per GPU-hour", node.price_usd_per_gpu_hour);
      return place::GpuHourQuote{
          node.price_usd_per_gpu_hour, "inventory price_usd_per_gpu_hour", "",
          std::string(buf) + " from the inventory; the price book: " +
              (p.ok() ? "no fixed price (on-premises energy only)" : p.status().message())};
    }
    if (!p.ok()) return p.status();
    return NotFoundError("node " + node.name + ": the price book has no fixed price per GPU-hour");
  };
}

GavelWorkerPrices PriceGavelWorkers(const cost::PriceBook& book,
                                    const std::vector<std::string>& workers,
                                    const std::string& cloud, const std::string& region,
                                    const std::vector<double>& fallback) {
  GavelWorkerPrices out;
  for (size_t w = 0; w < workers.size(); ++w) {
    const std::string key = place::GavelWorkerCatalogKey(workers[w]);
    StatusOr<cost::DevicePrice> p = book.Resolve({"gavel-" + workers[w], cloud, region, key});
    if (p.ok() && p->usd_per_gpu_hour > 0) {
      out.usd_per_gpu_hour.push_back(p->usd_per_gpu_hour);
      out.sources.push_back(p->source + (p->date.empty() ? "" : ", " + p->date));
      continue;
    }
    const double f = w < fallback.size() ? fallback[w] : 0;
    out.usd_per_gpu_hour.push_back(f);
    out.sources.push_back("--prices (" + key + " in " + cloud + "/" + region + ": " +
                          (p.ok() ? "no fixed price" : p.status().message()) + ")");
  }
  return out;
}

}  // namespace gpufleet
