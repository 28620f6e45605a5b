// gpufleet compat check: checks a node's software stack, optionally with an
// image's declared stack and a workload's requirements, against the
// compatibility tables compiled in from data/compat/. Exit 0 = compatible
// (warnings allowed), 1 = incompatible, 2 = bad input.
#include <cstdio>
#include <ctime>
#include <optional>

#include "cli/command.h"
#include "compat/compat_check.h"
#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet {
namespace {

// Flag values as given; applied over the TOML files' values.
struct VersionFlag {
  const char* flag;
  std::string value;
};

class CompatCommand : public Command {
 public:
  std::string_view name() const override { return "compat"; }
  std::string_view help() const override {
    return "Check driver / CUDA / ROCm / NCCL / RCCL / Fabric Manager compatibility of a node, an "
           "image and a workload: gpufleet compat check --node FILE [--image FILE] [--workload "
           "FILE].";
  }

  void Configure(CLI::App& app) override {
    // "check" is a positional rather than a nested subcommand so that flags
    // live on this command and main()'s "did you mean" sees them.
    app.add_option("action", action_,
                   "check: check a node (--node FILE or flags), optionally an image (--image "
                   "FILE or --image-* flags) and a workload (--workload FILE). Exit 0 compatible, "
                   "1 incompatible, 2 bad input.")
        ->required()
        ->check(CLI::IsMember({"check"}));
    CLI::App& c = app;
    c.add_option("--node", node_file_, "Node stack TOML (format: docs/compat.md)");
    c.add_option("--image", image_file_, "Image stack TOML");
    c.add_option("--workload", workload_file_, "Workload requirements TOML");
    c.add_flag("--json", json_, "Print findings as JSON");
    c.add_option("--today", today_, "YYYY-MM for driver end-of-life checks (default: this month)");
    c.add_option("--name", node_name_, "Node name");
    c.add_option("--gpu", gpu_, "GPU model, e.g. H100-SXM5, MI300X");
    c.add_option("--os", os_, "Node OS, e.g. 'Ubuntu 22.04.4'");
    c.add_option("--kernel", kernel_, "Node kernel release, e.g. 6.8.0-45-generic");
    c.add_flag("--nvswitch", nvswitch_, "Node is an NVSwitch (HGX/DGX) system");
    for (VersionFlag* f :
         {&driver_, &driver_kmod_, &cuda_, &fabric_manager_, &nccl_, &rocm_, &rocm_kmd_,
          &amdgpu_driver_, &rccl_, &image_cuda_, &image_rocm_, &image_nccl_, &image_rccl_}) {
      c.add_option(f->flag, f->value, std::string("Version for ") + (f->flag + 2));
    }
    c.add_option("--image-cuda-archs", image_cuda_archs_,
                 "Image device code, comma-separated: sm_90,compute_90");
    c.add_option("--image-gfx", image_gfx_, "Image offload targets, comma-separated: gfx942");
    c.add_flag("--image-forward-compat", image_forward_compat_,
               "Image ships cuda-compat (CUDA forward compatibility)");
  }

  Status Run() override {
    NodeStack node;
    bool node_flags = false;
    if (!node_file_.empty()) {
      ASSIGN_OR_RETURN(node, LoadFile(node_file_, &ParseNodeStack));
    }
    RETURN_IF_ERROR(ApplyNodeFlags(&node, &node_flags));
    if (node_file_.empty() && !node_flags) {
      return InvalidArgumentError(
          "compat check: give --node FILE or node flags (--gpu, --driver, --cuda, --rocm, ...)");
    }
    std::optional<ImageStack> image;
    if (!image_file_.empty()) {
      ASSIGN_OR_RETURN(image, LoadFile(image_file_, &ParseImageStack));
    }
    RETURN_IF_ERROR(ApplyImageFlags(&image));
    std::optional<WorkloadRequirements> workload;
    if (!workload_file_.empty()) {
      ASSIGN_OR_RETURN(workload, LoadFile(workload_file_, &ParseWorkloadRequirements));
    }
    CompatOptions opts;
    opts.today = today_.empty() ? ThisMonth() : today_;
    if (opts.today.size() != 7 || opts.today[4] != '-') {
      return InvalidArgumentError("--today: expected YYYY-MM, got '" + opts.today + "'");
    }
    CompatReport report = CheckCompat(CompatCatalog::Default(), node, image ? &*image : nullptr,
                                      workload ? &*workload : nullptr, opts);
    std::string out = json_ ? FormatCompatJson(report) : FormatCompatTable(report);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    if (!report.compatible()) {
      return FailedPreconditionError("incompatible: " + std::to_string(report.errors()) +
                                     " error(s)");
    }
    return OkStatus();
  }

 private:
  template <typename T>
  static StatusOr<T> LoadFile(const std::string& path,
                              StatusOr<T> (*parse)(std::string_view, std::string_view)) {
    auto text = ReadFileToString(path);
    // An unreadable input file is bad input (exit 2), like a malformed one.
    if (!text.ok()) return InvalidArgumentError(text.status().message());
    return parse(*text, path);
  }

  static Status FlagVersion(const VersionFlag& f, Version* out, bool* set) {
    if (f.value.empty()) return OkStatus();
    auto v = Version::Parse(f.value);
    if (!v.ok()) return InvalidArgumentError(std::string(f.flag) + ": " + v.status().message());
    *out = std::move(v).value();
    *set = true;
    return OkStatus();
  }

  static Status FlagPackage(const VersionFlag& f, PackageVersion* out, bool* set) {
    if (f.value.empty()) return OkStatus();
    auto v = ParsePackageVersion(f.value);
    if (!v.ok()) return InvalidArgumentError(std::string(f.flag) + ": " + v.status().message());
    *out = std::move(v).value();
    *set = true;
    return OkStatus();
  }

  Status ApplyNodeFlags(NodeStack* n, bool* any) {
    auto str = [&](const std::string& v, std::string* out) {
      if (v.empty()) return;
      *out = v;
      *any = true;
    };
    str(node_name_, &n->name);
    str(gpu_, &n->gpu);
    str(os_, &n->os);
    str(kernel_, &n->kernel);
    if (nvswitch_) n->nvswitch = *any = true;
    RETURN_IF_ERROR(FlagVersion(driver_, &n->driver, any));
    RETURN_IF_ERROR(FlagVersion(driver_kmod_, &n->driver_kernel_module, any));
    RETURN_IF_ERROR(FlagVersion(cuda_, &n->cuda, any));
    Version fm;
    RETURN_IF_ERROR(FlagVersion(fabric_manager_, &fm, any));
    if (!fm.empty()) n->fabric_manager = fm.text();
    RETURN_IF_ERROR(FlagPackage(nccl_, &n->nccl, any));
    RETURN_IF_ERROR(FlagVersion(rocm_, &n->rocm, any));
    RETURN_IF_ERROR(FlagVersion(rocm_kmd_, &n->rocm_kmd, any));
    RETURN_IF_ERROR(FlagVersion(amdgpu_driver_, &n->amdgpu_driver, any));
    return FlagVersion(rccl_, &n->rccl, any);
  }

  Status ApplyImageFlags(std::optional<ImageStack>* image) {
    ImageStack im = image->has_value() ? **image : ImageStack();
    bool any = false;
    RETURN_IF_ERROR(FlagVersion(image_cuda_, &im.cuda, &any));
    RETURN_IF_ERROR(FlagVersion(image_rocm_, &im.rocm, &any));
    RETURN_IF_ERROR(FlagPackage(image_nccl_, &im.nccl, &any));
    RETURN_IF_ERROR(FlagVersion(image_rccl_, &im.rccl, &any));
    if (image_forward_compat_) im.cuda_forward_compat = any = true;
    if (!image_cuda_archs_.empty()) {
      im.cuda_archs.clear();
      for (std::string_view a : SplitString(image_cuda_archs_, ',')) {
        Status st = ValidateCudaArch(TrimWhitespace(a));
        if (!st.ok()) return InvalidArgumentError("--image-cuda-archs: " + st.message());
        im.cuda_archs.emplace_back(TrimWhitespace(a));
      }
      any = true;
    }
    if (!image_gfx_.empty()) {
      im.gfx_targets.clear();
      for (std::string_view t : SplitString(image_gfx_, ',')) {
        Status st = ValidateGfxTarget(TrimWhitespace(t));
        if (!st.ok()) return InvalidArgumentError("--image-gfx: " + st.message());
        im.gfx_targets.emplace_back(TrimWhitespace(t));
      }
      any = true;
    }
    if (any || image->has_value()) *image = std::move(im);
    return OkStatus();
  }

  static std::string ThisMonth() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m", &tm);
    return buf;
  }

  std::string action_;
  std::string node_file_, image_file_, workload_file_, today_;
  bool json_ = false;
  std::string node_name_, gpu_, os_, kernel_;
  bool nvswitch_ = false;
  VersionFlag driver_{"--driver", ""}, driver_kmod_{"--driver-kernel-module", ""},
      cuda_{"--cuda", ""}, fabric_manager_{"--fabric-manager", ""}, nccl_{"--nccl", ""},
      rocm_{"--rocm", ""}, rocm_kmd_{"--rocm-kmd", ""}, amdgpu_driver_{"--amdgpu-driver", ""},
      rccl_{"--rccl", ""}, image_cuda_{"--image-cuda", ""}, image_rocm_{"--image-rocm", ""},
      image_nccl_{"--image-nccl", ""}, image_rccl_{"--image-rccl", ""};
  std::string image_cuda_archs_, image_gfx_;
  bool image_forward_compat_ = false;
};

}  // namespace

std::unique_ptr<Command> NewCompatCommand() { return std::make_unique<CompatCommand>(); }

}  // namespace gpufleet
