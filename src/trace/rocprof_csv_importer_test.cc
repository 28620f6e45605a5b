#include <string>

#include "gtest/gtest.h"
#include "trace/importer.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

Timeline ImportOk(const std::string& path) {
  Timeline t;
  TimelineBuilder b(t);
  Status st = NewRocprofCsvImporter()->Import(path, b, nullptr);
  EXPECT_TRUE(st.ok()) << st.ToString();
  b.Finish();
  return t;
}

TEST(RocprofCsvImporterTest, ImportsDocKernelTraceOldLayout) {
  std::string path = TestData("rocprof/kernel_trace.csv");
  ASSERT_TRUE(NewRocprofCsvImporter()->Sniff(path, ReadHead(path)));
  Timeline t = ImportOk(path);
  EXPECT_EQ(t.files[0].skipped, 0u);
  EXPECT_FALSE(t.files[0].epoch_clock);
  EXPECT_NE(t.files[0].clock_source.find("BOOTTIME"), std::string::npos);
  EXPECT_EQ(t.files[0].format_version, "rocprofv3 CSV, ROCm <= 6.3 kernel columns (no Stream_Id)");
  EXPECT_EQ(CountKind(t, EventKind::kKernel), 7);
  // Kernel names with commas inside quotes stay whole.
  EXPECT_EQ(
      CountNamed(t, "void addition_kernel<float>(float*, float const*, float const*, int, int)"),
      4);
  const Event& first = t.events[0];
  EXPECT_EQ(first.start_ns, 8819330200067564LL);
  EXPECT_EQ(first.dur_ns, 8819330200116308LL - 8819330200067564LL);
  EXPECT_EQ(first.correlation, 1451);
  EXPECT_EQ(t.track(first).device, 1);
  EXPECT_EQ(t.track(first).queue, 1);
  EXPECT_EQ(t.process(first).vendor, Vendor::kAmd);
}

TEST(RocprofCsvImporterTest, ImportsApiMarkerAndMemcpyTraces) {
  Timeline hip = ImportOk(TestData("rocprof/hip_runtime_trace.csv"));
  EXPECT_EQ(CountKind(hip, EventKind::kRuntime) + CountKind(hip, EventKind::kSync), 8);
  EXPECT_EQ(CountNamed(hip, "hipMalloc"), 2);
  EXPECT_EQ(hip.process(hip.events[0]).pid, 238);

  Timeline marker = ImportOk(TestData("rocprof/marker_api_trace.csv"));
  EXPECT_EQ(CountNamed(marker, "before hipLaunchKernel"), 1);
  EXPECT_EQ(CountKind(marker, EventKind::kInstant) + CountKind(marker, EventKind::kAnnotation), 5);

  Timeline copy = ImportOk(TestData("rocprof/memory_copy_trace.csv"));
  EXPECT_EQ(CountNamed(copy, "Memcpy HtoD"), 1);
  EXPECT_EQ(CountNamed(copy, "Memcpy DtoH"), 1);
}

TEST(RocprofCsvImporterTest, ParsesCurrentLayoutByHeaderNameAndCountsBadRows) {
  TempDir dir;
  std::string path = dir.path() + "/4242_kernel_trace.csv";
  WriteFile(path,
            "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
            "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
            "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
            "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\","
            "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
            "\"KERNEL_DISPATCH\",2,5,3,77,9,1,\"ncclDevKernel_Generic(ncclDevKernelArgs4K)\",12,"
            "5000,9000,0,0,8,0,16,256,1,1,1024,1,1\n"
            "\"KERNEL_DISPATCH\",2,5,3,77,10,1,\"gemm\",13,1000,2000,0,0,8,0,16,256,1,1,1024,1,1\n"
            "\"KERNEL_DISPATCH\",2,5,3,77,11,1,\"gemm\",14,3000,2500,0,0,8,0,16,256,1,1,1024,1,1\n"
            "\"KERNEL_DISPATCH\",2,5\n"
            "\"KERNEL_DISPATCH\",2,5,3,77,12,1,\"unterminated,15,1,2,0,0,8,0,16,256,1,1,1,1,1\n");
  Timeline t = ImportOk(path);
  EXPECT_EQ(t.files[0].skipped, 3u);
  ASSERT_EQ(t.files[0].errors.size(), 3u);
  EXPECT_NE(t.files[0].errors[0].find("4242_kernel_trace.csv:4"), std::string::npos);
  EXPECT_NE(t.files[0].errors[1].find("4242_kernel_trace.csv:5"), std::string::npos);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 1);
  EXPECT_EQ(CountKind(t, EventKind::kKernel), 1);
  EXPECT_EQ(t.events[0].start_ns, 1000);        // sorted
  EXPECT_EQ(t.track(t.events[0]).queue, 3);     // Stream_Id
  EXPECT_EQ(t.process(t.events[0]).pid, 4242);  // from the file name
}

TEST(RocprofCsvImporterTest, MissingColumnAndNonTraceCsvAreErrorsNamingThem) {
  TempDir dir;
  std::string path = dir.path() + "/1_kernel_trace.csv";
  WriteFile(path, "Kind,Agent_Id,Queue_Id,Kernel_Name,Start_Timestamp\nK,1,1,k,5\n");
  Timeline t;
  TimelineBuilder b(t);
  Status st = NewRocprofCsvImporter()->Import(path, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("1_kernel_trace.csv:1: missing required column 'End_Timestamp'"),
            std::string::npos)
      << st.message();

  std::string counters = TestData("rocprof/counter_collection.csv");
  EXPECT_FALSE(NewRocprofCsvImporter()->Sniff(counters, ReadHead(counters)));
  st = NewRocprofCsvImporter()->Import(counters, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("not a rocprof trace CSV"), std::string::npos);
  EXPECT_TRUE(t.files.empty());
}

TEST(RocprofCsvImporterTest, ImportsRocprofV1Results) {
  TempDir dir;
  std::string path = dir.path() + "/results.csv";
  WriteFile(path,
            "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,"
            "accum_vgpr,sgpr,wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs\n"
            "0,\"Cijk_Ailk_Bljk_SB_MT64x64x16\",2,0,0,911,911,65536,256,0,0,32,0,24,64,0x0,0x7f,"
            "100,200,700,710\n");
  ASSERT_TRUE(NewRocprofCsvImporter()->Sniff(path, ReadHead(path)));
  Timeline t = ImportOk(path);
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].dur_ns, 500);
  EXPECT_EQ(t.process(t.events[0]).pid, 911);
  EXPECT_EQ(t.track(t.events[0]).device, 2);
}

// Issue 19: one derived sample per rocprofv3 CSV family (see
// tests/data/trace/README.importers.md for the column lists they follow).
TEST(RocprofCsvImporterTest, Rocm64FamilyReadsStreamIdForKernelsAndCopies) {
  Timeline k = ImportOk(TestData("rocprof/derived/rocm6.4/3071_kernel_trace.csv"));
  EXPECT_EQ(k.files[0].skipped, 0u);
  EXPECT_EQ(k.files[0].format_version, "rocprofv3 CSV, ROCm 6.4+ kernel columns (Stream_Id)");
  EXPECT_EQ(CountKind(k, EventKind::kKernel), 2);
  EXPECT_EQ(CountKind(k, EventKind::kCommKernel), 1);
  EXPECT_EQ(k.track(k.events[1]).queue, 2);  // the RCCL kernel's Stream_Id, not Queue_Id 1
  EXPECT_EQ(k.track(k.events[1]).device, 2);
  EXPECT_EQ(k.process(k.events[0]).pid, 3071);

  Timeline c = ImportOk(TestData("rocprof/derived/rocm6.4/3071_memory_copy_trace.csv"));
  EXPECT_EQ(c.files[0].format_version, "rocprofv3 CSV, ROCm 6.4+ memory copy columns (Stream_Id)");
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.track(c.events[0]).device, 2);  // HtoD: the destination
  EXPECT_EQ(c.track(c.events[1]).device, 2);  // DtoH: the source
  EXPECT_EQ(c.track(c.events[0]).queue, 1);

  Timeline h = ImportOk(TestData("rocprof/derived/rocm6.4/3071_hip_api_trace.csv"));
  EXPECT_EQ(h.files[0].format_version,
            "rocprofv3 CSV, API columns (Domain, Function; unchanged 6.2-7.x)");
  EXPECT_EQ(CountNamed(h, "hipLaunchKernel"), 2);
  EXPECT_EQ(CountKind(h, EventKind::kSync), 1);
}

TEST(RocprofCsvImporterTest, Rocm7FamilyReadsAgentIdsWrittenAsText) {
  Timeline k = ImportOk(TestData("rocprof/derived/rocm7/5120_kernel_trace.csv"));
  EXPECT_EQ(k.files[0].skipped, 0u);
  EXPECT_EQ(k.files[0].format_version,
            "rocprofv3 CSV, ROCm 6.4+ kernel columns (Stream_Id), Agent_Id as text (ROCm 7.x)");
  ASSERT_EQ(k.events.size(), 3u);
  EXPECT_EQ(k.track(k.events[0]).device, 2);  // "Agent 2"
  EXPECT_EQ(k.track(k.events[1]).device, 3);  // "Agent 3"
  EXPECT_EQ(k.track(k.events[1]).queue, 4);

  Timeline c = ImportOk(TestData("rocprof/derived/rocm7/5120_memory_copy_trace.csv"));
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.track(c.events[0]).device, 2);  // HtoD "Agent 0" -> "Agent 2"
  EXPECT_EQ(CountNamed(c, "Memcpy DtoD"), 1);
}

TEST(RocprofCsvImporterTest, RocpdConvertFamilyWithGuidAndTypeRelativeAgents) {
  Timeline k = ImportOk(TestData("rocprof/derived/rocpd_convert/5120_kernel_trace.csv"));
  EXPECT_EQ(k.files[0].skipped, 0u);
  EXPECT_EQ(k.files[0].format_version,
            "rocprofv3 CSV, ROCm 7.x rocpd convert (Guid), ROCm 6.4+ kernel columns (Stream_Id), "
            "Agent_Id as text (ROCm 7.x)");
  ASSERT_EQ(k.events.size(), 2u);
  EXPECT_EQ(k.track(k.events[0]).device, 0);  // "GPU 0"
  EXPECT_EQ(k.track(k.events[1]).device, 1);  // "GPU 1"

  // "CPU 0" is the host end: the copy lands on the GPU end either way.
  Timeline c = ImportOk(TestData("rocprof/derived/rocpd_convert/5120_memory_copy_trace.csv"));
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.track(c.events[0]).device, 0);
  EXPECT_EQ(c.track(c.events[1]).device, 0);

  std::string region = TestData("rocprof/derived/rocpd_convert/5120_region.csv");
  ASSERT_TRUE(NewRocprofCsvImporter()->Sniff(region, ReadHead(region)));
  Timeline r = ImportOk(region);
  EXPECT_EQ(r.files[0].skipped, 0u);
  EXPECT_EQ(CountNamed(r, "hipLaunchKernel"), 1);
  EXPECT_EQ(CountKind(r, EventKind::kAnnotation), 1);  // the roctx range
}

TEST(RocprofCsvImporterTest, UnreadableAgentIdsAreCountedWithTheirLine) {
  TempDir dir;
  std::string path = dir.path() + "/77_kernel_trace.csv";
  WriteFile(path,
            "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Kernel_Name\","
            "\"Start_Timestamp\",\"End_Timestamp\"\n"
            "K,\"Agent 1\",1,1,a,10,20\n"
            "K,\"NPU 1\",1,1,b,30,40\n"
            "K,\"Agent -1\",1,1,c,50,60\n"
            "K,\"GPU 70000\",1,1,d,70,80\n");
  Timeline t = ImportOk(path);
  EXPECT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.files[0].skipped, 3u);
  ASSERT_EQ(t.files[0].errors.size(), 3u);
  EXPECT_NE(t.files[0].errors[0].find("77_kernel_trace.csv:3: bad agent id 'NPU 1'"),
            std::string::npos)
      << t.files[0].errors[0];
  EXPECT_NE(t.files[0].errors[2].find(":5:"), std::string::npos);

  std::string copy = dir.path() + "/77_memory_copy_trace.csv";
  WriteFile(copy,
            "Kind,Direction,Stream_Id,Source_Agent_Id,Destination_Agent_Id,Start_Timestamp,"
            "End_Timestamp\n"
            "M,MEMORY_COPY_HOST_TO_DEVICE,1,CPU 0,GPU x,1,2\n");
  Timeline c = ImportOk(copy);
  EXPECT_TRUE(c.events.empty());
  ASSERT_EQ(c.files[0].errors.size(), 1u);
  EXPECT_NE(c.files[0].errors[0].find("77_memory_copy_trace.csv:2"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::trace
