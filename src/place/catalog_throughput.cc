#include "place/catalog_throughput.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace gpufleet::place {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const GpuModelSpec* ResolveGpuModel(std::string_view model) {
  const HardwareCatalog& hw = HardwareCatalog::Default();
  if (const GpuModelSpec* s = hw.Find(model)) return s;
  const std::string low = Lower(model);
  if (const GpuModelSpec* s = hw.Find(low)) return s;
  if (low.empty()) return nullptr;
  for (const GpuModelSpec& m : hw.models()) {
    const std::string name = Lower(m.name);
    const size_t at = name.find(low);
    // "A100-SXM4-40GB" names "NVIDIA A100-SXM4-40GB"; "MI300X" names "AMD Instinct MI300X OAM".
    if (at != std::string::npos && (at == 0 || name[at - 1] == ' ') &&
        (at + low.size() == name.size() || name[at + low.size()] == ' ')) {
      return &m;
    }
  }
  return nullptr;
}

std::string GavelWorkerCatalogKey(std::string_view worker) {
  if (worker == "p100") return "p100-pcie";
  if (worker == "v100") return "v100-sxm-16gb";
  return std::string(worker);
}

StatusOr<std::unique_ptr<CatalogThroughput>> CatalogThroughput::Create(
    const GavelThroughputs* table, const std::vector<std::string>& models, int scale_factor) {
  std::unique_ptr<CatalogThroughput> c(new CatalogThroughput());
  c->table_ = table;
  ASSIGN_OR_RETURN(c->peaks_, GavelWorkerPeaks(*table));
  std::vector<std::string> workers = table->workers();
  for (const std::string& w : table->workers()) c->keys_.push_back(GavelWorkerCatalogKey(w));
  for (const std::string& name : models) {
    const GpuModelSpec* spec = ResolveGpuModel(name);
    if (spec == nullptr || c->WorkerOf(spec->key) >= 0) continue;
    c->keys_.push_back(spec->key);
    workers.push_back(spec->key);
    c->peaks_.push_back({spec->peak_fp32_flops, spec->memory_bandwidth_bytes_per_s});
  }
  std::vector<std::vector<double>> iso(table->num_job_types(),
                                       std::vector<double>(workers.size(), 0.0));
  for (int j = 0; j < table->num_job_types(); ++j) {
    for (int w = 0; w < table->num_workers(); ++w) iso[j][w] = table->Isolated(j, w);
  }
  c->ext_ = GavelThroughputs::FromTable(workers, table->job_types(), iso);
  const std::vector<WorkerPeaks> table_peaks(c->peaks_.begin(),
                                             c->peaks_.begin() + table->num_workers());
  const ThroughputValidation v =
      ValidateThroughputModel(ThroughputModel(table, table_peaks), *table, scale_factor);
  c->model_ = std::make_unique<ThroughputModel>(&c->ext_, c->peaks_);
  c->model_->SetTypicalErrors(v.neighbours_median, v.roofline_median);
  return c;
}

int CatalogThroughput::WorkerOf(std::string_view model) const {
  const GpuModelSpec* spec = ResolveGpuModel(model);
  if (spec == nullptr) return -1;
  auto it = std::find(keys_.begin(), keys_.end(), spec->key);
  if (it != keys_.end()) return static_cast<int>(it - keys_.begin());
  // Same peaks as a table worker (v100-sxm-32gb is a v100): its measurements apply.
  for (int w = 0; w < table_->num_workers(); ++w) {
    if (peaks_[w].peak_fp32_flops == spec->peak_fp32_flops &&
        peaks_[w].memory_bandwidth_bytes_per_s == spec->memory_bandwidth_bytes_per_s) {
      return w;
    }
  }
  return -1;
}

StatusOr<ThroughputEstimate> CatalogThroughput::Estimate(int job, std::string_view model) const {
  const int w = WorkerOf(model);
  if (w < 0)
    return NotFoundError("GPU model \"" + std::string(model) + "\" is not in data/hardware.toml");
  if (job < 0 || job >= ext_.num_job_types()) return NotFoundError("no such job type");
  ThroughputEstimate e = model_->Estimate(job, w);
  if (e.steps_per_s <= 0) {
    return NotFoundError("no measurement or prediction for " + ext_.job_types()[job].name + " on " +
                         std::string(model));
  }
  return e;
}

int CatalogThroughput::NearestTableWorker(std::string_view model) const {
  const int w = WorkerOf(model);
  if (w < 0) return -1;
  if (w < table_->num_workers()) return w;
  int best = -1;
  double gap = 0;
  for (int t = 0; t < table_->num_workers(); ++t) {
    if (peaks_[t].peak_fp32_flops <= 0) continue;
    const double g = std::fabs(std::log(peaks_[t].peak_fp32_flops / peaks_[w].peak_fp32_flops));
    if (best < 0 || g < gap) best = t, gap = g;
  }
  return best;
}

}  // namespace gpufleet::place
