#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "trace/importer.h"
#include "trace/kineto_event_reader.h"
#include "trace/kineto_test_util.h"
#include "trace/timeline.h"

namespace gpufleet::trace {
namespace {

using testing::Gzip;
using testing::SourcePath;
using testing::WriteTemp;

constexpr char kNvidiaTrace[] = R"json({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 101,
   "ts": 10.5, "dur": 20.25, "args": {"External id": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 101,
   "ts": 12.001, "dur": 3.0, "args": {"cbid": 211, "correlation": 77}},
  {"ph": "s", "id": 77, "pid": 100, "tid": 101, "ts": 12.001, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64", "pid": 0, "tid": 7,
   "ts": 20.0, "dur": 5.5, "args": {"device": 0, "stream": 7, "correlation": 77}},
  {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 20.0, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
   "tid": 7, "ts": 30.0, "dur": 1.0, "args": {"device": 0, "stream": 7, "correlation": 78,
   "bytes": 4096}},
  {"ph": "X", "cat": "kernel",
   "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
   "pid": 0, "tid": 40, "ts": 40.0, "dur": 10.0,
   "args": {"device": 0, "stream": 40, "correlation": 80, "Collective name": "allreduce",
            "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 8, "dtype": "Float",
            "Process Group Name": "0", "Seq": 17}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "marker", "pid": 100, "tid": 101, "ts": 50.0,
   "s": "t"},
  {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}},
  {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
   "tid": "PyTorch Profiler", "ts": 1.0, "dur": 100.0, "args": {"Op count": 0}}
  ],
  "baseTimeNanoseconds": 1711964646000000000
})json";

Timeline Import(const std::string& path, Status* status = nullptr) {
  Timeline t;
  TimelineBuilder b(t);
  Status st = NewKinetoJsonImporter()->Import(path, b, nullptr);
  if (status != nullptr) *status = st;
  EXPECT_TRUE(status != nullptr || st.ok()) << st.ToString();
  b.Finish();
  return t;
}

const Event* FindEvent(const Timeline& t, std::string_view name) {
  for (const Event& e : t.events) {
    if (t.name(e) == name) return &e;
  }
  return nullptr;
}

TEST(KinetoJsonImporterTest, ConvertsMicrosTextToNanosecondsExactly) {
  int64_t ns = 0;
  ASSERT_TRUE(kineto::MicrosTextToNs("4458677009853.422", &ns));
  EXPECT_EQ(ns, 4458677009853422);  // a double would round this
  ASSERT_TRUE(kineto::MicrosTextToNs("1665536373729077", &ns));
  EXPECT_EQ(ns, 1665536373729077000);
  ASSERT_TRUE(kineto::MicrosTextToNs("68.0", &ns));
  EXPECT_EQ(ns, 68000);
  ASSERT_TRUE(kineto::MicrosTextToNs("1.2345", &ns));
  EXPECT_EQ(ns, 1235);  // half up past the third decimal
  ASSERT_TRUE(kineto::MicrosTextToNs("1.5e3", &ns));
  EXPECT_EQ(ns, 1500000);
  ASSERT_TRUE(kineto::MicrosTextToNs("-2.5", &ns));
  EXPECT_EQ(ns, -2500);
  EXPECT_FALSE(kineto::MicrosTextToNs("abc", &ns));
  EXPECT_FALSE(kineto::MicrosTextToNs("99999999999999999999", &ns));
  int64_t v = 0;
  ASSERT_TRUE(kineto::TokenToInt("\"0x1f\"", &v));
  EXPECT_EQ(v, 31);
}

// Since kineto #1054 (March 2025) baseTimeNanoseconds and displayTimeUnit
// come before traceEvents; the same events land on the same epoch times.
TEST(KinetoJsonImporterTest, BaseTimeBeforeTraceEventsGivesTheSameTimes) {
  std::string text = kNvidiaTrace;
  const std::string tail = ",\n  \"baseTimeNanoseconds\": 1711964646000000000\n}";
  ASSERT_EQ(text.substr(text.size() - tail.size()), tail);
  text = text.substr(0, text.size() - tail.size()) + "\n}";
  text.insert(1, "\n  \"baseTimeNanoseconds\": 1711964646000000000, \"displayTimeUnit\": \"ms\",");
  Timeline before = Import(WriteTemp("base_first.json", text));
  Timeline after = Import(WriteTemp("base_last.json", kNvidiaTrace));
  EXPECT_EQ(before.files[0].format_version, after.files[0].format_version);
  ASSERT_EQ(before.events.size(), after.events.size());
  for (size_t i = 0; i < before.events.size(); ++i) {
    EXPECT_EQ(before.events[i].start_ns, after.events[i].start_ns);
    EXPECT_EQ(before.events[i].dur_ns, after.events[i].dur_ns);
  }
  const Event* launch = FindEvent(before, "cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->start_ns, 1711964646000000000 + 12001);
}

// ts made relative without baseTimeNanoseconds (kineto #910/#919, a month
// before #928 wrote the base out): not placeable in time, and said so.
TEST(KinetoJsonImporterTest, RelativeTimesWithoutBaseAreNotEpoch) {
  Timeline t = Import(WriteTemp("relative.json", R"json({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5200.125, "dur": 3.5,
     "args": {"device": 0, "stream": 7, "correlation": 1}}]})json"));
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_FALSE(t.files[0].epoch_clock);
  EXPECT_EQ(t.files[0].format_version,
            "Kineto relative us, no baseTimeNanoseconds (April 2024 nightlies, or re-based)");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].start_ns, 5200125);
}

TEST(KinetoJsonImporterTest, ImportsNvidiaFlavourOntoEpochClock) {
  Timeline t = Import(WriteTemp("nvidia.json", kNvidiaTrace));
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_FALSE(t.files[0].partial);
  EXPECT_TRUE(t.files[0].epoch_clock);
  EXPECT_EQ(t.files[0].clock_source, "baseTimeNanoseconds");
  EXPECT_EQ(t.files[0].format_version, "Kineto float us + baseTimeNanoseconds (PyTorch 2.4+)");
  EXPECT_EQ(t.events.size(), 7u);

  const Event* launch = FindEvent(t, "cudaLaunchKernel");
  const Event* kernel = FindEvent(t, "ampere_sgemm_128x64");
  ASSERT_NE(launch, nullptr);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(launch->start_ns, 1711964646000000000 + 12001);
  EXPECT_EQ(launch->kind, EventKind::kRuntime);
  EXPECT_EQ(kernel->kind, EventKind::kKernel);
  EXPECT_EQ(kernel->correlation, 77);
  EXPECT_EQ(kernel->dur_ns, 5500);
  // The kernel's queue hangs off the host process that launched it.
  const Track& kt = t.track(*kernel);
  EXPECT_EQ(kt.kind, TrackKind::kDeviceQueue);
  EXPECT_EQ(kt.device, 0);
  EXPECT_EQ(kt.queue, 7);
  EXPECT_EQ(kt.name, "stream 7 ");
  EXPECT_EQ(kt.process, t.track(*launch).process);
  const Process& p = t.process(*kernel);
  EXPECT_EQ(p.pid, 100);
  EXPECT_EQ(p.name, "python3");
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.world_size, 8);
  EXPECT_EQ(p.vendor, Vendor::kNvidia);
  EXPECT_EQ(p.device_name, "NVIDIA A100-SXM4-80GB");

  const Event* copy = FindEvent(t, "Memcpy HtoD (Pageable -> Device)");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, EventKind::kMemcpy);
  EXPECT_EQ(copy->bytes, 4096);
  EXPECT_EQ(FindEvent(t, "aten::mm")->kind, EventKind::kCpuOp);
  EXPECT_EQ(FindEvent(t, "marker")->kind, EventKind::kInstant);

  const Event* nccl = nullptr;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kCommKernel) nccl = &e;
  }
  ASSERT_NE(nccl, nullptr);
  ASSERT_NE(nccl->collective, kNoCollective);
  const Collective& c = t.collectives[nccl->collective];
  EXPECT_EQ(t.strings.Get(c.op), "allreduce");
  EXPECT_EQ(t.strings.Get(c.comm), "0");
  EXPECT_EQ(c.seq, 17);
  EXPECT_FALSE(c.seq_inferred);
  EXPECT_EQ(c.bytes, 4096);
  EXPECT_EQ(c.nranks, 8);
  EXPECT_EQ(c.rank, 3);

  // The string pid becomes its own process named after it.
  const Event* span = FindEvent(t, "PyTorch Profiler (0)");
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(t.process(*span).name, "Spans");
  EXPECT_EQ(span->kind, EventKind::kAnnotation);
}

TEST(KinetoJsonImporterTest, ReadsGzipLikePlain) {
  Timeline plain = Import(WriteTemp("a.json", kNvidiaTrace));
  Timeline gz = Import(WriteTemp("a.json.gz", Gzip(kNvidiaTrace)));
  ASSERT_EQ(plain.events.size(), gz.events.size());
  for (size_t i = 0; i < plain.events.size(); ++i) {
    EXPECT_EQ(plain.events[i].start_ns, gz.events[i].start_ns);
  }
}

TEST(KinetoJsonImporterTest, LinksLegacyFlowsWhenCorrelationIsMissing) {
  const char* doc = R"json({"traceEvents": [
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9,
     "ts": 1665536373729065, "dur": 14},
    {"ph": "s", "id": 538860, "pid": 9, "tid": 9, "ts": 1665536373729065, "cat": "async_gpu",
     "name": "cudaLaunchKernel"},
    {"ph": "X", "cat": "Kernel", "name": "gemv", "pid": 0, "tid": 7, "ts": 1665536373729077,
     "dur": 4},
    {"ph": "f", "id": 538860, "pid": 0, "tid": 7, "ts": 1665536373729077, "cat": "async_gpu",
     "name": "cudaLaunchKernel", "bp": "e"}
  ]})json";
  Timeline t = Import(WriteTemp("legacy.json", doc));
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_TRUE(t.files[0].epoch_clock);
  EXPECT_EQ(t.files[0].clock_source, "epoch us");
  EXPECT_EQ(t.files[0].format_version, "Kineto epoch us, no baseTimeNanoseconds (PyTorch <= 2.3)");
  EXPECT_EQ(FindEvent(t, "cudaLaunchKernel")->correlation, 538860);
  EXPECT_EQ(FindEvent(t, "gemv")->correlation, 538860);
  EXPECT_EQ(FindEvent(t, "gemv")->kind, EventKind::kKernel);
  EXPECT_EQ(FindEvent(t, "gemv")->start_ns, 1665536373729077000);
}

TEST(KinetoJsonImporterTest, ImportsRocmFlavour) {
  const char* doc = R"json({"deviceProperties": [{"id": 0, "name": "AMD Radeon Graphics"}],
  "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 5, "tid": 5,
     "ts": 100.0, "dur": 11.5, "args": {"cid": 107, "correlation": 118, "stream": "0x0"}},
    {"ph": "X", "cat": "kernel", "name": "void at::native::elementwise_kernel", "pid": 0,
     "tid": 0, "ts": 130.0, "dur": 2.0,
     "args": {"device": 0, "stream": 0, "correlation": 118, "kind": "Dispatch Kernel"}}
  ], "baseTimeNanoseconds": 1000})json";
  Timeline t = Import(WriteTemp("rocm.json", doc));
  ASSERT_EQ(t.events.size(), 2u);
  const Event* k = FindEvent(t, "void at::native::elementwise_kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->correlation, 118);
  EXPECT_EQ(t.track(*k).queue, 0);
  EXPECT_EQ(t.process(*k).vendor, Vendor::kAmd);
  EXPECT_EQ(FindEvent(t, "hipLaunchKernel")->start_ns, 1000 + 100000);
}

TEST(KinetoJsonImporterTest, PairsBeginEndAndCountsStrays) {
  const char* doc = R"json([
    {"ph": "B", "name": "step", "cat": "user_annotation", "pid": 1, "tid": 2, "ts": 10},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 25},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 30},
    {"ph": "B", "name": "never closed", "pid": 1, "tid": 2, "ts": 40},
    {"ph": "X", "name": "no dur", "pid": 1, "tid": 2, "ts": 50},
    {"ph": "X", "name": "bad dur", "pid": 1, "tid": 2, "ts": 60, "dur": "soon"}
  ])json";
  Timeline t = Import(WriteTemp("be.json", doc));
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.name(t.events[0]), "step");
  EXPECT_EQ(t.events[0].dur_ns, 15000);
  EXPECT_EQ(t.events[0].kind, EventKind::kAnnotation);
  EXPECT_EQ(t.files[0].skipped, 4u);
  EXPECT_FALSE(t.files[0].epoch_clock);
}

std::string ManyEvents(int n, bool tricky_names) {
  std::string doc = "{\"traceEvents\": [\n";
  for (int i = 0; i < n; ++i) {
    if (i > 0) doc += ",\n";
    std::string name = tricky_names && i % 7 == 0 ? "op}, {\\\"x\\\": " + std::to_string(i)
                                                  : "op" + std::to_string(i % 50);
    doc += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name +
           "\", \"pid\": 1, \"tid\": 2, \"ts\": " + std::to_string(1000 + i) +
           ".5, \"dur\": 1, \"args\": {\"nested\": {\"a\": [1, {\"b\": 2}]}, \"x\": 1}}";
  }
  doc += "\n], \"baseTimeNanoseconds\": 5}";
  return doc;
}

TEST(KinetoJsonImporterTest, ParsesDocumentsLargerThanOneRun) {
  // ~7 MB: several parse runs, with separators hidden inside strings.
  std::string doc = ManyEvents(50000, true);
  ASSERT_GT(doc.size(), 5u << 20);
  Timeline t = Import(WriteTemp("big.json", doc));
  EXPECT_FALSE(t.files[0].partial) << (t.files[0].errors.empty() ? "" : t.files[0].errors[0]);
  ASSERT_EQ(t.events.size(), 50000u);
  EXPECT_EQ(t.events.front().start_ns, 5 + 1000500);
  EXPECT_EQ(t.events.back().start_ns, 5 + (1000 + 49999) * 1000 + 500);
  EXPECT_EQ(t.name(t.events[7]), "op}, {\"x\": 7");
}

TEST(KinetoJsonImporterTest, MetadataObjectsAfterTheArrayDoNotCutIt) {
  std::string doc = ManyEvents(20000, false);  // ~2.8 MB: one full run, then the rest
  doc.pop_back();
  doc += ", \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100\"}, {\"id\": 1}]}";
  Timeline t = Import(WriteTemp("tail.json", doc));
  EXPECT_FALSE(t.files[0].partial) << (t.files[0].errors.empty() ? "" : t.files[0].errors[0]);
  EXPECT_EQ(t.events.size(), 20000u);
  EXPECT_EQ(t.processes[0].device_name, "NVIDIA H100");
}

TEST(KinetoJsonImporterTest, TruncatedJsonKeepsCompleteEventsAndIsPartial) {
  std::string doc = ManyEvents(20000, false);
  std::string cut = doc.substr(0, doc.size() * 3 / 4);
  Status st;
  Timeline t = Import(WriteTemp("cut.json", cut), &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(t.files[0].partial);
  EXPECT_GT(t.events.size(), 14000u);
  EXPECT_LT(t.events.size(), 15100u);
  ASSERT_FALSE(t.files[0].errors.empty());
  EXPECT_NE(t.files[0].errors.back().find("byte"), std::string::npos);
  // baseTimeNanoseconds sat after the cut: times stay relative.
  EXPECT_FALSE(t.files[0].epoch_clock);
}

TEST(KinetoJsonImporterTest, DamagedElementMidFileIsSkippedAndTheRestKept) {
  std::string doc = ManyEvents(20000, false);  // several parse runs
  size_t at = doc.find("\"ts\": 13345.5,");
  ASSERT_NE(at, std::string::npos);
  doc.insert(at + 13, " \"oops\"");  // "ts": 13345.5 "oops", ...
  Status st;
  Timeline t = Import(WriteTemp("damaged.json", doc), &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(t.files[0].partial);
  EXPECT_EQ(t.events.size(), 19999u);
  EXPECT_EQ(t.files[0].skipped, 1u);
  ASSERT_EQ(t.files[0].errors.size(), 1u);
  EXPECT_NE(t.files[0].errors[0].find("line 12346"), std::string::npos) << t.files[0].errors[0];
  EXPECT_TRUE(t.files[0].epoch_clock);  // baseTimeNanoseconds after the array still read
}

TEST(KinetoJsonImporterTest, TruncatedGzipKeepsWhatInflated) {
  std::string doc = ManyEvents(20000, false);
  std::string gz = Gzip(doc);
  Status st;
  Timeline t = Import(WriteTemp("cut.json.gz", gz.substr(0, gz.size() / 2)), &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(t.files[0].partial);
  EXPECT_GT(t.events.size(), 1000u);
  EXPECT_LT(t.events.size(), 20000u);
  bool mentions_gzip = false;
  for (const auto& e : t.files[0].errors) mentions_gzip |= e.find("gzip") != std::string::npos;
  EXPECT_TRUE(mentions_gzip);
}

TEST(KinetoJsonImporterTest, InvalidJsonMidArrayNamesTheOffset) {
  std::string doc = R"json({"traceEvents": [
    {"ph": "X", "name": "good", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "name": "bad" "pid": 1, "tid": 1, "ts": 2, "dur": 1},
    {"ph": "X", "name": "later", "pid": 1, "tid": 1, "ts": 3, "dur": 1}
  ]})json";
  Status st;
  Timeline t = Import(WriteTemp("bad.json", doc), &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(t.files[0].partial);
  // The damaged element is skipped; the one after it is kept.
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.name(t.events[0]), "good");
  EXPECT_EQ(t.name(t.events[1]), "later");
  EXPECT_EQ(t.files[0].skipped, 1u);
  ASSERT_FALSE(t.files[0].errors.empty());
  EXPECT_NE(t.files[0].errors.back().find("line 3"), std::string::npos);
  EXPECT_NE(t.files[0].errors.back().find("skipped"), std::string::npos);
}

// Events out of order in the file, and two kernels overlapping on one
// stream: the timeline is sorted, the file is not partial, and both are
// counted (the overlap also becomes a report note, see analysis_test).
TEST(KinetoJsonImporterTest, CountsOutOfOrderAndOverlappingQueueEvents) {
  std::string doc = R"json({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 30, "dur": 10,
     "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 25,
     "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 50, "dur": 5,
     "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 5, "dur": 10}
  ]})json";
  Timeline t = Import(WriteTemp("disorder.json", doc));
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_FALSE(t.files[0].partial);
  EXPECT_EQ(t.files[0].out_of_order, 1u);  // k1 after k2
  // k2 starts 5 us before k1 ends; nested cpu ops are fine.
  EXPECT_EQ(t.files[0].queue_overlaps, 1u);
  EXPECT_EQ(t.files[0].max_queue_overlap_ns, 5000);
  std::vector<std::string> order;
  for (const Event& e : t.events) order.emplace_back(t.name(e));
  EXPECT_EQ(order, (std::vector<std::string>{"outer", "inner", "k1", "k2", "k3"}));
}

TEST(KinetoJsonImporterTest, RejectsNonTraces) {
  Status st;
  Import(WriteTemp("text.json", "hello world"), &st);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  Import(WriteTemp("obj.json", "{\"a\": 1}"), &st);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("traceEvents"), std::string::npos);
  Import(WriteTemp("empty.json", ""), &st);
  EXPECT_FALSE(st.ok());
}

TEST(KinetoJsonImporterTest, SniffsKinetoHeads) {
  auto imp = NewKinetoJsonImporter();
  EXPECT_TRUE(imp->Sniff("x.json", "{\n  \"schemaVersion\": 1,"));
  EXPECT_TRUE(imp->Sniff("x.json", "[{\"ph\": \"X\"}"));
  EXPECT_FALSE(imp->Sniff("x.json", "{\"nccl\": 1}"));
  EXPECT_FALSE(imp->Sniff("x.csv", "Kind,Agent_Id"));
}

TEST(KinetoJsonImporterTest, ImportsHtaNcclSampleWithCollectives) {
  Timeline t = Import(SourcePath("tests/data/trace/nccl_data.json.gz"));
  EXPECT_FALSE(t.files[0].partial);
  EXPECT_EQ(t.files[0].clock_source, "baseTimeNanoseconds");
  size_t comm = 0, device = 0, device_correlated = 0;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kCommKernel) ++comm;
    if (IsDeviceKind(e.kind)) {
      ++device;
      if (e.correlation >= 0) ++device_correlated;
    }
  }
  EXPECT_EQ(comm, 21u);  // per the sample's README
  EXPECT_EQ(device, device_correlated);
  ASSERT_EQ(t.collectives.size(), 21u);
  EXPECT_EQ(t.strings.Get(t.collectives[0].op), "allreduce");
  EXPECT_EQ(t.collectives[0].rank, 0);
  EXPECT_GT(t.collectives[0].bytes, 0);
  EXPECT_EQ(t.processes[t.tracks[t.events[0].track].process].device_name, "NVIDIA A100-PG509-200");
}

TEST(KinetoJsonImporterTest, ImportsHtaAmdAndLegacySamples) {
  Timeline amd = Import(SourcePath("tests/data/trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
  ASSERT_FALSE(amd.events.empty());
  size_t kernels = 0;
  for (const Event& e : amd.events) kernels += e.kind == EventKind::kKernel ? 1 : 0;
  EXPECT_EQ(kernels, 14u);
  EXPECT_EQ(amd.processes[amd.tracks[amd.events[0].track].process].vendor, Vendor::kAmd);

  Timeline legacy = Import(SourcePath("tests/data/trace/inference_rank_1.json.gz"));
  size_t legacy_kernels = 0, runtime = 0;
  for (const Event& e : legacy.events) {
    legacy_kernels += e.kind == EventKind::kKernel ? 1 : 0;
    runtime += e.kind == EventKind::kRuntime ? 1 : 0;
  }
  EXPECT_EQ(legacy_kernels, 4u);
  EXPECT_EQ(runtime, 8u);
}

}  // namespace
}  // namespace gpufleet::trace
