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

// The ledger of [from_s, to_s) from the meter and the incident book.
StatusOr<Ledger> LedgerFromStores(Meter& meter, detect::IncidentBook& incidents,
                                  const PriceBook& prices, const LedgerPolicy& policy,
                                  int64_t from_s, int64_t to_s);

// The migrations a cost reader needs (cost + incidents).
std::vector<Migration> CostReaderMigrations();

}  // namespace gpufleet::cost
