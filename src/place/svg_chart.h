// Pieces shared by the simulators' SVG charts (sim_report.cc for placement,
// gavel_report.cc for scheduling): panels side by side, each a box with a
// title above and the x-axis label below.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace gpufleet::place {

// The opening <svg> element and the chart's title at (title_x, 16).
std::string SvgChartOpen(double width, double height, double title_x, std::string_view title);

// One panel's box at (x0, y0), its title above and `x_label` below.
std::string SvgPanelFrame(double x0, double y0, double width, double height, std::string_view title,
                          std::string_view x_label);

}  // namespace gpufleet::place
