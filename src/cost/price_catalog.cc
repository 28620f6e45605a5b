#include "cost/price_catalog.h"

#include <algorithm>
#include <cstdio>

#include "core/embedded.h"
#include "core/toml_reader.h"

namespace gpufleet::cost {
namespace {

std::string Money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.4g", usd);
  return buf;
}

Status ParseOffer(const TomlReader& r, const HardwareCatalog& hardware, CloudOffer& o) {
  RETURN_IF_ERROR(r.CheckKeys({"cloud", "region", "instance_type", "gpu", "gpu_count", "vcpus",
                               "memory_gib", "scope", "on_demand", "spot", "zones", "source"}));
  RETURN_IF_ERROR(r.Require("cloud", o.cloud));
  RETURN_IF_ERROR(r.Require("region", o.region));
  RETURN_IF_ERROR(r.Require("instance_type", o.instance_type));
  RETURN_IF_ERROR(r.Require("gpu", o.gpu));
  if (hardware.Find(o.gpu) == nullptr) {
    return r.FieldError(*r.Get("gpu"), "gpu",
                        "unknown GPU model '" + o.gpu + "' (not a key of data/hardware.toml)");
  }
  RETURN_IF_ERROR(r.Require("gpu_count", o.gpu_count, 1e-3, 1e4));
  RETURN_IF_ERROR(r.Read("vcpus", o.vcpus, 0.0, 1e5));
  RETURN_IF_ERROR(r.Read("memory_gib", o.memory_gib, 0.0, 1e7));
  std::string scope;
  RETURN_IF_ERROR(r.Require("scope", scope));
  if (scope != "instance" && scope != "accelerator") {
    return r.FieldError(*r.Get("scope"), "scope", "must be \"instance\" or \"accelerator\"");
  }
  o.accelerator_only = scope == "accelerator";
  double v = 0;
  if (r.Has("on_demand")) {
    RETURN_IF_ERROR(r.Read("on_demand", v, 0.0, 1e5));
    o.on_demand_usd_per_hour = v;
  }
  if (r.Has("spot")) {
    RETURN_IF_ERROR(r.Read("spot", v, 0.0, 1e5));
    o.spot_usd_per_hour = v;
  }
  if (!o.on_demand_usd_per_hour && !o.spot_usd_per_hour) {
    return r.Error(r.table(), "offer has neither on_demand nor spot");
  }
  int64_t zones = 0;
  RETURN_IF_ERROR(r.Read("zones", zones, 0, 1000));
  o.zones = static_cast<int>(zones);
  RETURN_IF_ERROR(r.Read("source", o.source));
  o.where = TomlPlace(r.origin(), r.table());
  return OkStatus();
}

}  // namespace

StatusOr<PriceCatalog> PriceCatalog::Parse(std::string_view toml, std::string_view origin,
                                           const HardwareCatalog& hardware) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(toml, origin));
  TomlReader r(root, origin);
  RETURN_IF_ERROR(r.CheckKeys({"snapshot", "offer"}));
  PriceCatalog c;
  RETURN_IF_ERROR(r.Require("snapshot", c.snapshot_));
  RETURN_IF_ERROR(r.ForEachTable("offer", [&](const TomlReader& o) -> Status {
    CloudOffer offer;
    RETURN_IF_ERROR(ParseOffer(o, hardware, offer));
    c.offers_.push_back(std::move(offer));
    return OkStatus();
  }));
  return c;
}

const PriceCatalog& PriceCatalog::Default() {
  static const PriceCatalog* catalog = [] {
    std::optional<std::string_view> text = FindEmbeddedFile("prices/cloud_gpu_prices.toml");
    GPUFLEET_CHECK(text.has_value());
    StatusOr<PriceCatalog> c = Parse(*text, "cloud_gpu_prices.toml", HardwareCatalog::Default());
    GPUFLEET_CHECK(c.ok());
    return new PriceCatalog(std::move(*c));
  }();
  return *catalog;
}

std::vector<const CloudOffer*> PriceCatalog::Find(std::string_view cloud, std::string_view region,
                                                  std::string_view gpu,
                                                  std::string_view instance_type) const {
  std::vector<const CloudOffer*> out;
  for (const CloudOffer& o : offers_) {
    if (o.cloud != cloud || o.region != region || o.gpu != gpu) continue;
    if (!instance_type.empty() && o.instance_type != instance_type) continue;
    out.push_back(&o);
  }
  std::stable_sort(out.begin(), out.end(), [](const CloudOffer* a, const CloudOffer* b) {
    return a->gpu_count > b->gpu_count;
  });
  return out;
}

StatusOr<GpuHourPrice> PriceCatalog::PerGpuHour(const CloudOffer& o, bool spot,
                                                const HostSplitRates& rates) {
  const std::optional<double>& p = spot ? o.spot_usd_per_hour : o.on_demand_usd_per_hour;
  if (!p.has_value()) {
    return NotFoundError(o.where + ": " + o.instance_type + " in " + o.region + " has no " +
                         (spot ? "spot" : "on-demand") + " price");
  }
  GpuHourPrice out;
  double gpu_part = *p;
  std::string how = o.instance_type + (spot ? " spot " : " on-demand ") + Money(*p) + "/h";
  if (o.accelerator_only) {
    how += " (accelerators only)";
  } else if (!rates.enabled) {
    how += " (host included)";
  } else {
    double host = o.vcpus * (spot ? rates.spot_usd_per_vcpu_hour : rates.usd_per_vcpu_hour) +
                  o.memory_gib * (spot ? rates.spot_usd_per_gib_hour : rates.usd_per_gib_hour);
    if (*p - host >= 0.5 * *p) {
      gpu_part = *p - host;
      how += " less host " + Money(host) + "/h";
    } else {
      how += " (host split not applied: it would leave the GPUs under half)";
    }
  }
  out.usd_per_gpu_hour = gpu_part / o.gpu_count;
  char buf[64];
  std::snprintf(buf, sizeof buf, " / %g GPUs", o.gpu_count);
  out.basis = how + buf + " [" + o.source + "]";
  return out;
}

}  // namespace gpufleet::cost
