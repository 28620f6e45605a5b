#include "bench/dcgm_exposition_gen.h"

#include <cstdio>
#include <string>
#include <vector>

namespace gpufleet::bench {
namespace {

// Value shapes as dcgm-exporter prints them: integer fields plain, double
// fields with %f (six decimals), e.g. "409.692000", "0.995630".
enum class Kind {
  kClockMhz,
  kTempC,
  kPowerW,
  kEnergyMj,
  kCount,
  kPercent,
  kMib,
  kRatio,
  kBytesPerS
};

struct Metric {
  const char* name;
  const char* type;
  const char* help;
  Kind kind;
};

// Names, types and help of dcgm-exporter's etc/default-counters.csv.
constexpr Metric kMetrics[] = {
    {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", Kind::kClockMhz},
    {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", Kind::kClockMhz},
    {"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", Kind::kTempC},
    {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", Kind::kTempC},
    {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", Kind::kPowerW},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
     "Total energy consumption since boot (in mJ).", Kind::kEnergyMj},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", Kind::kCount},
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", Kind::kPercent},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", Kind::kPercent},
    {"DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", Kind::kPercent},
    {"DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", Kind::kPercent},
    {"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", Kind::kCount},
    {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", Kind::kMib},
    {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", Kind::kMib},
    {"DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).", Kind::kMib},
    {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter",
     "Total number of NVLink bandwidth counters for all lanes.", Kind::kEnergyMj},
    {"DCGM_FI_DEV_VGPU_LICENSE_STATUS", "gauge", "vGPU License status", Kind::kCount},
    {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter",
     "Number of remapped rows for uncorrectable errors", Kind::kCount},
    {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter",
     "Number of remapped rows for correctable errors", Kind::kCount},
    {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed",
     Kind::kCount},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.",
     Kind::kRatio},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge",
     "Ratio of cycles the tensor (HMMA) pipe is active.", Kind::kRatio},
    {"DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
     "Ratio of cycles the device memory interface is active sending or receiving data.",
     Kind::kRatio},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", "gauge",
     "The rate of data transmitted over the PCIe bus - including both protocol headers and data "
     "payloads - in bytes per second.",
     Kind::kBytesPerS},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", "gauge",
     "The rate of data received over the PCIe bus - including both protocol headers and data "
     "payloads - in bytes per second.",
     Kind::kBytesPerS},
};

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t state_;
};

constexpr const char* kWorkloads[] = {"llm-train", "triton", "embed-index", "vllm-gw", "sd-tune"};
constexpr const char* kNamespaces[] = {"ml-training", "inference-prod", "research-sandbox"};
constexpr const char* kContainers[] = {"pytorch", "triton-server", "vllm", "trainer"};

void AppendHex(SplitMix64& rng, int digits, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < digits; ++i) out += kHex[rng.Below(16)];
}

void AppendAlnum(SplitMix64& rng, int n, std::string& out) {
  static constexpr char kChars[] = "bcdfghjklmnpqrstvwxz2456789";
  for (int i = 0; i < n; ++i) out += kChars[rng.Below(sizeof(kChars) - 1)];
}

// `{gpu="3",UUID="GPU-...",...,pod="..."}` for one GPU: shared by all its metrics.
std::string LabelSet(size_t gpu, SplitMix64& rng) {
  size_t node = gpu / 8;
  SplitMix64 node_rng(node * 7919 + 17);
  std::string s = "{gpu=\"" + std::to_string(gpu % 8) + "\",UUID=\"GPU-";
  AppendHex(rng, 8, s);
  s += '-';
  AppendHex(rng, 4, s);
  s += '-';
  AppendHex(rng, 4, s);
  s += '-';
  AppendHex(rng, 4, s);
  s += '-';
  AppendHex(rng, 12, s);
  s += "\",device=\"nvidia" + std::to_string(gpu % 8) +
       "\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"gke-a3-pool-";
  s += std::to_string(node % 4);
  s += '-';
  AppendHex(node_rng, 8, s);
  s += '-';
  AppendAlnum(node_rng, 4, s);
  s += '"';
  if (rng.Below(8) == 0) {  // unallocated GPU: empty pod labels, as in DCGM issue 191
    s += ",container=\"\",namespace=\"\",pod=\"\"}";
    return s;
  }
  size_t w = rng.Below(std::size(kWorkloads));
  s += ",container=\"";
  s += kContainers[w % std::size(kContainers)];
  s += "\",namespace=\"";
  s += kNamespaces[w % std::size(kNamespaces)];
  s += "\",pod=\"";
  s += kWorkloads[w];
  s += '-';
  AppendHex(rng, 10, s);
  s += '-';
  AppendAlnum(rng, 5, s);
  s += "\"}";
  return s;
}

void AppendValue(Kind kind, SplitMix64& rng, std::string& out) {
  char buf[48];
  int n = 0;
  switch (kind) {
    case Kind::kClockMhz:
      n = std::snprintf(buf, sizeof(buf), "%d", 210 + int(rng.Below(1771)));
      break;
    case Kind::kTempC:
      n = std::snprintf(buf, sizeof(buf), "%d", 28 + int(rng.Below(60)));
      break;
    case Kind::kPowerW:
      n = std::snprintf(buf, sizeof(buf), "%.6f", 60.0 + double(rng.Below(640000)) / 1000.0);
      break;
    case Kind::kEnergyMj:
      n = std::snprintf(buf, sizeof(buf), "%llu",
                        static_cast<unsigned long long>(1000000 + rng.Below(900000000000ull)));
      break;
    case Kind::kCount:
      n = std::snprintf(buf, sizeof(buf), "%d", int(rng.Below(8) == 0));
      break;
    case Kind::kPercent:
      n = std::snprintf(buf, sizeof(buf), "%d", int(rng.Below(101)));
      break;
    case Kind::kMib:
      n = std::snprintf(buf, sizeof(buf), "%d", int(rng.Below(81559)));
      break;
    case Kind::kRatio:
      n = std::snprintf(buf, sizeof(buf), "%.6f", double(rng.Below(1000001)) / 1e6);
      break;
    case Kind::kBytesPerS:
      n = std::snprintf(buf, sizeof(buf), "%llu",
                        static_cast<unsigned long long>(rng.Below(64000000000ull)));
      break;
  }
  out.append(buf, static_cast<size_t>(n));
}

}  // namespace

DcgmExpositionSize GenerateDcgmExposition(const DcgmExpositionShape& shape,
                                          const std::function<void(std::string_view)>& sink) {
  SplitMix64 rng(shape.seed);
  std::vector<std::string> label_sets;
  label_sets.reserve(shape.gpus);
  for (size_t g = 0; g < shape.gpus; ++g) label_sets.push_back(LabelSet(g, rng));

  constexpr size_t kChunk = 1 << 20;
  DcgmExpositionSize size;
  std::string buf;
  buf.reserve(kChunk + 4096);
  auto flush = [&] {
    size.bytes += buf.size();
    sink(buf);
    buf.clear();
  };
  for (const Metric& m : kMetrics) {
    buf += "# HELP ";
    buf += m.name;
    buf += ' ';
    buf += m.help;
    buf += "\n# TYPE ";
    buf += m.name;
    buf += ' ';
    buf += m.type;
    buf += '\n';
    for (const std::string& labels : label_sets) {
      buf += m.name;
      buf += labels;
      buf += ' ';
      AppendValue(m.kind, rng, buf);
      buf += '\n';
      ++size.samples;
      if (buf.size() >= kChunk) flush();
    }
  }
  flush();
  return size;
}

size_t GpusForBytes(size_t bytes) {
  DcgmExpositionSize probe =
      GenerateDcgmExposition(DcgmExpositionShape{64, 1}, [](std::string_view) {});
  double per_gpu = double(probe.bytes) / 64.0;
  size_t gpus = static_cast<size_t>(double(bytes) / per_gpu);
  gpus = (gpus + 7) / 8 * 8;
  return gpus < 8 ? 8 : gpus;
}

}  // namespace gpufleet::bench
