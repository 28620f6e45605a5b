// CSV and SVG renderings of simulator curves.
#include <algorithm>
#include <cstdio>
#include <map>

#include "core/format.h"
#include "core/strings.h"
#include "place/simulator.h"
#include "place/svg_chart.h"

namespace gpufleet::place {
namespace {

struct MeanCurve {
  std::vector<double> sum[3];
  std::vector<int> n;
};

}  // namespace

std::string CurvesToCsv(const std::vector<SimResult>& results) {
  std::string out = "policy,seed,arrived_pct,alloc_pct,frag_pct,frag_ratio_pct\n";
  for (const SimResult& r : results) {
    for (const SimPoint& p : r.curve) {
      if (p.samples == 0) continue;
      out += r.policy + "," + std::to_string(r.seed) + "," + std::to_string(p.arrived_pct) + "," +
             FormatFixed(p.alloc_pct, 3) + "," + FormatFixed(p.frag_pct, 3) + "," +
             FormatFixed(p.frag_ratio_pct, 3) + "\n";
    }
  }
  return out;
}

std::string CurvesToSvg(const std::vector<SimResult>& results, const std::string& title) {
  // Seed means per policy, in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, MeanCurve> means;
  for (const SimResult& r : results) {
    auto [it, inserted] = means.try_emplace(r.policy);
    if (inserted) order.push_back(r.policy);
    MeanCurve& m = it->second;
    if (m.n.size() < r.curve.size()) {
      for (auto& s : m.sum) s.resize(r.curve.size());
      m.n.resize(r.curve.size());
    }
    for (size_t p = 0; p < r.curve.size(); ++p) {
      if (r.curve[p].samples == 0) continue;
      m.sum[0][p] += r.curve[p].alloc_pct;
      m.sum[1][p] += r.curve[p].frag_pct;
      m.sum[2][p] += r.curve[p].frag_ratio_pct;
      ++m.n[p];
    }
  }
  static const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  static const char* kPanels[] = {"GPU allocation (%)", "Fragmentation (% of capacity)",
                                  "Fragmentation (% of idle GPUs)"};
  const double kW = 360, kH = 260, kPad = 45;
  std::string svg =
      SvgChartOpen(3 * (kW + kPad) + kPad, kH + 2 * kPad + 20 * order.size(), kPad, title);
  for (int panel = 0; panel < 3; ++panel) {
    double x0 = kPad + panel * (kW + kPad), y0 = kPad;
    double ymax = 0;
    for (const auto& [name, m] : means) {
      for (size_t p = 0; p < m.n.size(); ++p) {
        if (m.n[p] > 0) ymax = std::max(ymax, m.sum[panel][p] / m.n[p]);
      }
    }
    ymax = panel == 0 || panel == 2 ? 100.0 : std::max(1.0, ymax * 1.1);
    svg += SvgPanelFrame(x0, y0, kW, kH, kPanels[panel], "arrived workload (% of GPU capacity)");
    for (int t = 0; t <= 130; t += 26) {
      double x = x0 + kW * t / 130.0;
      svg += "<text x=\"" + FormatFixed(x - 8, 1) + "\" y=\"" + FormatFixed(y0 + kH + 14, 1) +
             "\">" + std::to_string(t) + "</text>\n";
    }
    for (int t = 0; t <= 4; ++t) {
      double v = ymax * t / 4, y = y0 + kH - kH * t / 4;
      svg += "<text x=\"" + FormatFixed(x0 - 36, 1) + "\" y=\"" + FormatFixed(y + 4, 1) + "\">" +
             FormatFixed(v, 1) + "</text>\n";
    }
    for (size_t c = 0; c < order.size(); ++c) {
      const MeanCurve& m = means[order[c]];
      std::string pts;
      for (size_t p = 0; p < m.n.size(); ++p) {
        if (m.n[p] == 0) continue;
        double v = m.sum[panel][p] / m.n[p];
        pts += FormatFixed(x0 + kW * static_cast<double>(p) / 130.0, 1) + "," +
               FormatFixed(y0 + kH - kH * std::min(v, ymax) / ymax, 1) + " ";
      }
      svg += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" +
             std::string(kColors[c % 8]) + "\" points=\"" + pts + "\"/>\n";
    }
  }
  for (size_t c = 0; c < order.size(); ++c) {
    double y = kH + 2 * kPad + 14 * c + 4;
    svg += "<rect x=\"" + FormatFixed(kPad, 0) + "\" y=\"" + FormatFixed(y - 8, 1) +
           "\" width=\"14\" height=\"4\" fill=\"" + kColors[c % 8] + "\"/><text x=\"" +
           FormatFixed(kPad + 20, 0) + "\" y=\"" + FormatFixed(y, 1) + "\">" + order[c] +
           "</text>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace gpufleet::place
