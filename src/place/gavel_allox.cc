#include "place/gavel_allox.h"

#include <lemon/list_graph.h>
#include <lemon/network_simplex.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace gpufleet::place {
namespace {

class AlloxPolicy : public GavelPolicy {
 public:
  explicit AlloxPolicy(double alpha) : alpha_(alpha) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return true; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t nt = in.workers.size(), m_all = in.jobs.size();
    for (const GavelActiveJob& j : in.jobs) {
      if (j.scale_factor != 1) {
        return InvalidArgumentError(
            "allox: AlloX (as Gavel runs it) places single-GPU jobs only; "
            "job " +
            std::to_string(j.id) + " needs " + std::to_string(j.scale_factor) + " GPUs");
      }
    }
    // Jobs that hold a GPU keep it; the rest wait, oldest first.
    std::map<int64_t, int> kept;
    std::vector<int> free = in.workers;
    std::vector<size_t> waiting;
    for (size_t i = 0; i < m_all; ++i) {
      auto it = assigned_.find(in.jobs[i].id);
      if (it != assigned_.end()) {
        kept.emplace(it->first, it->second);
        --free[it->second];
      } else {
        waiting.push_back(i);
      }
    }
    assigned_ = std::move(kept);
    std::sort(waiting.begin(), waiting.end(),
              [&](size_t a, size_t b) { return in.jobs[a].id < in.jobs[b].id; });
    int n_free = 0;
    for (int f : free) n_free += std::max(f, 0);
    size_t m = std::max<size_t>(static_cast<size_t>(n_free),
                                static_cast<size_t>(alpha_ * static_cast<double>(waiting.size())));
    m = std::min(m, waiting.size());
    if (n_free > 0 && m > 0)
      Match(in, free, std::vector<size_t>(waiting.begin(), waiting.begin() + static_cast<long>(m)));

    GavelAllocation x(m_all, std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m_all; ++i) {
      auto it = assigned_.find(in.jobs[i].id);
      if (it != assigned_.end()) x[i][it->second] = 1.0;
    }
    return x;
  }

 private:
  // Min-cost flow: source -> job (1) -> slot (type t, position k from the
  // end; cost k x p_it) -> sink (capacity: the type's free GPUs). Starts
  // the jobs at the top position of each GPU.
  void Match(const GavelAllocationInput& in, const std::vector<int>& free,
             const std::vector<size_t>& jobs) {
    using Graph = lemon::ListDigraph;
    Graph g;
    const Graph::Node source = g.addNode(), sink = g.addNode();
    const size_t m = jobs.size(), nt = free.size();
    Graph::ArcMap<int> cap(g);
    Graph::ArcMap<double> cost(g);
    std::vector<Graph::Node> job_node(m);
    // slots[t][k-1]: position k on type t.
    std::vector<std::vector<Graph::Node>> slots(nt);
    for (size_t t = 0; t < nt; ++t) {
      if (free[t] <= 0) continue;
      const size_t positions =
          (m + static_cast<size_t>(free[t]) - 1) / static_cast<size_t>(free[t]);
      for (size_t k = 0; k < positions; ++k) {
        slots[t].push_back(g.addNode());
        const Graph::Arc a = g.addArc(slots[t].back(), sink);
        cap[a] = free[t];
        cost[a] = 0;
      }
    }
    struct Choice {
      Graph::Arc arc;
      size_t job;  // index in `jobs`
      size_t type, position;
    };
    std::vector<Choice> choices;
    int placeable = 0;
    for (size_t r = 0; r < m; ++r) {
      const GavelActiveJob& j = in.jobs[jobs[r]];
      job_node[r] = g.addNode();
      bool any = false;
      for (size_t t = 0; t < nt; ++t) {
        if (slots[t].empty() || !(j.steps_per_s[t] > 0)) continue;
        const double p = j.steps_remaining / j.steps_per_s[t];
        for (size_t k = 0; k < slots[t].size(); ++k) {
          const Graph::Arc a = g.addArc(job_node[r], slots[t][k]);
          cap[a] = 1;
          cost[a] = static_cast<double>(k + 1) * p;
          choices.push_back({a, r, t, k});
        }
        any = true;
      }
      if (!any) continue;  // runs on no type with a free GPU: waits
      const Graph::Arc a = g.addArc(source, job_node[r]);
      cap[a] = 1;
      cost[a] = 0;
      ++placeable;
    }
    if (placeable == 0) return;
    Graph::NodeMap<int> supply(g, 0);
    supply[source] = placeable;
    supply[sink] = -placeable;
    lemon::NetworkSimplex<Graph, int, double> solver(g);
    solver.upperMap(cap).costMap(cost).supplyMap(supply);
    if (solver.run() != lemon::NetworkSimplex<Graph, int, double>::OPTIMAL) return;
    // Jobs per (type, position); a GPU's top position is the highest it
    // holds, so n_k - n_{k+1} GPUs of type t start a job from position k.
    std::vector<std::vector<std::vector<size_t>>> at(nt);
    for (size_t t = 0; t < nt; ++t) at[t].resize(slots[t].size());
    for (const Choice& c : choices) {
      if (solver.flow(c.arc) > 0) at[c.type][c.position].push_back(c.job);
    }
    for (size_t t = 0; t < nt; ++t) {
      for (size_t k = 0; k < at[t].size(); ++k) {
        const size_t above = k + 1 < at[t].size() ? at[t][k + 1].size() : 0;
        std::vector<size_t>& here = at[t][k];
        std::sort(here.begin(), here.end());  // oldest first
        for (size_t s = 0; s + above < here.size(); ++s) {
          assigned_[in.jobs[jobs[here[s]]].id] = static_cast<int>(t);
        }
      }
    }
  }

  double alpha_;
  std::string name_ = "allox";
  std::map<int64_t, int> assigned_;  // job id -> GPU type, until it ends
};

}  // namespace

std::unique_ptr<GavelPolicy> MakeAlloxPolicy(double alpha) {
  return std::unique_ptr<GavelPolicy>(new AlloxPolicy(alpha));
}

}  // namespace gpufleet::place
