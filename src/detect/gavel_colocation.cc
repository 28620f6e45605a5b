#include "detect/gavel_colocation.h"

#include <filesystem>

#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet::detect {
namespace {

constexpr std::string_view kHeader =
    "accelerator,job_a,job_b,iso_a,iso_b,coloc_a,coloc_b,norm_a,norm_b,combined_norm";
constexpr const char* kFields[] = {"accelerator", "job_a",   "job_b",  "iso_a",  "iso_b",
                                   "coloc_a",     "coloc_b", "norm_a", "norm_b", "combined_norm"};

}  // namespace

StatusOr<CoLocationTable> ParseGavelColocation(std::string_view text, std::string_view origin) {
  CoLocationTable table;
  size_t pos = 0, line_no = 0;
  bool header = false;
  auto fail = [&](std::string what) {
    ++table.bad;
    if (table.errors.size() < 20) {
      table.errors.push_back(std::string(origin) + ":" + std::to_string(line_no) + ": " + what);
    }
  };
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!header) {
      if (line != kHeader) {
        return InvalidArgumentError(std::string(origin) + ":" + std::to_string(line_no) +
                                    ": expected the header " + std::string(kHeader));
      }
      header = true;
      continue;
    }
    const std::vector<std::string_view> f = SplitString(line, ',');
    if (f.size() != std::size(kFields)) {
      fail("expected " + std::to_string(std::size(kFields)) + " fields, found " +
           std::to_string(f.size()));
      continue;
    }
    double v[std::size(kFields)] = {};
    bool ok = true;
    for (size_t i = 3; i < f.size() && ok; ++i) {
      std::optional<double> d = ParseDouble(TrimWhitespace(f[i]));
      if (!d || !(*d >= 0) || *d > 1e12) {
        fail(std::string("field ") + kFields[i] + ": '" + std::string(f[i]) +
             "' is not a non-negative number");
        ok = false;
      } else {
        v[i] = *d;
      }
    }
    if (!ok) continue;
    if (v[7] > 4 || v[8] > 4) {
      fail("field norm_a/norm_b: a co-located throughput over 4x the isolated one");
      continue;
    }
    if (v[7] == 0 || v[8] == 0) {
      ++table.infeasible;
      continue;
    }
    table.pairs.push_back({std::string(f[0]), std::string(f[1]), std::string(f[2]), v[7], v[8]});
  }
  if (!header) return InvalidArgumentError(std::string(origin) + ": empty, no header");
  return table;
}

StatusOr<CoLocationTable> LoadGavelColocation(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return NotFoundError(path +
                         " not found (absolute: " + std::filesystem::absolute(path, ec).string() +
                         "): the Gavel co-location table comes from the project's shared data "
                         "folder, ../shared beside the repository; run from the repository "
                         "root or pass --colocation FILE");
  }
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseGavelColocation(text, path);
}

}  // namespace gpufleet::detect
