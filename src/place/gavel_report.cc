#include "place/gavel_report.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "core/file_util.h"
#include "core/format.h"
#include "place/gavel_cost_bound.h"
#include "place/svg_chart.h"

namespace gpufleet::place {
namespace {

std::vector<std::string_view> SplitComma(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == ',') {
      out.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

StatusOr<double> ParseDouble(std::string_view s, const std::string& where) {
  std::string tmp(s);
  char* end = nullptr;
  const double v = std::strtod(tmp.c_str(), &end);
  if (tmp.empty() || end != tmp.c_str() + tmp.size() || !std::isfinite(v)) {
    return InvalidArgumentError(where + ": expected a number, got \"" + tmp.substr(0, 40) + "\"");
  }
  return v;
}

}  // namespace

// Real line: "continuous-single (Fig.8),avg_JCT_hours,0.40,fifo,17.58".
StatusOr<GavelNotebookJct> ParseGavelNotebookCsv(std::string_view text, std::string_view origin,
                                                 GavelNotebookJct* ftf_rho) {
  GavelNotebookJct out;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string where = std::string(origin) + ":" + std::to_string(line_no);
    const auto f = SplitComma(line);
    if (f.size() != 5) return InvalidArgumentError(where + ": expected 5 fields, got " + std::to_string(f.size()));
    if (line_no == 1 && f[0] == "trace") continue;
    const bool makespan = f[1] == "makespan_hours";
    const bool ftf = f[1] == "avg_FTF_rho_vs_isolated" && ftf_rho != nullptr;
    if (f[1] != "avg_JCT_hours" && !makespan && !ftf) continue;
    std::string trace(f[0]);
    if (const size_t p = trace.find(" ("); p != std::string::npos) trace.resize(p);
    std::string policy(f[3]);
    std::string_view rate_field = f[2];
    if (makespan) {
      // "static-multiple makespan,makespan_hours,num_jobs=100,Gavel (min_total_duration_perf),161.16"
      trace = "static-multiple";
      if (rate_field.substr(0, 9) == "num_jobs=") rate_field.remove_prefix(9);
      if (const size_t open = policy.find('('), close = policy.rfind(')');
          open != std::string::npos && close != std::string::npos && close > open) {
        policy = policy.substr(open + 1, close - open - 1);
      } else {
        for (char& c : policy) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    }
    ASSIGN_OR_RETURN(double rate, ParseDouble(rate_field, where + ": field input_job_rate"));
    ASSIGN_OR_RETURN(double value, ParseDouble(f[4], where + ": field value"));
    (ftf ? *ftf_rho : out)[{trace, policy, std::round(rate * 100) / 100}] = value;
  }
  return out;
}

StatusOr<GavelNotebookJct> LoadGavelNotebookCsv(const std::string& path,
                                                GavelNotebookJct* ftf_rho) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseGavelNotebookCsv(text, path, ftf_rho);
}

namespace {

// The cost bound at a point's average JCT over its measured jobs; nothing
// for a static trace, without prices or when measured jobs did not complete
// (the averages are then over another set of jobs).
Status AddCostBound(const GavelThroughputs& table, const std::vector<GavelSimJob>& jobs,
                    const GavelSimOptions& so, GavelCurvePoint* p) {
  const GavelSimResult& r = p->result;
  if (p->makespan || so.price_usd_per_hour.size() != static_cast<size_t>(table.num_workers()) ||
      r.measured_jobs == 0 || r.completed_measured != r.measured_jobs ||
      so.measure_end > static_cast<int64_t>(jobs.size())) {
    return OkStatus();
  }
  const std::vector<GavelSimJob> measured(jobs.begin() + so.measure_begin,
                                          jobs.begin() + so.measure_end);
  ASSIGN_OR_RETURN(const double fastest_hours, GavelFastestMeanHours(table, measured));
  const double factor = std::max(1.0, r.avg_jct_hours / fastest_hours);
  ASSIGN_OR_RETURN(GavelCostBound b,
                   ComputeGavelCostBound(table, measured, so.price_usd_per_hour, {factor}));
  p->has_cost_bound = true;
  p->cost_bound_alone_usd = b.alone[0].avg_usd;
  p->cost_bound_shared_usd = b.shared[0].avg_usd;
  p->cost_bound_free_partners_usd = b.free_partners[0].avg_usd;
  return OkStatus();
}

}  // namespace

std::string GavelComparedPolicy(const std::string& policy) {
  return policy.substr(0, policy.find(':'));
}

StatusOr<std::vector<GavelCurvePoint>> RunGavelCurve(const GavelThroughputs& table,
                                                     const GavelCurveOptions& options,
                                                     const GavelNotebookJct* expected,
                                                     const GavelNotebookJct* expected_ftf) {
  const bool is_static = options.trace == "static-multiple";
  if (options.trace != "continuous-single" && options.trace != "continuous-multiple" && !is_static) {
    return InvalidArgumentError(
        "trace must be continuous-single, continuous-multiple or static-multiple, got \"" +
        options.trace + "\"");
  }
  RETURN_IF_ERROR(MakeGavelPolicy(options.policy, options.seed).status());
  const std::string gavel_policy = GavelComparedPolicy(options.policy);
  // A rate's key in Gavel's figures (rates to the hundredth, as parsed).
  const auto key_at = [&](double rate) {
    return std::make_tuple(options.trace, gavel_policy, std::round(rate * 100) / 100);
  };
  // Where Gavel's finish-time-fairness figure is compared, its way too: a
  // run of the `isolated` policy on the same jobs.
  const auto compares_ftf = [&](double rate) {
    return !is_static && expected_ftf != nullptr && expected_ftf->count(key_at(rate)) > 0;
  };
  const double factor = options.multi_gpu_execution_factor;
  if (!(factor > 0 && factor <= 1)) {
    return InvalidArgumentError("multi_gpu_execution_factor must be in (0, 1], got " +
                                std::to_string(factor));
  }
  // The jobs are drawn from the table as given; they run on `run_table`.
  const GavelThroughputs& draw_table = options.jobs_table ? *options.jobs_table : table;
  std::optional<GavelThroughputs> slowed;  // isolated throughputs only; pairs keep the table's
  if (factor != 1) {
    slowed = table;
    for (int j = 0; j < slowed->num_job_types(); ++j) {
      if (slowed->job_types()[j].scale_factor < 2) continue;
      for (int w = 0; w < slowed->num_workers(); ++w) {
        slowed->SetIsolated(j, w, slowed->Isolated(j, w) * factor);
      }
    }
  }
  const GavelThroughputs& run_table = slowed ? *slowed : table;
  const size_t n = options.rates_per_hour.size();
  std::vector<GavelCurvePoint> points(n);
  std::vector<Status> errors(n);
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      GavelTraceOptions to;
      GavelSimOptions so = options.sim;
      to.jobs_per_hour = options.rates_per_hour[i];
      to.multi_gpu = options.trace != "continuous-single";
      to.seed = options.seed;
      to.gavel_draws = options.gavel_draws;
      to.num_jobs = static_cast<int>(options.sim.measure_end);
      if (is_static) {
        to.jobs_per_hour = 0;
        to.num_jobs = static_cast<int>(options.rates_per_hour[i]);
        so.measure_begin = 0;
        so.measure_end = to.num_jobs;
      }
      auto jobs = GenerateGavelJobs(draw_table, to);
      if (!jobs.ok()) {
        errors[i] = jobs.status();
        continue;
      }
      auto policy = MakeGavelPolicy(options.policy, options.seed);
      auto r = SimulateGavel(run_table, *jobs, **policy, so);
      if (!r.ok()) {
        errors[i] = r.status();
        continue;
      }
      points[i].result = *r;
      points[i].result.jobs_per_hour = options.rates_per_hour[i];
      points[i].makespan = is_static;
      if (compares_ftf(to.jobs_per_hour)) {
        auto isolated = MakeGavelPolicy("isolated", options.seed);
        auto baseline = SimulateGavel(run_table, *jobs, **isolated, so);
        if (!baseline.ok()) {
          errors[i] = baseline.status();
          continue;
        }
        std::unordered_map<int64_t, double> alone(baseline->measured_jct_s.begin(),
                                                  baseline->measured_jct_s.end());
        double sum = 0;
        int count = 0;
        for (const auto& [id, jct] : r->measured_jct_s) {
          const auto it = alone.find(id);
          if (it == alone.end() || it->second <= 0) continue;
          sum += jct / it->second;
          ++count;
        }
        points[i].has_isolated_run_ftf = count > 0;
        points[i].isolated_run_ftf_rho = count > 0 ? sum / count : 0;
        points[i].isolated_run_jobs = count;
      }
      errors[i] = AddCostBound(run_table, *jobs, so, &points[i]);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, options.threads); ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  for (const Status& s : errors) RETURN_IF_ERROR(s);
  if (expected != nullptr) {
    // Gavel's value at its lowest rate for this trace and policy: the knee reference.
    double lowest_rate = 1e18, lowest_jct = 0;
    for (const auto& [key, v] : *expected) {
      if (std::get<0>(key) == options.trace && std::get<1>(key) == gavel_policy &&
          std::get<2>(key) < lowest_rate) {
        lowest_rate = std::get<2>(key);
        lowest_jct = v;
      }
    }
    for (GavelCurvePoint& p : points) {
      const auto it = expected->find(key_at(p.result.jobs_per_hour));
      if (it == expected->end()) continue;
      p.has_gavel = true;
      p.gavel_jct_hours = it->second;
      p.below_saturation = it->second <= 1.5 * lowest_jct;
    }
  }
  for (GavelCurvePoint& p : points) {
    if (expected_ftf == nullptr) break;
    const auto it = expected_ftf->find(key_at(p.result.jobs_per_hour));
    if (it == expected_ftf->end()) continue;
    p.has_gavel_ftf = true;
    p.gavel_ftf_rho = it->second;
  }
  return points;
}

std::string GavelCurvesToCsv(const std::string& trace, const std::vector<GavelCurvePoint>& points) {
  std::string out =
      "trace,policy,rate_per_hour,avg_jct_hours,gavel_avg_jct_hours,rel_error,avg_cost_usd,"
      "makespan_hours,completed,measured,saturated,allocations,solve_s,avg_ftf_rho,gavel_avg_ftf_"
      "rho,"
      "pair_rounds,pair_oom_rounds,cost_bound_alone_usd,cost_bound_shared_usd,cost_bound_free_"
      "partners_usd,startups,ftf_rho_vs_isolated_run\n";
  for (const GavelCurvePoint& p : points) {
    const GavelSimResult& r = p.result;
    out += trace + "," + r.policy + "," + FormatFixed(r.jobs_per_hour, 2) + "," +
           FormatFixed(r.avg_jct_hours, 2) + "," +
           (p.has_gavel ? FormatFixed(p.gavel_jct_hours, 2) : "") + "," +
           (p.has_gavel ? FormatFixed(p.RelativeError(), 3) : "") + "," +
           FormatFixed(r.avg_cost_usd, 2) + "," + FormatFixed(r.makespan_hours, 2) + "," +
           std::to_string(r.completed_measured) + "," + std::to_string(r.measured_jobs) + "," +
           (r.saturated ? "1" : "0") + "," + std::to_string(r.allocations) + "," +
           FormatFixed(r.solve_seconds, 2) + "," + FormatFixed(r.avg_ftf_rho, 3) + "," +
           (p.has_gavel_ftf ? FormatFixed(p.gavel_ftf_rho, 2) : "") + "," +
           std::to_string(r.pair_rounds) + "," + std::to_string(r.pair_oom_rounds) + "," +
           (p.has_cost_bound ? FormatFixed(p.cost_bound_alone_usd, 2) + "," +
                                   FormatFixed(p.cost_bound_shared_usd, 2) + "," +
                                   FormatFixed(p.cost_bound_free_partners_usd, 2)
                             : ",") +
           "," + std::to_string(r.startups) + "," +
           (p.has_isolated_run_ftf ? FormatFixed(p.isolated_run_ftf_rho, 3) : "") + "\n";
  }
  return out;
}

std::string GavelCurvesToSvg(const std::string& title, const std::vector<GavelCurvePoint>& points) {
  std::vector<std::string> order;
  for (const GavelCurvePoint& p : points) {
    if (std::find(order.begin(), order.end(), p.result.policy) == order.end()) order.push_back(p.result.policy);
  }
  static const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  const double kW = 380, kH = 260, kPad = 50;
  double xmax = 0, jmax = 0, cmax = 0;
  for (const GavelCurvePoint& p : points) {
    xmax = std::max(xmax, p.result.jobs_per_hour);
    jmax = std::max({jmax, std::min(p.result.avg_jct_hours, 200.0), p.has_gavel ? std::min(p.gavel_jct_hours, 200.0) : 0.0});
    cmax = std::max(cmax, p.result.avg_cost_usd);
  }
  xmax = std::max(1.0, std::ceil(xmax));
  jmax = std::max(1.0, jmax * 1.1);
  cmax = std::max(1.0, cmax * 1.1);
  std::string svg =
      SvgChartOpen(2 * (kW + kPad) + kPad, kH + 2 * kPad + 18 * order.size() + 20, kPad, title);
  const char* kPanels[] = {"Average JCT (hours; Gavel's dashed)", "Cost per completed job (USD)"};
  for (int panel = 0; panel < 2; ++panel) {
    const double x0 = kPad + panel * (kW + kPad), y0 = kPad, ymax = panel == 0 ? jmax : cmax;
    svg += SvgPanelFrame(x0, y0, kW, kH, kPanels[panel], "input job rate (jobs/hour)");
    for (int t = 0; t <= 4; ++t) {
      const double xv = xmax * t / 4, x = x0 + kW * t / 4;
      svg += "<text x=\"" + FormatFixed(x - 8, 1) + "\" y=\"" + FormatFixed(y0 + kH + 14, 1) +
             "\">" + FormatFixed(xv, 1) + "</text>\n";
      const double yv = ymax * t / 4, y = y0 + kH - kH * t / 4;
      svg += "<text x=\"" + FormatFixed(x0 - 40, 1) + "\" y=\"" + FormatFixed(y + 4, 1) + "\">" +
             FormatFixed(yv, 1) + "</text>\n";
    }
    for (size_t c = 0; c < order.size(); ++c) {
      std::string ours, gavel;
      for (const GavelCurvePoint& p : points) {
        if (p.result.policy != order[c]) continue;
        const double x = x0 + kW * p.result.jobs_per_hour / xmax;
        const double v = panel == 0 ? std::min(p.result.avg_jct_hours, ymax) : p.result.avg_cost_usd;
        ours += FormatFixed(x, 1) + "," + FormatFixed(y0 + kH - kH * v / ymax, 1) + " ";
        if (panel == 0 && p.has_gavel) {
          gavel += FormatFixed(x, 1) + "," +
                   FormatFixed(y0 + kH - kH * std::min(p.gavel_jct_hours, ymax) / ymax, 1) + " ";
        }
      }
      const char* color = kColors[c % 8];
      svg += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\" points=\"" + ours + "\"/>\n";
      if (!gavel.empty()) {
        svg += "<polyline fill=\"none\" stroke=\"" + std::string(color) +
               "\" stroke-width=\"1.5\" stroke-dasharray=\"5,4\" points=\"" + gavel + "\"/>\n";
      }
    }
  }
  for (size_t c = 0; c < order.size(); ++c) {
    const double y = kPad + kH + 45 + 18 * c;
    svg += "<rect x=\"" + FormatFixed(kPad, 0) + "\" y=\"" + FormatFixed(y - 9, 0) +
           "\" width=\"12\" height=\"10\" fill=\"" + kColors[c % 8] + "\"/><text x=\"" +
           FormatFixed(kPad + 18, 0) + "\" y=\"" + FormatFixed(y, 0) + "\">" + order[c] +
           "</text>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace gpufleet::place
