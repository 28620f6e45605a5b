// Kineto / Chrome trace JSON importer (PyTorch profiler output, NVIDIA, ROCm
// and legacy flavours, plain or gzip). A typical event it reads:
//   {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(...)",
//    "pid": 0, "tid": 40, "ts": 4458677009853.422, "dur": 2636.669,
//    "args": {"stream": 40, "correlation": 60047, "Collective name": "allreduce", ...}}
//
// Speed and memory: the decompressed document is held once; the traceEvents
// array is cut into ~2 MB runs of whole elements which simdjson on-demand
// parses one at a time, so the structural index never covers the whole file.
// A run that fails to parse is retried with a later cut (the candidate cut
// sat inside an element); a document that ends inside the array keeps every
// complete element before the cut and is marked partial; a damaged element
// in the middle is skipped (the import goes on at the next element) and the
// file is marked partial.
#include "trace/kineto_json_importer.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/importer.h"
#include "trace/kineto_event_reader.h"
#include "trace/kineto_file_state.h"
#include "trace/trace_file_reader.h"

namespace gpufleet::trace {
namespace {

namespace od = simdjson::ondemand;
using kineto::Staged;

constexpr size_t kChunkBytes = 512u << 10;
constexpr int kMaxCutRetries = 32;
constexpr int kMaxResyncs = 16;  // damaged elements skipped per file before giving up

bool IsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t SkipWs(std::string_view s, size_t i) {
  while (i < s.size() && IsWs(s[i])) ++i;
  return i;
}

// Next '}' at or after `from` that is followed by optional whitespace and
// `sep`; returns the index of `sep` (or npos).
size_t FindCloseThen(std::string_view s, size_t from, char sep) {
  while (from < s.size()) {
    const void* p = std::memchr(s.data() + from, '}', s.size() - from);
    if (p == nullptr) return std::string_view::npos;
    size_t i = static_cast<const char*>(p) - s.data();
    size_t j = SkipWs(s, i + 1);
    if (j < s.size() && s[j] == sep) return j;
    from = i + 1;
  }
  return std::string_view::npos;
}

// The next element boundary at or after `from`: a '}' followed by a ','
// and the '{' of another object. Returns the index of the ','.
size_t FindElementBoundary(std::string_view s, size_t from) {
  while (true) {
    size_t comma = FindCloseThen(s, from, ',');
    if (comma == std::string_view::npos) return comma;
    size_t next = SkipWs(s, comma + 1);
    if (next < s.size() && s[next] == '{') return comma;
    from = comma + 1;
  }
}

// Last '}' before `before` (and not before `floor`) followed by whitespace
// and `sep`. Returns the index of the '}'.
size_t RFindCloseThen(std::string_view s, size_t before, size_t floor, char sep) {
  while (before > floor) {
    size_t i = s.rfind('}', before - 1);
    if (i == std::string_view::npos || i < floor) return std::string_view::npos;
    size_t j = SkipWs(s, i + 1);
    if (j < s.size() && s[j] == sep) return i;
    before = i;
  }
  return std::string_view::npos;
}

size_t LineOf(std::string_view s, size_t offset) {
  offset = std::min(offset, s.size());
  return 1 + static_cast<size_t>(std::count(s.begin(), s.begin() + offset, '\n'));
}

class KinetoJsonImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "kineto_json"; }

  bool Sniff(std::string_view /*path*/, std::string_view head) const override {
    size_t i = 0;
    if (head.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
    i = SkipWs(head, i);
    if (i >= head.size()) return false;
    if (head[i] == '{') {
      for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"",
                                   "\"displayTimeUnit\"", "\"distributedInfo\""}) {
        if (head.find(key) != std::string_view::npos) return true;
      }
      return false;
    }
    if (head[i] == '[') {
      size_t j = SkipWs(head, i + 1);
      return j < head.size() && head[j] == '{' && head.find("\"ph\"") != std::string_view::npos;
    }
    return false;
  }

  Status Import(const std::string& path, TimelineBuilder& builder,
                ImportProgress* progress) override;
};

// Parses one run "[elem, elem, ...]" into `out`. On failure returns the
// simdjson error and the offset inside `doc` where it was noticed.
simdjson::error_code ParseRun(od::parser& parser, std::string& scratch, std::string_view elems,
                              kineto::EventReader& reader, std::vector<Staged>& out,
                              size_t* error_offset) {
  out.clear();
  scratch.clear();
  scratch.reserve(elems.size() + 2 + simdjson::SIMDJSON_PADDING);
  scratch.push_back('[');
  scratch.append(elems);
  scratch.push_back(']');
  *error_offset = 0;
  od::document doc;
  auto err = parser.iterate(simdjson::padded_string_view(scratch.data(), scratch.size(),
                                                         scratch.capacity()))
                 .get(doc);
  if (err) return err;
  od::array arr;
  if ((err = doc.get_array().get(arr))) return err;
  for (auto elem : arr) {
    od::value v;
    if ((err = std::move(elem).get(v))) break;
    Staged s;
    err = reader.Read(v, s);
    if (err) break;
    out.push_back(s);
  }
  const char* rest = nullptr;
  if (!err && !doc.current_location().get(rest)) err = simdjson::TRAILING_CONTENT;
  if (err) {
    const char* loc = nullptr;
    if (!doc.current_location().get(loc) && loc >= scratch.data() &&
        loc <= scratch.data() + scratch.size()) {
      *error_offset = static_cast<size_t>(loc - scratch.data());
      if (*error_offset > 0) --*error_offset;  // the '[' we prepended
    }
  }
  return err;
}

Status KinetoJsonImporter::Import(const std::string& path, TimelineBuilder& builder,
                                  ImportProgress* progress) {
  ASSIGN_OR_RETURN(TraceBytes bytes, ReadTraceFile(path));
  return kineto::ImportKinetoJsonBytes(path, bytes, builder, progress);
}

}  // namespace

Status kineto::ImportKinetoJsonBytes(const std::string& path, const TraceBytes& bytes,
                                     TimelineBuilder& builder, ImportProgress* progress) {
  std::string_view data = bytes.view();

  SourceFile file;
  file.path = path;
  file.format = "kineto_json";
  if (bytes.partial) {
    file.partial = true;
    file.errors.push_back(path + ": " + bytes.error);
  }

  // Locate the traceEvents array (or a bare top-level array).
  size_t i = SkipWs(data, data.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0);
  if (i >= data.size()) return InvalidArgumentError(path + ": empty file");
  size_t array_open = std::string_view::npos;  // index of '['
  if (data[i] == '[') {
    array_open = i;
  } else if (data[i] == '{') {
    size_t k = data.find("\"traceEvents\"");
    if (k != std::string_view::npos) {
      size_t c = SkipWs(data, k + 13);
      if (c < data.size() && data[c] == ':') {
        size_t b = SkipWs(data, c + 1);
        if (b < data.size() && data[b] == '[') array_open = b;
      }
    }
    if (array_open == std::string_view::npos) {
      return InvalidArgumentError(path + ": byte " + std::to_string(i) +
                                  ": no \"traceEvents\" array in the top-level object");
    }
  } else {
    return InvalidArgumentError(path + ": byte " + std::to_string(i) +
                                ": not a JSON object or array (Kineto/Chrome trace expected)");
  }

  uint32_t file_index = builder.AddFile(std::move(file));
  kineto::FileState state(builder, file_index);
  kineto::EventReader reader;
  od::parser parser;
  std::string scratch;
  std::vector<Staged> staged;

  auto note = [&](std::string msg) {
    SourceFile& f = builder.timeline().files[file_index];
    if (f.errors.size() < 8) f.errors.push_back(path + ": " + std::move(msg));
  };
  auto where = [&](size_t offset) {
    return "byte " + std::to_string(offset) + " (line " + std::to_string(LineOf(data, offset)) +
           ")";
  };

  size_t pos = array_open + 1;
  size_t array_close = std::string_view::npos;  // index of ']' when the array ended cleanly
  bool stopped = false;
  int resyncs = 0;
  while (!stopped) {
    pos = SkipWs(data, pos);
    if (pos < data.size() && data[pos] == ']') {
      array_close = pos;
      break;
    }
    if (pos >= data.size()) {
      stopped = true;
      break;
    }
    if (progress != nullptr) progress->Advance(pos, data.size());
    // Try cuts at element separators ("}," ) from ~kChunkBytes on.
    size_t search = std::min(pos + kChunkBytes, data.size());
    size_t first_candidate = std::string_view::npos;
    bool done_run = false;
    bool exhausted = false;
    size_t last_error_offset = pos;
    simdjson::error_code last_error = simdjson::SUCCESS;
    for (int attempt = 0; attempt < kMaxCutRetries && !done_run; ++attempt) {
      size_t comma = FindCloseThen(data, search, ',');
      if (comma == std::string_view::npos) {
        exhausted = true;
        break;
      }
      if (first_candidate == std::string_view::npos) first_candidate = comma;
      size_t err_off = 0;
      auto err = ParseRun(parser, scratch, data.substr(pos, comma - pos), reader, staged, &err_off);
      if (!err) {
        state.Apply(staged);
        pos = comma + 1;
        done_run = true;
      } else if (err == simdjson::TRAILING_CONTENT) {
        // The run held the array's end (the cut was in the metadata after it).
        exhausted = true;
        break;
      } else {
        last_error = err;
        last_error_offset = pos + err_off;
        search = comma + 1;
      }
    }
    if (done_run) continue;
    if (exhausted) {
      // No separator left: the rest is the final run. The array ends at a
      // "}]"; try the last ones first since nested args ("[{...}]") and the
      // metadata after the array may hold more.
      size_t before = data.size();
      for (int attempt = 0; attempt < kMaxCutRetries && !done_run; ++attempt) {
        size_t brace = RFindCloseThen(data, before, pos, ']');
        if (brace == std::string_view::npos) break;
        size_t err_off = 0;
        auto err =
            ParseRun(parser, scratch, data.substr(pos, brace + 1 - pos), reader, staged, &err_off);
        if (!err) {
          state.Apply(staged);
          array_close = SkipWs(data, brace + 1);
          done_run = true;
        } else {
          last_error = err;
          last_error_offset = pos + err_off;
          before = brace;
        }
      }
      if (done_run) break;
    }
    // The run cannot be parsed as a whole: keep its longest parseable prefix
    // of whole elements before the error, then skip the damaged element.
    size_t limit = first_candidate == std::string_view::npos ? data.size() : first_candidate;
    if (last_error != simdjson::SUCCESS) limit = std::min(limit, last_error_offset + 1);
    size_t kept_to = pos;
    for (int attempt = 0; attempt < kMaxCutRetries; ++attempt) {
      size_t brace = RFindCloseThen(data, limit, pos, ',');
      if (brace == std::string_view::npos) break;
      size_t err_off = 0;
      if (!ParseRun(parser, scratch, data.substr(pos, brace + 1 - pos), reader, staged,
                    &err_off)) {
        state.Apply(staged);
        kept_to = brace + 1;
        break;
      }
      limit = brace;
    }
    SourceFile& f = builder.timeline().files[file_index];
    f.partial = true;
    bool truncated = last_error == simdjson::SUCCESS || last_error == simdjson::UNCLOSED_STRING ||
                     last_error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT;
    std::string why = last_error == simdjson::SUCCESS
                          ? std::string("document ends inside the traceEvents array")
                          : std::string(simdjson::error_message(last_error));
    size_t bad = std::max(last_error_offset, kept_to);
    // Resynchronize after the damaged element: go on at the next element
    // boundary ("}, {") past the error. Bounded, so a
    // file of garbage costs a few parses, not one per byte.
    size_t resume = ++resyncs <= kMaxResyncs ? FindElementBoundary(data, bad)
                                             : std::string_view::npos;
    if (resume == std::string_view::npos) {
      note(where(bad) + ": " + why + (truncated ? " (truncated?)" : "") + "; kept the " +
           "events before " + where(kept_to));
      stopped = true;
    } else {
      ++f.skipped;
      note(where(bad) + ": " + why + "; skipped " + where(kept_to) + " to " + where(resume + 1));
      pos = resume + 1;
    }
  }

  // Top-level metadata: parse the document with the events array emptied.
  std::string skeleton(data.substr(0, array_open + 1));
  if (array_close != std::string_view::npos) {
    skeleton.append(data.substr(array_close));
  } else if (data[i] == '{') {
    skeleton.append("]}");
  } else {
    skeleton.append("]");
  }
  state.ReadTopLevel(skeleton, parser, note);
  state.Finish();
  if (progress != nullptr) progress->Advance(data.size(), data.size());
  return OkStatus();
}

std::unique_ptr<TraceImporter> NewKinetoJsonImporter() {
  return std::make_unique<KinetoJsonImporter>();
}

}  // namespace gpufleet::trace
