#include "trace/clock_alignment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace gpufleet::trace {
namespace {

// (comm, op, seq) as strings so that ids from one pool compare across files.
using CollectiveKey = std::tuple<StringId, StringId, int64_t>;

struct FileCollectives {
  std::map<CollectiveKey, int64_t> end_ns;  // native end time of the op's (first) kernel
  bool inferred = false;                    // any seq was inferred
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) {
    double lower = *std::max_element(v.begin(), v.begin() + mid);
    m = (m + lower) / 2;
  }
  return m;
}

double Rms(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s / static_cast<double>(v.size()));
}

std::string FormatNs(double ns) {
  char buf[64];
  double a = std::fabs(ns);
  if (a >= 1e9) {
    std::snprintf(buf, sizeof(buf), "%+.6f s", ns / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%+.3f ms", ns / 1e6);
  } else {
    std::snprintf(buf, sizeof(buf), "%+.3f us", ns / 1e3);
  }
  return buf;
}

// Out of line: inlined into AlignClocks, GCC 12 warns falsely
// (-Wfree-nonheap-object) on the string append.
[[gnu::noinline]] std::string RejectedNote(const std::string& before, size_t matches,
                                           double rms_ns) {
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "; collective alignment rejected (%zu matches, residual rms %.3f ms)", matches,
                rms_ns / 1e6);
  return before + buf;
}

}  // namespace

void AlignClocks(Timeline& t, const AlignmentOptions& options) {
  const size_t nfiles = t.files.size();
  if (nfiles == 0) return;
  for (SourceFile& f : t.files) {
    f.clock_offset_ns = 0;
    f.clock_drift_ppm = 0;
    f.clock_anchor_ns = 0;
    f.alignment = f.epoch_clock ? "epoch (" + f.clock_source + ")"
                                : "none (" + (f.clock_source.empty() ? std::string("native clock")
                                                                      : f.clock_source) + ")";
  }

  std::vector<FileCollectives> per_file(nfiles);
  if (options.use_collectives) {
    for (const Event& e : t.events) {
      if (e.collective == kNoCollective) continue;
      const Collective& c = t.collectives[e.collective];
      if (c.seq < 0) continue;
      uint32_t file = t.processes[t.tracks[e.track].process].file;
      if (file >= nfiles) continue;
      per_file[file].end_ns.emplace(CollectiveKey{c.comm, c.op, c.seq}, e.end_ns());
      if (c.seq_inferred) per_file[file].inferred = true;
    }
  }

  // Reference: the requested file, else an epoch-clock file with the most
  // collectives, else the file with the most collectives.
  int ref = options.reference_file;
  if (ref < 0 || static_cast<size_t>(ref) >= nfiles) {
    ref = 0;
    auto score = [&](size_t i) {
      return std::make_pair(t.files[i].epoch_clock ? 1 : 0, per_file[i].end_ns.size());
    };
    for (size_t i = 1; i < nfiles; ++i) {
      if (score(i) > score(static_cast<size_t>(ref))) ref = static_cast<int>(i);
    }
  }

  std::vector<int64_t> offset(nfiles, 0);
  std::vector<double> drift(nfiles, 0);
  std::vector<int64_t> anchor(nfiles, 0);
  bool any_shift = false;
  const auto& ref_ends = per_file[ref].end_ns;
  for (size_t f = 0; f < nfiles; ++f) {
    if (static_cast<int>(f) == ref || ref_ends.empty()) continue;
    std::vector<double> x, d;  // native end, reference end - native end
    for (const auto& [key, end] : per_file[f].end_ns) {
      auto it = ref_ends.find(key);
      if (it == ref_ends.end()) continue;
      x.push_back(static_cast<double>(end));
      d.push_back(static_cast<double>(it->second - end));
    }
    // Inferred sequence numbers (ordinals) can pair the wrong ops when a
    // file misses one; ask for a few more matches before trusting them.
    bool inferred = per_file[f].inferred || per_file[ref].inferred;
    size_t need = std::max<size_t>(options.min_matches, inferred ? 3 : 1);
    if (x.size() < need) continue;
    double median = Median(d);
    std::vector<double> resid(d.size());
    for (size_t i = 0; i < d.size(); ++i) resid[i] = d[i] - median;
    double rms_const = Rms(resid);
    std::string how = "collective ends vs " + t.files[ref].path + ", " +
                      std::to_string(x.size()) + " matches" +
                      (inferred ? ", inferred seq" : "");
    int64_t off = std::llround(median);
    double ppm = 0;
    int64_t anc = 0;
    if (options.fit_drift && x.size() >= options.min_drift_matches) {
      // Least squares d = a + b (x - mean x), centred for conditioning.
      double mx = 0, md = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        mx += x[i];
        md += d[i];
      }
      mx /= static_cast<double>(x.size());
      md /= static_cast<double>(x.size());
      double sxx = 0, sxd = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxd += (x[i] - mx) * (d[i] - md);
      }
      if (sxx > 0) {
        double b = sxd / sxx;
        std::vector<double> lr(d.size());
        for (size_t i = 0; i < d.size(); ++i) lr[i] = d[i] - (md + b * (x[i] - mx));
        double rms_lin = Rms(lr);
        // Keep the line only when it explains the spread clearly better and
        // the rate is physically plausible for a clock (< 1000 ppm).
        if (rms_lin < 0.5 * rms_const && std::fabs(b) < 1e-3) {
          anc = std::llround(mx);
          off = std::llround(md);
          ppm = b * 1e6;
          how += ", drift fit";
          rms_const = rms_lin;
        }
      }
    }
    // Ends that still scatter by more than a millisecond were not the same
    // operations (or not blocking ones): keep the file's own clock.
    constexpr double kMaxResidualNs = 1e6;
    if (rms_const > kMaxResidualNs) {
      t.files[f].alignment = RejectedNote(t.files[f].alignment, x.size(), rms_const);
      continue;
    }
    char resid_buf[64];
    std::snprintf(resid_buf, sizeof(resid_buf), ", residual rms %.3f us", rms_const / 1e3);
    how += resid_buf;
    offset[f] = off;
    drift[f] = ppm;
    anchor[f] = anc;
    t.files[f].clock_offset_ns = off;
    t.files[f].clock_drift_ppm = ppm;
    t.files[f].clock_anchor_ns = anc;
    t.files[f].alignment = how;
    any_shift = any_shift || off != 0 || ppm != 0;
  }
  if (per_file[ref].end_ns.size() > 0 && nfiles > 1) {
    t.files[ref].alignment += " (alignment reference)";
  }
  if (!any_shift) return;

  for (Event& e : t.events) {
    uint32_t file = t.processes[t.tracks[e.track].process].file;
    if (file >= nfiles) continue;
    int64_t native = e.start_ns;
    int64_t shift = offset[file];
    if (drift[file] != 0) {
      shift += std::llround(drift[file] * 1e-6 * static_cast<double>(native - anchor[file]));
      // The end moves by the drift too; durations stretch accordingly.
      double end_from_anchor = static_cast<double>(e.end_ns() - anchor[file]);
      int64_t end_shift = offset[file] + std::llround(drift[file] * 1e-6 * end_from_anchor);
      e.dur_ns = std::max<int64_t>(0, e.dur_ns + end_shift - shift);
    }
    e.start_ns = native + shift;
  }
  std::stable_sort(t.events.begin(), t.events.end(), [](const Event& a, const Event& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.track < b.track;
  });
}

std::string FormatAlignment(const Timeline& t) {
  std::string out;
  for (const SourceFile& f : t.files) {
    out += f.path + ": " + FormatNs(static_cast<double>(f.clock_offset_ns));
    if (f.clock_drift_ppm != 0) {
      char buf[48];
      std::snprintf(buf, sizeof(buf), ", drift %+.3f ppm", f.clock_drift_ppm);
      out += buf;
    }
    out += " (" + f.alignment + ")\n";
  }
  return out;
}

}  // namespace gpufleet::trace
