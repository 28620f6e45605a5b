// Fuzzes the Kineto/Chrome JSON importer on decompressed documents: run
// cutting, retries, salvage of truncated input, per-event field reading and
// the timeline build. Nothing may crash, hang or trip ASan/UBSan.
#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/kineto_json_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::trace;
  TraceBytes bytes;
  bytes.inflated.assign(reinterpret_cast<const char*>(data), size);
  Timeline t;
  TimelineBuilder b(t);
  kineto::ImportKinetoJsonBytes("fuzz.json", bytes, b, nullptr).IgnoreError();
  b.Finish();
  return 0;
}
