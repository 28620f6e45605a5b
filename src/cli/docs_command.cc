// gpufleet docs metrics: prints docs/metrics.md, generated from the catalog.
#include <cstdio>

#include "cli/command.h"
#include "schema/metric_catalog.h"

namespace gpufleet {
namespace {

class DocsCommand : public Command {
 public:
  std::string_view name() const override { return "docs"; }
  std::string_view help() const override {
    return "Print generated reference docs (metrics: the canonical metric catalog as Markdown).";
  }
  void Configure(CLI::App& app) override {
    app.add_option("topic", topic_, "What to print: metrics")
        ->required()
        ->check(CLI::IsMember({"metrics"}));
  }
  Status Run() override {
    std::string md = MetricCatalog::Default().RenderMarkdown();
    std::fwrite(md.data(), 1, md.size(), stdout);
    return OkStatus();
  }

 private:
  std::string topic_;
};

}  // namespace

std::unique_ptr<Command> NewDocsCommand() { return std::make_unique<DocsCommand>(); }

}  // namespace gpufleet
