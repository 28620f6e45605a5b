// Reading a ledger out of the server's state database: the meter's rows,
// the contention incidents that overlap the period, and the price book.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "cost/ledger.h"
#include "detect/incident_book.h"
#include "store/state_db.h"

namespace gpufleet::cost {

// Contention incidents (memory, latency-bound and sustained contention)
// overlapping [from_s, to_s), as ledger windows.
std::vector<ContentionWindow> ContentionWindows(const std::vector<detect::IncidentRecord>& all,
                                                int64_t from_s, int64_t to_s);

// Which rollup a ledger reads: the per-minute truth, or whole hours from the
// hourly rollup (meter.h) with minutes at the ragged edges and in hours that
// are not one block (basis other than allocation, on-premises energy,
// contention, holders changing or weighted). Both give the same charges to
// the micro-dollar (tested on random fleets and periods).
enum class Rollup { kMinutes, kHours };

// The ledger of [from_s, to_s) from the meter; with kHours, hours ending at or
// before `cache_before_s` may come from the hourly rollup.
StatusOr<Ledger> LedgerFromMeter(Meter& meter, const std::vector<ContentionWindow>& contention,
                                 const PriceBook& prices, const LedgerPolicy& policy,
                                 int64_t from_s, int64_t to_s, Rollup rollup,
                                 int64_t cache_before_s);

// The ledger of [from_s, to_s) from the meter and the incident book, from the
// hourly rollup for hours closed two minutes ago by the wall clock.
StatusOr<Ledger> LedgerFromStores(Meter& meter, detect::IncidentBook& incidents,
                                  const PriceBook& prices, const LedgerPolicy& policy,
                                  int64_t from_s, int64_t to_s);

// The migrations a cost reader needs (cost + incidents).
std::vector<Migration> CostReaderMigrations();

}  // namespace gpufleet::cost
