#include "place/advise.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "place/catalog_throughput.h"

namespace gpufleet::place {
namespace {

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string Where(const std::string& node, const std::string& model) {
  return node + " (" + model + ")";
}

struct Candidate {
  Move move;
  int capacity = -1;
  double saving_usd = 0, saving_hours = 0;
};

}  // namespace

StatusOr<Advice> AdviseMoves(const GavelThroughputs& table, const std::vector<RunningJob>& jobs,
                             std::vector<FreeCapacity> capacity) {
  Advice out;
  std::vector<std::string> models;
  for (const RunningJob& j : jobs) models.push_back(j.gpu_model);
  for (const FreeCapacity& c : capacity) models.push_back(c.gpu_model);

  // Every (job, target) that is worth it, then a greedy pass.
  std::vector<std::vector<Candidate>> per_job(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const RunningJob& j = jobs[i];
    // Gavel measured 1, 2, 4 and 8 GPUs; another count uses the 1-GPU
    // figures: both sides of a move have the same GPUs, so the comparison
    // needs only their ratio (assumed the same at any count).
    int job = table.FindJobType(j.job_type, j.gpus);
    const bool scaled = job < 0;
    if (scaled) job = table.FindJobType(j.job_type, 1);
    if (job < 0) {
      out.skipped.push_back(j.name + ": job_type \"" + j.job_type +
                            "\" is not in the throughput table");
      continue;
    }
    if (j.remaining_steps <= 0) {
      out.skipped.push_back(j.name + ": no remaining steps");
      continue;
    }
    if (j.usd_per_gpu_hour <= 0) {
      out.skipped.push_back(j.name +
                            ": no current price (the cost ledger has no GPU-hours for it)");
      continue;
    }
    ASSIGN_OR_RETURN(std::unique_ptr<CatalogThroughput> model,
                     CatalogThroughput::Create(&table, models, scaled ? 1 : j.gpus));
    StatusOr<ThroughputEstimate> now = model->Estimate(job, j.gpu_model);
    if (!now.ok()) {
      out.skipped.push_back(j.name + ": " + now.status().message());
      continue;
    }
    const double loss = std::clamp(j.contention_loss, 0.0, 0.99);
    const double gpu_factor = scaled ? j.gpus : 1;  // 1-GPU figures scaled to the job's GPUs
    // Steps per second as it runs now (contention included), and without
    // the contention on the same GPUs: a target's rate is the latter times
    // the model's ratio between the two GPU models.
    const bool measured = j.measured_step_s > 0;
    const double now_steps_per_s =
        measured ? 1 / j.measured_step_s : now->steps_per_s * gpu_factor * (1 - loss);
    const double clean_steps_per_s = now_steps_per_s / (1 - loss);
    const double hours_now = j.remaining_steps / now_steps_per_s / 3600;
    const double usd_now = hours_now * j.gpus * j.usd_per_gpu_hour;
    const double migration_minutes = j.checkpoint_minutes + j.startup_minutes;
    for (size_t c = 0; c < capacity.size(); ++c) {
      const FreeCapacity& t = capacity[c];
      if (t.free_gpus < j.gpus || t.usd_per_gpu_hour <= 0 || t.node == j.node ||
          t.canary.failed_diagnostic) {
        continue;
      }
      StatusOr<ThroughputEstimate> there = model->Estimate(job, t.gpu_model);
      if (!there.ok()) continue;
      Candidate k;
      Move& m = k.move;
      m.job = j.name;
      m.from_node = j.node, m.from_model = j.gpu_model;
      m.to_node = t.node, m.to_model = t.gpu_model, m.to_cloud = t.cloud, m.to_region = t.region;
      m.hours_now = hours_now;
      m.usd_now = usd_now;
      m.migration_minutes = migration_minutes;
      m.migration_usd =
          migration_minutes / 60 * j.gpus * std::max(j.usd_per_gpu_hour, t.usd_per_gpu_hour);
      // On the same model with a measured rate the ratio is 1: nothing modelled.
      const bool same_model = t.gpu_model == j.gpu_model;
      const bool modelled = !(measured && same_model);
      const double canary = std::clamp(t.canary.factor, 0.0, 1.0);
      const double there_steps_per_s =
          canary * (same_model ? clean_steps_per_s
                               : clean_steps_per_s * there->steps_per_s / now->steps_per_s);
      if (!(there_steps_per_s > 0)) continue;
      const double run_hours = j.remaining_steps / there_steps_per_s / 3600;
      m.hours_after = migration_minutes / 60 + run_hours;
      m.usd_after = m.migration_usd + run_hours * j.gpus * t.usd_per_gpu_hour;
      m.speedup = there_steps_per_s / now_steps_per_s - 1;
      m.scaled_from_one_gpu = scaled && modelled;
      m.measured_now = measured;
      m.measured_step_s = j.measured_step_s;
      m.step_samples = j.step_samples;
      m.predicted = modelled && (now->basis != ThroughputBasis::kMeasured ||
                                 there->basis != ThroughputBasis::kMeasured);
      m.typical_relative_error =
          m.predicted ? std::max(now->typical_relative_error, there->typical_relative_error) : 0;
      m.target_canary = t.canary.factor < 1 ? t.canary.note : std::string();
      k.capacity = static_cast<int>(c);
      k.saving_usd = m.usd_now - m.usd_after;
      k.saving_hours = m.hours_now - m.hours_after;
      const bool no_worse = k.saving_usd >= 0 && k.saving_hours >= 0;
      if (no_worse && (k.saving_usd > 0.005 || k.saving_hours > 1.0 / 3600))
        per_job[i].push_back(k);
    }
    const auto better = [](const Candidate& a, const Candidate& b) {
      return a.saving_usd != b.saving_usd ? a.saving_usd > b.saving_usd
                                          : a.saving_hours > b.saving_hours;
    };
    std::sort(per_job[i].begin(), per_job[i].end(), better);
    if (per_job[i].empty()) {
      int room = 0;           // other nodes with enough priced free GPUs
      std::string no_target;  // such nodes that failed their canary
      for (const FreeCapacity& t : capacity) {
        if (t.free_gpus < j.gpus || t.node == j.node) continue;
        if (t.canary.failed_diagnostic) {
          no_target += "; " + t.node + " is no target: " + t.canary.note;
        } else {
          room += t.usd_per_gpu_hour > 0;
        }
      }
      std::string why =
          (room == 0 ? "no other node has " + std::to_string(j.gpus) + " free, priced whole GPUs"
                     : "no free capacity saves more than the " + Fmt("%.0f", migration_minutes) +
                           " minutes a move costs") +
          no_target;
      if (!j.canary.note.empty()) why += "; its node's canary: " + j.canary.note;
      out.stays.push_back(
          j.name + ": stays on " + Where(j.node, j.gpu_model) + " (" + why + "; " +
          Fmt("%.1f h", hours_now) + " and " + Fmt("$%.0f", usd_now) + " to finish" +
          (measured ? Fmt(" at its measured %.3g s per step", j.measured_step_s) : std::string()) +
          ")");
    }
  }
  // Greedy: the job whose best move saves most goes first.
  std::vector<size_t> order;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!per_job[i].empty()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return per_job[a].front().saving_usd > per_job[b].front().saving_usd;
  });
  for (size_t i : order) {
    const Candidate* pick = nullptr;
    for (const Candidate& k : per_job[i]) {
      if (capacity[k.capacity].free_gpus >= jobs[i].gpus) {
        pick = &k;
        break;
      }
    }
    if (pick == nullptr) {
      out.stays.push_back(jobs[i].name +
                          ": stays (the free capacity that would pay is taken by a "
                          "bigger saving)");
      continue;
    }
    capacity[pick->capacity].free_gpus -= jobs[i].gpus;
    Move m = pick->move;
    const std::string faster = m.speedup >= 0 ? Fmt("%.0f%% faster", 100 * m.speedup)
                                              : Fmt("%.0f%% slower", -100 * m.speedup);
    const double saved = m.usd_now - m.usd_after;
    m.sentence = "move " + m.job + " from " + Where(m.from_node, m.from_model) + " to " +
                 Where(m.to_node, m.to_model) + ": " + faster + ", " +
                 (saved >= 0.5 ? Fmt("$%.0f cheaper to finish", saved)
                               : std::string("no dearer to finish")) +
                 " (" + Fmt("%.1f h", m.hours_after) + " and " + Fmt("$%.0f", m.usd_after) +
                 " instead of " + Fmt("%.1f h", m.hours_now) + " and " + Fmt("$%.0f", m.usd_now) +
                 "), " +
                 Fmt("%.0f minutes of checkpoint, restore and start-up", m.migration_minutes) +
                 " (" + Fmt("$%.2f", m.migration_usd) + ", counted)";
    if (m.measured_now) {
      m.sentence += Fmt("; current throughput measured (median step %.3g s", m.measured_step_s) +
                    " over " + std::to_string(m.step_samples) + " samples of its step reports)";
    }
    if (!m.target_canary.empty()) {
      m.sentence += "; the target's canary: " + m.target_canary + ", counted";
    }
    if (!jobs[i].canary.note.empty()) {
      m.sentence += "; its node's canary: " + jobs[i].canary.note;
      if (m.measured_now)
        m.sentence += " (in its measured speed, so a move may gain more than shown)";
    }
    if (m.scaled_from_one_gpu) m.sentence += "; 1-GPU throughputs, assumed to scale alike";
    if (m.predicted) {
      m.sentence += std::string(m.measured_now ? "; the ratio between the two GPU models predicted"
                                               : "; throughput predicted") +
                    Fmt(", typically off by %.0f%%", 100 * m.typical_relative_error);
    }
    out.moves.push_back(std::move(m));
  }
  return out;
}

std::string AdviceText(const Advice& a) {
  std::string out;
  if (a.moves.empty()) out += "No move pays for itself.\n";
  for (const Move& m : a.moves) out += m.sentence + "\n";
  for (const std::string& s : a.stays) out += s + "\n";
  for (const std::string& s : a.skipped) out += "not judged: " + s + "\n";
  return out;
}

std::string AdviceJson(const Advice& a) {
  nlohmann::json moves = nlohmann::json::array();
  for (const Move& m : a.moves) {
    moves.push_back({{"job", m.job},
                     {"from_node", m.from_node},
                     {"from_model", m.from_model},
                     {"to_node", m.to_node},
                     {"to_model", m.to_model},
                     {"to_cloud", m.to_cloud},
                     {"to_region", m.to_region},
                     {"hours_now", m.hours_now},
                     {"hours_after", m.hours_after},
                     {"usd_now", m.usd_now},
                     {"usd_after", m.usd_after},
                     {"migration_minutes", m.migration_minutes},
                     {"migration_usd", m.migration_usd},
                     {"speedup", m.speedup},
                     {"measured_now", m.measured_now},
                     {"measured_step_s",
                      m.measured_now ? nlohmann::json(m.measured_step_s) : nlohmann::json(nullptr)},
                     {"step_samples", m.step_samples},
                     {"predicted", m.predicted},
                     {"typical_relative_error", m.typical_relative_error},
                     {"target_canary", m.target_canary.empty() ? nlohmann::json(nullptr)
                                                               : nlohmann::json(m.target_canary)},
                     {"sentence", m.sentence}});
  }
  nlohmann::json j = {{"moves", moves}, {"stays", a.stays}, {"not_judged", a.skipped}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace gpufleet::place
