// Private to the Kineto JSON importer: reading one traceEvents element into
// a Staged record, and the JSON number and token helpers that reading (and
// the top-level metadata in kineto_file_state.cc) uses.
//
// A Staged record holds string_views into the simdjson parser's buffers; they
// are valid until the parser parses the next run, so FileState::Apply()
// (kineto_file_state.h) must consume the run before. Not thread-safe; one
// reader per import.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string_view>

namespace gpufleet::trace::kineto {

// Converts a JSON number text in microseconds ("4458677009853.422",
// "1665536373729077", "68.0", "1.5e3") to integer nanoseconds. Digits past
// the third decimal are rounded half up; exponents go through double.
bool MicrosTextToNs(std::string_view text, int64_t* ns);
// Parses an integer JSON token or a quoted decimal / "0x.." hex string.
bool TokenToInt(std::string_view token, int64_t* out);
// A raw JSON token without surrounding whitespace and double quotes.
std::string_view Unquote(std::string_view t);
// The raw (still escaped) key of an object field, without its quotes.
std::string_view KeyOf(simdjson::ondemand::field& f);

struct Staged {
  std::string_view cat;
  std::string_view name;
  std::string_view pid_text;  // raw token: 597913 or "Spans"
  std::string_view tid_text;
  std::string_view comm;      // "Process Group Name"
  std::string_view coll_op;   // "Collective name"
  std::string_view dtype;
  std::string_view meta;      // args.name (process/thread name) or args.labels
  int64_t ts_ns = 0;
  int64_t dur_ns = -1;
  int64_t correlation = -1;
  int64_t bytes = -1;
  int64_t flow_id = -1;
  int64_t stream = -1;  // args.stream (number or "0x.." string)
  int64_t nelems = -1;
  int64_t seq = -1;
  int device = -1;      // args.device
  int group_size = -1;
  char ph = 0;
  bool has_ts = false;
  bool bad_number = false;
};

class EventReader {
 public:
  // Reads one traceEvents element. Returns a simdjson error only for
  // malformed JSON; semantically odd events come back with fields unset.
  simdjson::error_code Read(simdjson::ondemand::value v, Staged& s);

 private:
  simdjson::error_code ReadArgs(simdjson::ondemand::object args, Staged& s);
};

}  // namespace gpufleet::trace::kineto
