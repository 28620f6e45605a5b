// Puts every file of a Timeline on one clock.
//
// (a) Files whose native times are Unix epoch ns (Kineto baseTimeNanoseconds
//     or absolute epoch µs) start from their wall clock.
// (b) Files whose ranks share collectives (same comm + op + seq) are shifted
//     so that matching collective ENDS coincide with the reference file's
//     (median of the differences): blocking collectives finish together on
//     all ranks, while their starts differ by each rank's arrival time.
// (c) With enough matches, a least-squares line of offset against time fits
//     a linear drift, applied as aligned = native + offset + drift_ppm * 1e-6 *
//     (native - clock_anchor_ns), when it explains the spread markedly better.
// What was applied is written into each SourceFile (clock_offset_ns,
// clock_drift_ppm, clock_anchor_ns, alignment). Not thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "trace/timeline.h"

namespace gpufleet::trace {

struct AlignmentOptions {
  bool use_collectives = true;
  bool fit_drift = true;
  size_t min_matches = 1;         // collective matches needed to shift a file
  size_t min_drift_matches = 8;   // matches needed to fit a drift line
  int reference_file = -1;        // -1: the epoch-clock file with the most collectives
};

// Shifts event times in place and re-sorts `t.events` by (start, track).
void AlignClocks(Timeline& t, const AlignmentOptions& options = {});

// One line per file: "path: +12.345 µs (collective ends, 120 matches), drift 1.5 ppm".
std::string FormatAlignment(const Timeline& t);

}  // namespace gpufleet::trace
