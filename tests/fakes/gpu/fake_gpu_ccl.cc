// The fake collective library (libnccl.so.2 / librccl.so.1; RCCL exports the
// nccl* names too). Ranks of one single-process communicator set: an
// all-reduce completes when every rank has called it (inside or outside a
// group) and moves all device clocks to the latest plus bytes / algbw, where
// algbw = busbw * n / (2(n-1)) from the scripted bus bandwidth.
#include <mutex>

#include "tests/fakes/gpu/fake_gpu_control.h"
#include "tests/fakes/gpu/fake_gpu_vendor.h"

namespace {

constexpr int kNcclSuccess = 0;
constexpr int kNcclInvalidArgument = 4;
constexpr int kNcclFloat32 = 7;
constexpr int kNcclSum = 0;

struct FakeComm {
  int rank;
  int nranks;
};

std::mutex mu;
int pending = 0;           // ranks that have called the current all-reduce
size_t pending_count = 0;  // its element count

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int ncclGetVersion(int* version) {
  if (version == nullptr) return kNcclInvalidArgument;
  *version = FAKE_CCL_VERSION;
  return kNcclSuccess;
}

__attribute__((visibility("default"))) const char* ncclGetErrorString(int result) {
  return result == kNcclSuccess ? "no error" : "invalid argument (fake)";
}

__attribute__((visibility("default"))) int ncclCommInitAll(void** comms, int ndev,
                                                           const int* devlist) {
  if (comms == nullptr || ndev < 1) return kNcclInvalidArgument;
  for (int i = 0; i < ndev; ++i) {
    if (devlist != nullptr && devlist[i] != i) return kNcclInvalidArgument;
    comms[i] = new FakeComm{i, ndev};
  }
  return kNcclSuccess;
}

__attribute__((visibility("default"))) int ncclCommDestroy(void* comm) {
  delete static_cast<FakeComm*>(comm);
  return kNcclSuccess;
}

__attribute__((visibility("default"))) int ncclGroupStart() { return kNcclSuccess; }
__attribute__((visibility("default"))) int ncclGroupEnd() { return kNcclSuccess; }

__attribute__((visibility("default"))) int ncclAllReduce(const void* send, void* recv, size_t count,
                                                         int datatype, int op, void* comm, void*) {
  if (send == nullptr || recv == nullptr || comm == nullptr || datatype != kNcclFloat32 ||
      op != kNcclSum) {
    return kNcclInvalidArgument;
  }
  if (FAKE_CTL(ShouldFail)("ncclAllReduce")) return kNcclInvalidArgument;
  int n = static_cast<FakeComm*>(comm)->nranks;
  std::lock_guard<std::mutex> lock(mu);
  if (pending > 0 && count != pending_count) return kNcclInvalidArgument;
  pending_count = count;
  if (++pending < n) return kNcclSuccess;
  pending = 0;
  double bytes = static_cast<double>(count) * 4;
  double busbw = FAKE_CTL(Number)("allreduce_busbw_gbps", 350) * 1e9;
  double algbw = n > 1 ? busbw * n / (2.0 * (n - 1)) : busbw;
  FAKE_CTL(Collective)(n, bytes / algbw);
  return kNcclSuccess;
}

}  // extern "C"
