#include "place/svg_chart.h"

#include "core/format.h"

namespace gpufleet::place {

std::string SvgChartOpen(double width, double height, double title_x, std::string_view title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + FormatFixed(width, 0) +
         "\" height=\"" + FormatFixed(height, 0) +
         "\" font-family=\"sans-serif\" font-size=\"11\">\n<text x=\"" + FormatFixed(title_x, 0) +
         "\" y=\"16\" font-size=\"14\">" + std::string(title) + "</text>\n";
}

std::string SvgPanelFrame(double x0, double y0, double width, double height, std::string_view title,
                          std::string_view x_label) {
  return "<rect x=\"" + FormatFixed(x0, 1) + "\" y=\"" + FormatFixed(y0, 1) + "\" width=\"" +
         FormatFixed(width, 1) + "\" height=\"" + FormatFixed(height, 1) +
         "\" fill=\"none\" stroke=\"#444\"/>\n<text x=\"" + FormatFixed(x0, 1) + "\" y=\"" +
         FormatFixed(y0 - 6, 1) + "\">" + std::string(title) + "</text>\n<text x=\"" +
         FormatFixed(x0 + width / 2 - 60, 1) + "\" y=\"" + FormatFixed(y0 + height + 28, 1) +
         "\">" + std::string(x_label) + "</text>\n";
}

}  // namespace gpufleet::place
