#include "place/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/status.h"

namespace gpufleet::place {
namespace {

std::string JoinModels(const std::vector<std::string>& models) {
  std::string out;
  for (const std::string& m : models) out += (out.empty() ? "" : "|") + m;
  return out;
}

bool ShapeAllows(const TypicalShape& s, const std::string& node_model) {
  if (s.gpu_models.empty()) return true;
  if (node_model.empty()) return false;
  size_t pos = 0;
  while (pos <= s.gpu_models.size()) {
    size_t end = s.gpu_models.find('|', pos);
    if (end == std::string::npos) end = s.gpu_models.size();
    if (s.gpu_models.compare(pos, end - pos, node_model) == 0) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace

TargetWorkload TargetWorkload::FromWorkload(const std::vector<WorkloadRequest>& workload,
                                            double coverage) {
  using Key = std::tuple<int64_t, int64_t, int, std::string>;
  std::map<Key, int64_t> counts;
  std::map<Key, int64_t> memory;
  for (const WorkloadRequest& r : workload) {
    Key key{r.cpu_milli, r.gpu_milli, r.gpu_count, JoinModels(r.gpu_models)};
    ++counts[key];
    memory[key] += r.memory_mib;
  }
  std::vector<std::pair<Key, int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first > b.first;
  });
  const double total = static_cast<double>(workload.size());
  std::vector<TypicalShape> shapes;
  double covered = 0;
  for (const auto& [key, count] : sorted) {
    if (covered >= coverage * total) break;
    TypicalShape s;
    std::tie(s.cpu_milli, s.gpu_milli, s.gpu_count, s.gpu_models) = key;
    s.count = count;
    s.memory_mib = memory[key] / count;
    shapes.push_back(std::move(s));
    covered += static_cast<double>(count);
  }
  for (TypicalShape& s : shapes) s.weight = static_cast<double>(s.count) / covered;
  TargetWorkload t;
  t.shapes_ = std::move(shapes);
  return t;
}

TargetWorkload TargetWorkload::FromShapes(std::vector<TypicalShape> shapes) {
  TargetWorkload t;
  t.shapes_ = std::move(shapes);
  return t;
}

void TargetWorkload::BindModels(const Cluster& cluster) {
  std::unordered_map<std::string, int> ids;
  model_index_.assign(cluster.size(), 0);
  accessible_.clear();
  for (int n = 0; n < cluster.size(); ++n) {
    const std::string& model = cluster.spec(n).gpu_model;
    auto [it, inserted] = ids.emplace(model, static_cast<int>(accessible_.size()));
    if (inserted) {
      std::vector<char> row(shapes_.size());
      for (size_t s = 0; s < shapes_.size(); ++s) row[s] = ShapeAllows(shapes_[s], model);
      accessible_.push_back(std::move(row));
    }
    model_index_[n] = it->second;
  }
}

double TargetWorkload::NodeFrag(int node, int64_t cpu_free_milli, const int64_t* gpu_free,
                                int gpu_count) const {
  GPUFLEET_CHECK(node >= 0 && node < static_cast<int>(model_index_.size()));
  int64_t idle = 0;
  for (int g = 0; g < gpu_count; ++g) idle += gpu_free[g];
  if (idle == 0) return 0;
  const std::vector<char>& access = accessible_[model_index_[node]];
  double frag = 0;
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const TypicalShape& s = shapes_[i];
    int64_t f = idle;
    if (s.gpu_milli > 0 && access[i] && cpu_free_milli >= s.cpu_milli) {
      int with_room = 0;
      int64_t stranded = 0;
      for (int g = 0; g < gpu_count; ++g) {
        if (gpu_free[g] >= s.gpu_milli) {
          ++with_room;
        } else {
          stranded += gpu_free[g];
        }
      }
      if (with_room >= s.gpu_count) f = stranded;
    }
    frag += s.weight * static_cast<double>(f);
  }
  return frag;
}

double TargetWorkload::NodeFrag(const Cluster& cluster, int node) const {
  const NodeState& st = cluster.state(node);
  return NodeFrag(node, st.cpu_free_milli, st.gpu_free_milli.data(),
                  static_cast<int>(st.gpu_free_milli.size()));
}

double ClusterFrag(const Cluster& cluster, const TargetWorkload& target) {
  double f = 0;
  for (int n = 0; n < cluster.size(); ++n) f += target.NodeFrag(cluster, n);
  return f;
}

}  // namespace gpufleet::place
