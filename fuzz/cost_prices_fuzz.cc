// Fuzzes the cost ledger's input parsers: the site price book
// (PriceBook::Parse), the price catalog format (PriceCatalog::Parse) and
// the time arguments of `cost report` / GET /api/v1/cost (ParseTimeArg).
// Properties: no crash; every rule of a parsed book has a source; a parsed
// book resolves a device without crashing (error or a finite,
// non-negative price).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cost/cost_report.h"
#include "cost/price_book.h"

namespace {

void Require(bool cond) {
  if (!cond) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  using namespace gpufleet::cost;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<PriceBook> book = PriceBook::Parse(text, "fuzz.toml");
  if (book.ok()) {
    for (const NodeRule& r : book->rules()) Require(!r.source.empty());
    for (const char* node : {"aws-h100-0", "onprem-1", "x"}) {
      StatusOr<DevicePrice> p = book->Resolve({node, "aws", "us-east-1", "h100-sxm"});
      if (p.ok()) Require(std::isfinite(p->usd_per_gpu_hour) && p->usd_per_gpu_hour >= 0);
    }
  }
  StatusOr<PriceCatalog> catalog =
      PriceCatalog::Parse(text, "fuzz.toml", HardwareCatalog::Default());
  if (catalog.ok()) {
    for (const CloudOffer& o : catalog->offers()) {
      StatusOr<GpuHourPrice> p = PriceCatalog::PerGpuHour(o, false, HostSplitRates());
      if (p.ok()) Require(std::isfinite(p->usd_per_gpu_hour));
    }
  }
  if (size <= 40) (void)ParseTimeArg(text, 1'800'000'000);
  return 0;
}
