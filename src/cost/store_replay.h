// Recomputing the ledger's rollup from a long-term store, so a ledger
// outlives the server's state database: the metered series of a period are
// read back from a Prometheus-compatible query API (Prometheus,
// VictoriaMetrics, Mimir, Thanos) and metered again, in a fresh Meter,
// exactly as the server metered them when it ingested them.
//
// Raw samples, not resampled points: each chunk is one instant query of a
// range selector, {__name__="gpu_up"}[3600s] at the chunk's end, which every
// such engine answers with the samples it stored. Chunks run in time order,
// so the meter's per-series cursors see what they saw at ingest.
//
// What the store cannot give back: the energy delta between the last sample
// before `from_s` and the first one after it (the ledger at ingest had it),
// and contention incidents, which live in the server's state database only
// (the caller passes them to the ledger separately).
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "cost/meter.h"
#include "net/http_client.h"

namespace gpufleet::cost {

struct StoreReplayStats {
  int64_t queries = 0;
  int64_t series = 0;   // series answers, summed over chunks
  int64_t samples = 0;  // samples handed to the meter
};

// Meters the samples of [from_s, to_s) that `base_url` (e.g.
// "http://127.0.0.1:8428", a path prefix allowed) holds for the metered
// series. Errors name the query that failed and the engine's message.
StatusOr<StoreReplayStats> ReplayFromStore(HttpClient& client, const std::string& base_url,
                                           int64_t from_s, int64_t to_s, Meter& meter,
                                           int64_t chunk_s = 3600);

}  // namespace gpufleet::cost
