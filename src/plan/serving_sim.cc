#include "plan/serving_sim.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <queue>
#include <vector>

namespace gpufleet::plan {
namespace {

enum EventKind { kIterEnd = 0, kKvArrive = 1 };

struct Event {
  double t;
  int kind;
  int inst;
  int req;
  bool operator>(const Event& o) const { return t > o.t || (t == o.t && kind > o.kind); }
};

// Times between tokens in bins of 1/64 of each power of two (0.8-1.6%
// wide) from 2^-20 s to 2^12 s; a quantile is its bin's upper edge, so at
// most 1.6% high. Counts, not values: a long trace costs no memory and no
// sort, and binning needs no logarithm.
class GapHistogram {
 public:
  void Add(double gap_s, double n) {
    int e = 0;
    const double m = std::frexp(std::max(gap_s, 0.0), &e);  // gap = m 2^e, m in [0.5, 1)
    const int sub = static_cast<int>((m - 0.5) * 128);
    const int b = std::clamp((e - kMinExp) * 64 + sub, 0, kBins - 1);
    counts_[static_cast<size_t>(b)] += n;
    total_ += n;
  }
  double Quantile(double q) const {
    if (total_ <= 0) return 0;
    double seen = 0;
    int b = 0;
    for (; b < kBins - 1; ++b) {
      seen += counts_[static_cast<size_t>(b)];
      if (seen >= q * total_) break;
    }
    return std::ldexp(0.5 + (b % 64 + 1) / 128.0, b / 64 + kMinExp);
  }

 private:
  static constexpr int kMinExp = -19;  // bins start at 2^-20 s
  static constexpr int kBins = 64 * 32;
  std::vector<double> counts_ = std::vector<double>(kBins, 0.0);
  double total_ = 0;
};

struct ReqState {
  double first_token_s = -1;
  double finish_s = -1;
  bool failed = false;
};

struct Instance {
  bool decode_pool = false;
  bool busy = false;
  std::deque<int> waiting;
  std::vector<int> prefill_batch;  // of the iteration in flight
  bool doing_prefill = false;
  // Mixed / chunked iteration in flight: (request, prompt tokens it carries).
  std::vector<std::pair<int, int>> mixed;
  bool doing_mixed = false;
  int partial = -1;      // chunked: the request whose prompt is part done
  int partial_done = 0;  // its prompt tokens already prefilled
  int64_t step = 0;
  // (finishing step, request), soonest first.
  std::priority_queue<std::pair<int64_t, int>, std::vector<std::pair<int64_t, int>>, std::greater<>>
      finishing;
  int running = 0;
  double ctx_sum = 0;
  double kv_used = 0;
  // Time between tokens: the running requests that got a token at
  // last_emit get their next one together; those that joined since wait
  // from their first token.
  double last_emit = 0;
  std::vector<double> joined_at;  // first-token times of requests joined since last_emit
};

struct Pool {
  const PoolSpec* spec = nullptr;
  std::optional<StepCost> cost;  // its GPU type's steps for the model
  int first = 0;  // index of its first instance
  double kv_capacity = 0;
};

class Sim {
 public:
  Sim(const RequestTrace& trace, const ServingConfig& cfg, const Slo& slo, bool abort_early)
      : trace_(trace), cfg_(cfg), slo_(slo), abort_early_(abort_early) {}

  StatusOr<SimResult> Run();

 private:
  int Route(const Pool& pool) const;
  // Where a prefill (or colocated) instance takes its prompts from: its own
  // queue, or the pool's shared one.
  std::deque<int>& Queue(Instance& in) {
    return cfg_.shared_queue && !in.decode_pool ? shared_ : in.waiting;
  }
  void Start(int i, double now);
  bool StartMixed(int i, double now);
  void EndIteration(int i, double now);
  void AdvanceDecodes(Instance& in, double now);
  void Join(int i, int r, double now);
  void CountOutcome(int r);

  const RequestTrace& trace_;
  const ServingConfig& cfg_;
  const Slo& slo_;
  const bool abort_early_;
  std::vector<Instance> inst_;
  Pool pre_, dec_;
  std::vector<ReqState> st_;
  std::deque<int> shared_;  // the prefill pool's queue when shared
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  int violations_ = 0;
  int max_violations_ = 0;
  double transfer_sum_ = 0;
  int transfers_ = 0;
  GapHistogram gaps_;
};

int Sim::Route(const Pool& pool) const {
  int best = pool.first;
  size_t best_load = SIZE_MAX;
  for (int i = pool.first; i < pool.first + pool.spec->count; ++i) {
    size_t load = inst_[i].waiting.size() + static_cast<size_t>(inst_[i].running) +
                  inst_[i].prefill_batch.size() + inst_[i].mixed.size();
    if (load < best_load) {
      best_load = load;
      best = i;
    }
  }
  return best;
}

double Reserve(const Request& q) { return static_cast<double>(q.prompt_tokens) + q.output_tokens; }

void Sim::Join(int i, int r, double now) {
  Instance& in = inst_[i];
  const Request& q = trace_.requests[r];
  if (q.output_tokens <= 1) {
    st_[r].finish_s = now;
    in.kv_used -= Reserve(q);
    CountOutcome(r);
    return;
  }
  ++in.running;
  in.ctx_sum += q.prompt_tokens + 1;
  in.finishing.push({in.step + q.output_tokens - 1, r});
  in.joined_at.push_back(st_[r].first_token_s);
}

void Sim::CountOutcome(int r) {
  const ReqState& s = st_[r];
  const Request& q = trace_.requests[r];
  if (s.failed) {
    ++violations_;
    return;
  }
  double ttft = s.first_token_s - q.arrival_s;
  double tpot = q.output_tokens > 1 && !cfg_.prefill_only
                    ? (s.finish_s - s.first_token_s) / (q.output_tokens - 1)
                    : 0;
  if (ttft > slo_.ttft_s || tpot > slo_.tpot_s) ++violations_;
}

void Sim::Start(int i, double now) {
  Instance& in = inst_[i];
  const Pool& pool = in.decode_pool ? dec_ : pre_;
  const StepCost& cost = *pool.cost;
  in.doing_prefill = false;
  in.doing_mixed = false;
  std::deque<int>& waiting = Queue(in);
  if (cfg_.defer_late && !in.decode_pool && !waiting.empty()) {
    std::stable_partition(waiting.begin(), waiting.end(), [&](int r) {
      const Request& q = trace_.requests[r];
      const double p = q.prompt_tokens;
      return q.arrival_s + slo_.ttft_s >= now + cost.PrefillS(p, p * p);
    });
  }
  if (!cfg_.disaggregated && cfg_.batching != Batching::kPrefillFirst) {
    in.busy = StartMixed(i, now);
    return;
  }
  if (in.decode_pool) {
    // Admit transferred requests while the KV cache and batch allow.
    while (!in.waiting.empty() && in.running < cfg_.max_batch_requests &&
           in.kv_used + Reserve(trace_.requests[in.waiting.front()]) <= pool.kv_capacity) {
      int r = in.waiting.front();
      in.waiting.pop_front();
      in.kv_used += Reserve(trace_.requests[r]);
      Join(i, r, now);
    }
  } else if (!waiting.empty()) {
    double tokens = 0, sumsq = 0;
    const bool colocated = !cfg_.disaggregated;
    while (!waiting.empty()) {
      const Request& q = trace_.requests[waiting.front()];
      double need = colocated ? Reserve(q) : q.prompt_tokens;
      bool first = in.prefill_batch.empty();
      if (!first && tokens + q.prompt_tokens > cfg_.max_batch_tokens) break;
      if (in.kv_used + need > pool.kv_capacity) break;
      if (colocated &&
          in.running + static_cast<int>(in.prefill_batch.size()) >= cfg_.max_batch_requests)
        break;
      in.kv_used += need;
      tokens += q.prompt_tokens;
      sumsq += static_cast<double>(q.prompt_tokens) * q.prompt_tokens;
      in.prefill_batch.push_back(waiting.front());
      waiting.pop_front();
    }
    if (!in.prefill_batch.empty()) {
      in.doing_prefill = true;
      in.busy = true;
      events_.push({now + cost.PrefillS(tokens, sumsq), kIterEnd, i, -1});
      return;
    }
  }
  if (in.running > 0) {
    in.busy = true;
    events_.push({now + cost.DecodeS(in.running, in.ctx_sum), kIterEnd, i, -1});
    return;
  }
  in.busy = false;
}

// One iteration of every running request and of the prompts (whole or
// chunks) that the token budget leaves room for; false when there is
// nothing to run.
bool Sim::StartMixed(int i, double now) {
  Instance& in = inst_[i];
  const StepCost& cost = *pre_.cost;
  const bool chunked = cfg_.batching == Batching::kChunked;
  in.mixed.clear();
  double tokens = 0, sumsq = 0;
  double left = cfg_.mixed_token_budget - in.running;
  // A chunk of `n` tokens after `done` pays the attention of its rows
  // against everything before it: (done + n)^2 - done^2.
  auto add = [&](int r, int done, int n) {
    in.mixed.push_back({r, n});
    tokens += n;
    sumsq += static_cast<double>(n) * (2.0 * done + n);
    left -= n;
  };
  bool cut = in.partial >= 0;  // a prompt is cut: the ones behind it wait
  if (cut && left > 0) {
    int rest = trace_.requests[in.partial].prompt_tokens - in.partial_done;
    add(in.partial, in.partial_done, static_cast<int>(std::min<double>(rest, left)));
    cut = rest > in.mixed.back().second;
  }
  std::deque<int>& waiting = Queue(in);
  while (!waiting.empty() && !cut) {
    const Request& q = trace_.requests[waiting.front()];
    const bool first = in.mixed.empty();
    if (chunked ? left <= 0 : (!first && q.prompt_tokens > left)) break;
    if (in.kv_used + Reserve(q) > pre_.kv_capacity) break;
    if (in.running + static_cast<int>(in.mixed.size()) >= cfg_.max_batch_requests) break;
    int r = waiting.front();
    waiting.pop_front();
    in.kv_used += Reserve(q);
    if (chunked && q.prompt_tokens > left) {
      in.partial = r;
      in.partial_done = 0;
      add(r, 0, static_cast<int>(left));
      break;
    }
    add(r, 0, q.prompt_tokens);
  }
  double d = in.running;
  double t;
  if (!in.mixed.empty()) {
    t = cost.PrefillS(tokens + d, sumsq);
    if (d > 0) t += cost.DecodeS(d, in.ctx_sum) - cost.DecodeS(d, 0);
  } else if (d > 0) {
    t = cost.DecodeS(d, in.ctx_sum);
  } else {
    return false;
  }
  in.doing_mixed = true;
  events_.push({now + t, kIterEnd, i, -1});
  return true;
}

// The running requests have one more token; those that are done leave.
void Sim::AdvanceDecodes(Instance& in, double now) {
  const int continuing = in.running - static_cast<int>(in.joined_at.size());
  if (continuing > 0) gaps_.Add(now - in.last_emit, continuing);
  for (double t : in.joined_at) gaps_.Add(now - t, 1);
  in.joined_at.clear();
  in.last_emit = now;
  ++in.step;
  in.ctx_sum += in.running;
  while (!in.finishing.empty() && in.finishing.top().first <= in.step) {
    int r = in.finishing.top().second;
    in.finishing.pop();
    const Request& q = trace_.requests[r];
    --in.running;
    in.ctx_sum -= q.prompt_tokens + q.output_tokens;
    in.kv_used -= Reserve(q);
    st_[r].finish_s = now;
    CountOutcome(r);
  }
}

void Sim::EndIteration(int i, double now) {
  Instance& in = inst_[i];
  if (in.doing_mixed) {
    AdvanceDecodes(in, now);
    for (const auto& [r, n] : in.mixed) {
      if (r == in.partial) {
        in.partial_done += n;
        if (in.partial_done < trace_.requests[r].prompt_tokens) continue;
        in.partial = -1;
      }
      st_[r].first_token_s = now;
      Join(i, r, now);
    }
    in.mixed.clear();
  } else if (in.doing_prefill) {
    std::vector<int> batch;
    batch.swap(in.prefill_batch);
    for (int r : batch) {
      st_[r].first_token_s = now;
      const Request& q = trace_.requests[r];
      if (!cfg_.disaggregated) {
        Join(i, r, now);
        continue;
      }
      in.kv_used -= q.prompt_tokens;
      if (q.output_tokens <= 1 || cfg_.prefill_only) {
        st_[r].finish_s = now;
        CountOutcome(r);
        continue;
      }
      double xfer = q.prompt_tokens * cfg_.model.KvBytesPerToken() / cfg_.kv_link_bytes_per_s;
      transfer_sum_ += xfer;
      ++transfers_;
      events_.push({now + xfer, kKvArrive, Route(dec_), r});
    }
  } else {
    AdvanceDecodes(in, now);
  }
  Start(i, now);
}

StatusOr<SimResult> Sim::Run() {
  const ModelSpec& m = cfg_.model;
  pre_.spec = &cfg_.prefill;
  dec_.spec = cfg_.disaggregated ? &cfg_.decode : &cfg_.prefill;
  for (const Pool* p : {&pre_, &dec_}) {
    if (p->spec->latency == nullptr || p->spec->count < 1 || p->spec->tp < 1) {
      return InvalidArgumentError(
          "serving plan: every pool needs a GPU type, TP >= 1 and count >= 1");
    }
  }
  for (Pool* p : {&pre_, &dec_}) p->cost.emplace(*p->spec->latency, m, p->spec->tp);
  pre_.kv_capacity = KvCapacityTokens(m, cfg_.prefill, cfg_.memory_util);
  dec_.kv_capacity = KvCapacityTokens(m, *dec_.spec, cfg_.memory_util);
  SimResult res;
  res.requests = static_cast<int>(trace_.requests.size());
  if (pre_.kv_capacity <= 0 || dec_.kv_capacity <= 0) {
    res.why = "the weights do not fit in the instance's memory";
    return res;
  }
  for (int k = 0; k < cfg_.prefill.count; ++k) inst_.push_back(Instance{});
  if (cfg_.disaggregated) {
    dec_.first = cfg_.prefill.count;
    for (int k = 0; k < cfg_.decode.count; ++k) {
      inst_.push_back(Instance{});
      inst_.back().decode_pool = true;
    }
  }
  st_.assign(trace_.requests.size(), ReqState{});
  max_violations_ = static_cast<int>(std::floor((1 - slo_.attainment) * res.requests));
  size_t next = 0;
  const size_t n = trace_.requests.size();
  while (next < n || !events_.empty()) {
    if (abort_early_ && violations_ > max_violations_) {
      res.aborted = true;
      break;
    }
    bool arrival =
        next < n && (events_.empty() || trace_.requests[next].arrival_s <= events_.top().t);
    if (arrival) {
      int r = static_cast<int>(next++);
      const Request& q = trace_.requests[r];
      double now = q.arrival_s;
      double need = cfg_.disaggregated ? q.prompt_tokens : Reserve(q);
      if (need > pre_.kv_capacity || (cfg_.disaggregated && Reserve(q) > dec_.kv_capacity)) {
        st_[r].failed = true;
        ++res.failed;
        CountOutcome(r);
        continue;
      }
      if (cfg_.shared_queue) {
        shared_.push_back(r);
        for (int i = pre_.first; i < pre_.first + pre_.spec->count && !shared_.empty(); ++i) {
          if (!inst_[i].busy) Start(i, now);
        }
        continue;
      }
      int i = Route(pre_);
      inst_[i].waiting.push_back(r);
      if (!inst_[i].busy) Start(i, now);
      continue;
    }
    Event e = events_.top();
    events_.pop();
    if (e.kind == kIterEnd) {
      EndIteration(e.inst, e.t);
    } else {
      inst_[e.inst].waiting.push_back(e.req);
      if (!inst_[e.inst].busy) Start(e.inst, e.t);
    }
  }
  // Figures.
  std::vector<double> ttft, tpot;
  double first = n ? trace_.requests[0].arrival_s : 0, last = first;
  int within = 0;
  for (size_t r = 0; r < n; ++r) {
    const ReqState& s = st_[r];
    const Request& q = trace_.requests[r];
    if (s.failed || s.finish_s < 0) continue;
    ++res.completed;
    double a = s.first_token_s - q.arrival_s;
    double b = q.output_tokens > 1 && !cfg_.prefill_only
                   ? (s.finish_s - s.first_token_s) / (q.output_tokens - 1)
                   : 0;
    ttft.push_back(a);
    tpot.push_back(b);
    if (a <= slo_.ttft_s && b <= slo_.tpot_s) ++within;
    last = std::max(last, s.finish_s);
    res.tokens += Reserve(q);
  }
  auto pct = [](std::vector<double>& v, double q) {
    if (v.empty()) return 0.0;
    size_t k = std::min(v.size() - 1, static_cast<size_t>(std::ceil(q * v.size())) - 1);
    std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
    return v[k];
  };
  res.ttft_p50_s = pct(ttft, 0.5);
  res.ttft_p99_s = pct(ttft, 0.99);
  res.tpot_p50_s = pct(tpot, 0.5);
  res.tpot_p99_s = pct(tpot, 0.99);
  res.tbt_p50_s = gaps_.Quantile(0.5);
  res.tbt_p99_s = gaps_.Quantile(0.99);
  res.attainment = n ? static_cast<double>(within) / static_cast<double>(n) : 1;
  res.span_s = last - first;
  res.throughput_tokens_per_s = res.span_s > 0 ? res.tokens / res.span_s : 0;
  res.kv_capacity_tokens = dec_.kv_capacity;
  res.kv_transfer_s_mean = transfers_ ? transfer_sum_ / transfers_ : 0;
  res.gpus = cfg_.prefill.count * cfg_.prefill.tp +
             (cfg_.disaggregated ? cfg_.decode.count * cfg_.decode.tp : 0);
  res.usd_per_hour =
      cfg_.prefill.count * cfg_.prefill.tp * cfg_.prefill.price_usd_per_hour +
      (cfg_.disaggregated ? cfg_.decode.count * cfg_.decode.tp * cfg_.decode.price_usd_per_hour
                          : 0);
  res.usd_per_mtoken =
      res.tokens > 0 ? res.usd_per_hour * res.span_s / 3600.0 / res.tokens * 1e6 : 0;
  // The quantile goals over the whole trace (0 = none).
  const bool quantiles = (slo_.ttft_p50_s <= 0 || res.ttft_p50_s <= slo_.ttft_p50_s) &&
                         (slo_.tpot_p50_s <= 0 || res.tpot_p50_s <= slo_.tpot_p50_s) &&
                         (slo_.tbt_p99_s <= 0 || res.tbt_p99_s <= slo_.tbt_p99_s);
  res.ok = !res.aborted && res.attainment >= slo_.attainment && quantiles;
  if (res.aborted)
    res.why = "stopped early: more than the allowed share of requests missed the SLO";
  else if (!res.ok)
    res.why = "SLO missed";
  return res;
}

}  // namespace

const char* BatchingName(Batching b) {
  switch (b) {
    case Batching::kPrefillFirst:
      return "prefill-first";
    case Batching::kMixed:
      return "mixed";
    case Batching::kChunked:
      return "chunked";
  }
  return "?";
}

StatusOr<Batching> ParseBatching(const std::string& s) {
  for (Batching b : {Batching::kPrefillFirst, Batching::kMixed, Batching::kChunked}) {
    if (s == BatchingName(b)) return b;
  }
  return InvalidArgumentError("batching \"" + s + "\": expected prefill-first, mixed or chunked");
}

double KvCapacityTokens(const ModelSpec& m, const PoolSpec& p, double memory_util) {
  if (p.latency == nullptr) return 0;
  double free = p.tp * p.latency->peaks.memory_bytes * memory_util - m.WeightBytes();
  return free > 0 ? free / m.KvBytesPerToken() : 0;
}

StatusOr<SimResult> Simulate(const RequestTrace& trace, const ServingConfig& cfg, const Slo& slo,
                             bool abort_early) {
  Sim sim(trace, cfg, slo, abort_early);
  return sim.Run();
}

}  // namespace gpufleet::plan
