#include "canary/runner.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>

#include "canary/device_buffers.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::canary {
namespace {

class Runner {
 public:
  // Single-device benchmarks run on `device`, their results carry `target`.
  Runner(GpuRuntime& rt, const RunOptions& o, int device, HardwareTarget target,
         RunReport* report)
      : rt_(rt), o_(o), device_(device), target_(std::move(target)), report_(report) {}

  void Gemm() {
    Status blas = rt_.BlasStatus();
    for (GemmPrecision p : o_.gemm_precisions) {
      std::string id =
          "gemm." + std::string(GemmPrecisionName(p)) + "@" + std::to_string(o_.gemm_n);
      // fp8 goes through BLASLt alone; Gemm() says why when it cannot.
      if (!blas.ok() && p != GemmPrecision::kFp8) {
        Skip(id, blas.message());
        continue;
      }
      Record(id, "flop_per_second", "gemm n=" + std::to_string(o_.gemm_n),
             [&]() { return GemmReps(p); });
    }
  }

  void StreamGroup() {
    std::string size = "@" + std::to_string(o_.stream_bytes);
    Record("stream.memcpy" + size, "bytes_per_second", "device memcpy", [&]() {
      return Reps(
          [&](DeviceBuffers& bufs, void* s) -> StatusOr<std::function<Status()>> {
            ASSIGN_OR_RETURN(void* a, bufs.Device(o_.stream_bytes));
            ASSIGN_OR_RETURN(void* b, bufs.Device(o_.stream_bytes));
            return std::function<Status()>([this, a, b, s]() {
              return rt_.Memcpy(b, a, o_.stream_bytes, CopyKind::kDeviceToDevice, s);
            });
          },
          2.0 * static_cast<double>(o_.stream_bytes));
    });
    KernelStreams();
    std::string id = "stream.axpy_triad" + size;
    if (Status blas = rt_.BlasStatus(); !blas.ok()) {
      Skip(id, blas.message());
      return;
    }
    int n = static_cast<int>(o_.stream_bytes / sizeof(float));
    Record(id, "bytes_per_second", "BLAS saxpy", [&]() {
      return Reps(
          [&](DeviceBuffers& bufs, void* s) -> StatusOr<std::function<Status()>> {
            ASSIGN_OR_RETURN(void* x, bufs.Device(o_.stream_bytes));
            ASSIGN_OR_RETURN(void* y, bufs.Device(o_.stream_bytes));
            return std::function<Status()>(
                [this, n, x, y, s]() { return rt_.Axpy(n, 1e-3f, x, y, s); });
          },
          3.0 * static_cast<double>(n) * sizeof(float));
    });
  }

  // gpufleet's own kernels (BabelStream's Copy and Triad over doubles, three
  // arrays of stream_bytes each); skipped when built without nvcc/hipcc.
  void KernelStreams() {
    std::string size = "@" + std::to_string(o_.stream_bytes);
    const uint64_t n = o_.stream_bytes / sizeof(double);
    Status kernels = rt_.KernelStatus();
    for (StreamKernel k : {StreamKernel::kCopy, StreamKernel::kTriad}) {
      bool copy = k == StreamKernel::kCopy;
      std::string id = std::string(copy ? "stream.copy" : "stream.triad") + size;
      if (!kernels.ok()) {
        Skip(id, kernels.message());
        continue;
      }
      if (n == 0) {
        Skip(id, "stream size below one double");
        continue;
      }
      Record(id, "bytes_per_second", copy ? "copy kernel" : "triad kernel", [&]() {
        return Reps(
            [&](DeviceBuffers& bufs, void* s) -> StatusOr<std::function<Status()>> {
              ASSIGN_OR_RETURN(void* a, bufs.Device(n * sizeof(double)));
              ASSIGN_OR_RETURN(void* b, bufs.Device(n * sizeof(double)));
              ASSIGN_OR_RETURN(void* c, bufs.Device(n * sizeof(double)));
              return std::function<Status()>([this, k, n, a, b, c, s]() {
                // BabelStream's startScalar.
                return rt_.LaunchStreamKernel(k, n, 0.4, a, b, c, s);
              });
            },
            (copy ? 2.0 : 3.0) * static_cast<double>(n) * sizeof(double));
      });
    }
  }

  void Transfers() {
    std::string size = "@" + std::to_string(o_.transfer_bytes);
    for (CopyKind kind : {CopyKind::kHostToDevice, CopyKind::kDeviceToHost}) {
      bool h2d = kind == CopyKind::kHostToDevice;
      Record(std::string(h2d ? "copy.h2d_pinned" : "copy.d2h_pinned") + size, "bytes_per_second",
             h2d ? "pinned host to device" : "device to pinned host", [&]() {
               return Reps(
                   [&](DeviceBuffers& bufs, void* s) -> StatusOr<std::function<Status()>> {
                     ASSIGN_OR_RETURN(void* host, bufs.Pinned(o_.transfer_bytes));
                     ASSIGN_OR_RETURN(void* dev, bufs.Device(o_.transfer_bytes));
                     void* dst = h2d ? dev : host;
                     void* src = h2d ? host : dev;
                     return std::function<Status()>([this, dst, src, kind, s]() {
                       return rt_.Memcpy(dst, src, o_.transfer_bytes, kind, s);
                     });
                   },
                   static_cast<double>(o_.transfer_bytes));
             });
    }
  }

  void Alloc() {
    const Clock& clock = o_.clock != nullptr ? *o_.clock : RealClock::Get();
    Status dev = rt_.SetDevice(device_);
    for (size_t bytes : o_.alloc_bytes) {
      BenchmarkResult p50 =
          NewResult("alloc.latency_p50@" + std::to_string(bytes), "seconds", "malloc+free");
      BenchmarkResult p99 = p50;
      p99.benchmark_id = "alloc.latency_p99@" + std::to_string(bytes);
      Status st = dev;
      for (int r = 0; r < o_.repetitions && st.ok(); ++r) {
        std::vector<double> samples;
        for (int i = 0; i < o_.alloc_samples && st.ok(); ++i) {
          int64_t t0 = clock.MonotonicNs();
          StatusOr<void*> p = rt_.DeviceAlloc(bytes);
          st = p.status();
          if (st.ok()) st = rt_.DeviceFree(*p);
          samples.push_back(static_cast<double>(clock.MonotonicNs() - t0) / 1e9);
        }
        if (!st.ok()) break;
        std::sort(samples.begin(), samples.end());
        p50.values.push_back(Percentile(samples, 0.50));
        p99.values.push_back(Percentile(samples, 0.99));
      }
      if (!st.ok()) {
        Skip(p50.benchmark_id, st.message());
        Skip(p99.benchmark_id, st.message());
        continue;
      }
      report_->results.push_back(std::move(p50));
      report_->results.push_back(std::move(p99));
    }
  }

  void AllReduce() {
    int n = rt_.device_count();
    Status ccl = rt_.CollectiveStatus();
    for (size_t bytes : o_.allreduce_bytes) {
      std::string id = "nccl.all_reduce.busbw@" + std::to_string(bytes);
      if (!ccl.ok()) {
        Skip(id, ccl.message());
        continue;
      }
      if (n < 2) {
        Skip(id, "needs 2 or more GPUs, found " + std::to_string(n));
        continue;
      }
      Record(id, "bytes_per_second", std::to_string(n) + " GPUs",
             [&]() { return AllReduceReps(bytes, n); });
    }
  }

 private:
  // The per-repetition figures of one benchmark.
  using RepsFn = std::function<StatusOr<std::vector<double>>()>;

  BenchmarkResult NewResult(std::string id, std::string_view unit, std::string_view what) {
    BenchmarkResult r;
    r.target = target_;
    r.benchmark_id = std::move(id);
    r.unit = std::string(unit);
    r.source = "gpufleet canary run: " + std::string(GpuVendorName(rt_.vendor())) + " gpu" +
               std::to_string(device_) + ", " + std::string(what) + ", " +
               std::to_string(o_.iters) + " op(s) per repetition";
    return r;
  }

  void Record(std::string id, std::string_view unit, std::string_view what, const RepsFn& fn) {
    Status dev = rt_.SetDevice(device_);
    StatusOr<std::vector<double>> values = dev.ok() ? fn() : StatusOr<std::vector<double>>(dev);
    if (!values.ok()) {
      Skip(id, values.status().message());
      return;
    }
    BenchmarkResult r = NewResult(std::move(id), unit, what);
    r.values = std::move(values).value();
    report_->results.push_back(std::move(r));
  }

  void Skip(std::string id, std::string reason) {
    if (report_->per_device) reason = "gpu" + std::to_string(device_) + ": " + reason;
    report_->skipped.push_back({std::move(id), std::move(reason)});
  }

  // Sets up buffers with `setup` (which returns the operation), then times
  // `iters` operations per repetition; each moves `units` (bytes or flops).
  using SetupFn = std::function<StatusOr<std::function<Status()>>(DeviceBuffers&, void* stream)>;
  StatusOr<std::vector<double>> Reps(const SetupFn& setup, double units) {
    DeviceBuffers bufs(rt_);
    Stream stream(rt_);
    RETURN_IF_ERROR(stream.Create());
    ASSIGN_OR_RETURN(std::function<Status()> op, setup(bufs, stream.get()));
    RETURN_IF_ERROR(rt_.SyncStream(stream.get()));
    std::vector<double> values;
    for (int r = 0; r < o_.repetitions; ++r) {
      ASSIGN_OR_RETURN(double seconds,
                       TimeOnStream(rt_, stream.get(), r == 0 ? o_.warmup : 0, o_.iters, op));
      values.push_back(units * o_.iters / seconds);
    }
    return values;
  }

  StatusOr<std::vector<double>> GemmReps(GemmPrecision p) {
    size_t n = static_cast<size_t>(o_.gemm_n);
    size_t bytes = n * n * GemmElementBytes(p);
    size_t c_bytes = n * n * GemmOutputElementBytes(p);
    double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    return Reps(
        [&](DeviceBuffers& bufs, void* s) -> StatusOr<std::function<Status()>> {
          ASSIGN_OR_RETURN(void* a, bufs.Device(bytes));
          ASSIGN_OR_RETURN(void* b, bufs.Device(bytes));
          ASSIGN_OR_RETURN(void* c, bufs.Device(c_bytes));
          int dim = o_.gemm_n;
          // Checks support before timing: fp8 on a GPU without it answers
          // Unimplemented here, naming the architecture.
          RETURN_IF_ERROR(rt_.Gemm(p, dim, a, b, c, s));
          return std::function<Status()>(
              [this, p, dim, a, b, c, s]() { return rt_.Gemm(p, dim, a, b, c, s); });
        },
        flops);
  }

  StatusOr<std::vector<double>> AllReduceReps(size_t bytes, int n) {
    size_t count = bytes / sizeof(float);
    std::vector<std::unique_ptr<DeviceBuffers>> bufs;
    std::vector<std::unique_ptr<Stream>> streams;
    std::vector<void*> send, recv, raw_streams;
    for (int d = 0; d < n; ++d) {
      RETURN_IF_ERROR(rt_.SetDevice(d));
      bufs.push_back(std::make_unique<DeviceBuffers>(rt_));
      streams.push_back(std::make_unique<Stream>(rt_));
      RETURN_IF_ERROR(streams.back()->Create());
      ASSIGN_OR_RETURN(void* s, bufs.back()->Device(count * sizeof(float)));
      ASSIGN_OR_RETURN(void* r, bufs.back()->Device(count * sizeof(float)));
      send.push_back(s);
      recv.push_back(r);
      raw_streams.push_back(streams.back()->get());
    }
    auto sync_all = [&]() -> Status {
      for (int d = 0; d < n; ++d) {
        RETURN_IF_ERROR(rt_.SetDevice(d));
        RETURN_IF_ERROR(rt_.SyncStream(raw_streams[static_cast<size_t>(d)]));
      }
      return rt_.SetDevice(0);
    };
    RETURN_IF_ERROR(sync_all());
    std::vector<double> values;
    for (int r = 0; r < o_.repetitions; ++r) {
      // Events on GPU 0's stream: its all-reduce ends only when every rank's
      // has (each rank needs every other rank's data).
      ASSIGN_OR_RETURN(double seconds,
                       TimeOnStream(rt_, raw_streams[0], r == 0 ? o_.warmup : 0, o_.iters, [&]() {
                         return rt_.AllReduceSum(send, recv, count, raw_streams);
                       }));
      RETURN_IF_ERROR(sync_all());
      values.push_back(
          AllReduceBusBandwidth(static_cast<double>(count * sizeof(float)), seconds / o_.iters, n));
    }
    // Buffers are freed on the device that owns them.
    for (int d = n - 1; d >= 0; --d) {
      RETURN_IF_ERROR(rt_.SetDevice(d));
      streams.pop_back();
      bufs.pop_back();
    }
    return values;
  }

  static double Percentile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    // Nearest rank.
    size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
  }

  GpuRuntime& rt_;
  const RunOptions& o_;
  const int device_;
  const HardwareTarget target_;
  RunReport* report_;
};

// The device's target: catalog key for the model when known (so magnitude
// checks apply), then the caller's overrides.
StatusOr<HardwareTarget> DeviceTarget(GpuRuntime& rt, int device, const RunOptions& o) {
  RETURN_IF_ERROR(rt.SetDevice(device));
  ASSIGN_OR_RETURN(HardwareTarget t, rt.Target(device));
  if (const GpuModelSpec* m = HardwareCatalog::Default().Find(t.model)) t.model = m->key;
  t.MergeFrom(o.target_overrides);
  return t;
}

}  // namespace

std::string ResultDevice(const BenchmarkResult& r) {
  constexpr std::string_view kPrefix = "gpufleet canary run: ";
  std::string_view src = r.source;
  if (src.substr(0, kPrefix.size()) != kPrefix) return "";
  src.remove_prefix(kPrefix.size());
  size_t gpu = src.find(" gpu");
  if (gpu == std::string_view::npos) return "";
  src.remove_prefix(gpu + 1);
  return std::string(src.substr(0, src.find(',')));
}

double AllReduceBusBandwidth(double bytes, double seconds, int ranks) {
  if (seconds <= 0 || ranks <= 0) return 0;
  double algbw = bytes / seconds;
  return algbw * 2.0 * (ranks - 1) / ranks;
}

Status ValidateGroups(const std::vector<std::string>& groups) {
  if (groups.empty()) return InvalidArgumentError("no benchmark group selected");
  for (const std::string& g : groups) {
    bool known = false;
    for (const char* k : kAllBenchmarkGroups) known = known || g == k;
    if (!known) {
      return InvalidArgumentError("unknown benchmark group '" + g +
                                  "' (expected gemm, stream, alloc, h2d, allreduce)");
    }
  }
  return OkStatus();
}

StatusOr<RunReport> RunBenchmarks(GpuRuntime& rt, const RunOptions& o) {
  RETURN_IF_ERROR(ValidateGroups(o.groups));
  if (o.repetitions < 1 || o.iters < 1 || o.warmup < 0 || o.alloc_samples < 1 || o.gemm_n < 1) {
    return InvalidArgumentError("repetitions, iterations, samples and GEMM size must be >= 1");
  }
  if (o.device < 0 || o.device >= rt.device_count()) {
    return InvalidArgumentError("device " + std::to_string(o.device) + " out of range (" +
                                std::to_string(rt.device_count()) + " GPU(s))");
  }
  RunReport report;
  report.per_device = o.all_devices;
  ASSIGN_OR_RETURN(report.target, DeviceTarget(rt, o.all_devices ? 0 : o.device, o));
  auto selected = [&](std::string_view g) {
    return std::find(o.groups.begin(), o.groups.end(), g) != o.groups.end();
  };
  std::vector<int> devices;
  if (o.all_devices) {
    for (int d = 0; d < rt.device_count(); ++d) devices.push_back(d);
  } else {
    devices.push_back(o.device);
  }
  for (int d : devices) {
    HardwareTarget target = report.target;
    if (d != devices.front()) {
      ASSIGN_OR_RETURN(target, DeviceTarget(rt, d, o));
    }
    Runner runner(rt, o, d, std::move(target), &report);
    if (selected("gemm")) runner.Gemm();
    if (selected("stream")) runner.StreamGroup();
    if (selected("h2d")) runner.Transfers();
    if (selected("alloc")) runner.Alloc();
  }
  // All-reduce spans every GPU: once, whatever the device selection.
  if (selected("allreduce")) {
    Runner runner(rt, o, devices.front(), report.target, &report);
    runner.AllReduce();
  }
  return report;
}

}  // namespace gpufleet::canary
