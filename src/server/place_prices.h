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

#include "cost/price_book.h"
#include "place/objective_choice.h"

namespace gpufleet {

place::PriceLookup PriceBookLookup(std::shared_ptr<const cost::PriceBook> book);

}  // namespace gpufleet
