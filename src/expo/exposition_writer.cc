#include "expo/exposition_writer.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/strings.h"

namespace gpufleet {
namespace {

constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kOpenMetricsContentType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

std::string_view Trim(std::string_view s) { return TrimWhitespace(s); }

// HELP text: text 0.0.4 escapes \\ and \n; OpenMetrics also \".
void AppendEscapedHelp(std::string_view help, bool openmetrics, std::string& out) {
  for (char c : help) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '"':
        if (openmetrics) {
          out += "\\\"";
        } else {
          out += c;
        }
        break;
      default:
        out += c;
    }
  }
}

// OpenMetrics timestamps are seconds; print milliseconds exactly as
// "<seconds>.<3 digits>" rather than through a double.
void AppendSecondsFromMs(int64_t ms, std::string& out) {
  uint64_t mag = ms < 0 ? static_cast<uint64_t>(-(ms + 1)) + 1 : static_cast<uint64_t>(ms);
  char buf[40];
  int n = std::snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%03" PRIu64, ms < 0 ? "-" : "", mag / 1000,
                        mag % 1000);
  out.append(buf, static_cast<size_t>(n));
}

}  // namespace

ExpositionFormat NegotiateExpositionFormat(std::string_view accept_header) {
  // Compare the best q-value of OpenMetrics with that of text 0.0.4 (or a
  // wildcard), e.g. Prometheus 2.x sends
  //   application/openmetrics-text;version=1.0.0,application/openmetrics-text;
  //   version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1
  double q_om = 0;
  double q_text = 0;
  for (std::string_view range : SplitString(accept_header, ',')) {
    std::vector<std::string_view> parts = SplitString(range, ';');
    std::string_view type = Trim(parts[0]);
    double q = 1.0;
    for (size_t i = 1; i < parts.size(); ++i) {
      std::string_view param = Trim(parts[i]);
      if (param.size() > 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
        std::optional<double> v = ParseDouble(Trim(param.substr(2)));
        q = v && *v >= 0 && *v <= 1 ? *v : 0;
      }
    }
    if (EqualsIgnoreCase(type, "application/openmetrics-text")) {
      q_om = std::max(q_om, q);
    } else if (EqualsIgnoreCase(type, "text/plain") || type == "*/*" ||
               EqualsIgnoreCase(type, "text/*")) {
      q_text = std::max(q_text, q);
    }
  }
  return q_om > 0 && q_om >= q_text ? ExpositionFormat::kOpenMetrics
                                    : ExpositionFormat::kPrometheusText;
}

std::string_view ContentTypeFor(ExpositionFormat format) {
  return format == ExpositionFormat::kOpenMetrics ? kOpenMetricsContentType : kTextContentType;
}

void ExpositionWriter::BeginFamily(const FamilyMeta& meta) {
  std::string& out = *out_;
  std::string_view type = meta.type.empty() ? std::string_view("untyped") : meta.type;
  if (format_ == ExpositionFormat::kPrometheusText) {
    if (type == "info") type = "gauge";
    if (type == "unknown") type = "untyped";
    if (!meta.help.empty()) {
      out += "# HELP ";
      out += meta.name;
      out += ' ';
      AppendEscapedHelp(meta.help, false, out);
      out += '\n';
    }
    out += "# TYPE ";
    out += meta.name;
    out += ' ';
    out += type;
    out += '\n';
    return;
  }
  // OpenMetrics: the family name drops the sample suffix its type implies. A
  // counter or info family whose samples lack that suffix cannot be expressed
  // with that type, so it is served as "unknown" / "gauge" instead.
  std::string_view family = meta.name;
  if (type == "untyped") type = "unknown";
  if (type == "counter") {
    if (EndsWith(family, "_total")) {
      family.remove_suffix(6);
    } else {
      type = "unknown";
    }
  } else if (type == "info") {
    if (EndsWith(family, "_info")) {
      family.remove_suffix(5);
    } else {
      type = "gauge";
    }
  }
  out += "# TYPE ";
  out += family;
  out += ' ';
  out += type;
  out += '\n';
  // UNIT must be a suffix of the family name; a mismatching one is dropped
  // because a consumer would reject the whole exposition.
  if (!meta.unit.empty() && family.size() > meta.unit.size() && EndsWith(family, meta.unit) &&
      family[family.size() - meta.unit.size() - 1] == '_') {
    out += "# UNIT ";
    out += family;
    out += ' ';
    out += meta.unit;
    out += '\n';
  }
  if (!meta.help.empty()) {
    out += "# HELP ";
    out += family;
    out += ' ';
    AppendEscapedHelp(meta.help, true, out);
    out += '\n';
  }
}

void ExpositionWriter::WriteSample(std::string_view name, const Labels& labels, double value,
                                   std::optional<int64_t> timestamp_ms) {
  std::string& out = *out_;
  out += name;
  AppendLabelList(labels.pairs(), out);
  out += ' ';
  AppendDouble(value, out);
  if (timestamp_ms) {
    out += ' ';
    if (format_ == ExpositionFormat::kOpenMetrics) {
      AppendSecondsFromMs(*timestamp_ms, out);
    } else {
      out += std::to_string(*timestamp_ms);
    }
  }
  out += '\n';
}

void ExpositionWriter::Finish() {
  if (format_ == ExpositionFormat::kOpenMetrics) *out_ += "# EOF\n";
}

void WriteExposition(std::span<const Sample> samples, ExpositionFormat format,
                     const std::function<FamilyMeta(std::string_view)>& meta_for,
                     std::string* out) {
  // Families in order of first appearance; samples keep their order within one.
  std::unordered_map<std::string_view, size_t> family_index;
  std::vector<std::vector<const Sample*>> families;
  for (const Sample& s : samples) {
    auto [it, inserted] = family_index.try_emplace(s.name, families.size());
    if (inserted) families.emplace_back();
    families[it->second].push_back(&s);
  }
  ExpositionWriter writer(format, out);
  for (const auto& family : families) {
    FamilyMeta meta = meta_for(family.front()->name);
    if (meta.name.empty()) meta.name = family.front()->name;
    writer.BeginFamily(meta);
    for (const Sample* s : family) writer.WriteSample(s->name, s->labels, s->value);
  }
  writer.Finish();
}

}  // namespace gpufleet
