// Test helpers of the cost component (not part of its interface).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "cost/meter.h"
#include "cost/price_book.h"

namespace gpufleet::cost {

// A site price book with one negotiated rate for the nodes `match` globs,
// so tests do not depend on catalog prices.
inline PriceBook NegotiatedBook(const std::string& match, double usd_per_gpu_hour) {
  StatusOr<PriceBook> book = PriceBook::Parse("[[node]]\nmatch = \"" + match +
                                                  "\"\npricing = \"negotiated\"\n"
                                                  "usd_per_gpu_hour = " +
                                                  std::to_string(usd_per_gpu_hour) +
                                                  "\nsource = \"test\"\ndate = \"2026-12-01\"\n",
                                              "site.toml");
  EXPECT_TRUE(book.ok()) << book.status().ToString();
  return book.ok() ? *book : PriceBook();
}

// Pod <workload>-0 in namespace ns (container c) of `workload` and `team`.
inline Holder Pod(int64_t id, std::string workload, std::string team) {
  Holder h;
  h.id = id;
  h.pod = workload + "-0";
  h.namespace_ = "ns";
  h.key = "ns/" + h.pod + "/c";
  h.workload = std::move(workload);
  h.team = std::move(team);
  return h;
}

}  // namespace gpufleet::cost
