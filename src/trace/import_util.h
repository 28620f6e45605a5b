// Helpers shared by the trace importers (private to src/trace).
//
// Bad records are counted in SourceFile::skipped and the first kMaxErrors
// reasons are kept in SourceFile::errors, so a file with a million bad lines
// still yields a short, readable report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/strings.h"  // LineReader, SplitCsvLine
#include "trace/timeline.h"

namespace gpufleet::trace {

inline constexpr size_t kMaxErrors = 20;

// Records one skipped record with its reason ("file:line: what").
void NoteSkipped(SourceFile& file, std::string reason);
// Records a message (a vendor WARN line, a format caveat) without counting a skip.
void NoteError(SourceFile& file, std::string message);

// "/a/b/nccl_trace_rank_3" -> "nccl_trace_rank_3".
std::string_view BaseName(std::string_view path);

// Parses "0x1f", "1f" (hex) into a value; nullopt on garbage.
std::optional<uint64_t> ParseHex(std::string_view s);

}  // namespace gpufleet::trace
