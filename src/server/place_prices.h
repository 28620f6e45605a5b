// Prices for placement by objective (place/objective_choice.h) from the cost
// component's price book: a node is priced as the device it would hold
// (node name, cloud, region, GPU model as a hardware-catalog key), so site
// overrides (negotiated, committed, on-premises rates) apply as in the cost
// ledger. A node the price book cannot price falls back to the inventory's
// own price_usd_per_gpu_hour when it has one (source "inventory"); otherwise
// the lookup fails with the price book's reason.
//
// Thread safety: the returned function only reads the shared, immutable book.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cost/price_book.h"
#include "place/objective_choice.h"

namespace gpufleet {

place::PriceLookup PriceBookLookup(std::shared_ptr<const cost::PriceBook> book);

// Prices per GPU-hour of Gavel's worker types (`sim gavel`) in one cloud and
// region from the price book (site rules, then the public catalog's offer of
// that part there). A worker the book cannot price keeps its `fallback`
// price (the --prices flag); `sources` says, per worker, where each came from.
struct GavelWorkerPrices {
  std::vector<double> usd_per_gpu_hour;
  std::vector<std::string> sources;
};
GavelWorkerPrices PriceGavelWorkers(const cost::PriceBook& book,
                                    const std::vector<std::string>& workers,
                                    const std::string& cloud, const std::string& region,
                                    const std::vector<double>& fallback);

}  // namespace gpufleet
