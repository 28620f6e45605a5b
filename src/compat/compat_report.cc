// Text and JSON renderings of a CompatReport (cli prints them).
#include <cstdio>

#include "compat/compat_check.h"

namespace gpufleet {

namespace {

constexpr size_t kRuleWidth = 28;

std::string Pad(std::string_view s, size_t width) {
  std::string out(s);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out + " ";
}

void AppendJsonString(std::string_view s, std::string& out) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string Verdict(const CompatReport& r) {
  auto plural = [](int n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  return std::string("result: ") + (r.compatible() ? "compatible" : "INCOMPATIBLE") + " (" +
         plural(r.errors(), "error") + ", " + plural(r.warnings(), "warning") + ")\n";
}

}  // namespace

std::string FormatCompatTable(const CompatReport& report) {
  std::string out;
  if (report.findings.empty()) {
    out += "no findings\n";
  } else {
    out += Pad("SEVERITY", 8) + Pad("RULE", kRuleWidth) + "FINDING\n";
    std::string indent(8 + 1 + kRuleWidth + 1, ' ');
    for (const CompatFinding& f : report.findings) {
      out += Pad(CompatSeverityName(f.severity), 8) + Pad(f.rule, kRuleWidth) + f.message + "\n";
      out += indent + "source: " + f.source.file;
      if (!f.source.url.empty()) out += " <" + f.source.url + ">";
      out += "\n";
    }
  }
  return out + Verdict(report);
}

std::string FormatCompatJson(const CompatReport& report) {
  std::string out = "{\"compatible\":";
  out += report.compatible() ? "true" : "false";
  out += ",\"errors\":" + std::to_string(report.errors());
  out += ",\"warnings\":" + std::to_string(report.warnings());
  out += ",\"findings\":[";
  bool first = true;
  for (const CompatFinding& f : report.findings) {
    if (!first) out += ",";
    first = false;
    out += "{\"rule\":";
    AppendJsonString(f.rule, out);
    out += ",\"severity\":";
    AppendJsonString(CompatSeverityName(f.severity), out);
    out += ",\"message\":";
    AppendJsonString(f.message, out);
    out += ",\"source_file\":";
    AppendJsonString(f.source.file, out);
    out += ",\"source_url\":";
    AppendJsonString(f.source.url, out);
    out += "}";
  }
  out += "]}\n";
  return out;
}

}  // namespace gpufleet
