// gpufleet: one binary, one subcommand per capability.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "core/strings.h"

namespace gpufleet {
namespace {

// Adds "did you mean ...?" to CLI11's errors for unknown flags and commands.
std::string Suggestion(const std::string& message, const CLI::App& app) {
  std::vector<std::string> names;
  const CLI::App* scope = &app;
  for (const CLI::App* sub : app.get_subcommands()) scope = sub;
  for (const CLI::Option* opt : scope->get_options()) {
    for (const std::string& n : opt->get_lnames()) names.push_back("--" + n);
  }
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  // CLI11 quotes the offending argument after "following arguments were not expected: ".
  size_t pos = message.rfind(' ');
  if (pos == std::string::npos) return "";
  std::string word = message.substr(pos + 1);
  std::string_view best = SuggestClosest(word, names);
  return best.empty() ? "" : " (did you mean " + std::string(best) + "?)";
}

int Main(int argc, char** argv) {
  CLI::App app{"gpufleet: a control plane for heterogeneous GPU fleets (NVIDIA, AMD, Intel)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpufleet 0.1.0");

  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(NewAgentCommand());
  commands.push_back(NewTranslateCommand());
  commands.push_back(NewDocsCommand());
  commands.push_back(NewCanaryCommand());
  commands.push_back(NewCompatCommand());
  commands.push_back(NewPlaceCommand());
  commands.push_back(NewAdviseCommand());
  commands.push_back(NewPlanCommand());
  commands.push_back(NewSimCommand());
  commands.push_back(NewRulesCommand());
  commands.push_back(NewDashboardsCommand());
  commands.push_back(NewTraceCommand());
  commands.push_back(NewServerCommand());
  commands.push_back(NewIncidentsCommand());
  commands.push_back(NewCostCommand());
  commands.push_back(NewDetectCommand());
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(std::string(c->name()), std::string(c->help()));
    c->Configure(*sub);
  }

  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (auto& c : commands) names.emplace_back(c->name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string_view best = SuggestClosest(argv[1], names);
      std::fprintf(stderr, "gpufleet: unknown command '%s'%s\nRun 'gpufleet --help' for usage.\n",
                   argv[1], best.empty() ? "" : (" (did you mean " + std::string(best) + "?)").c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) {
      std::string msg = e.what();
      std::fprintf(stderr, "gpufleet: %s%s\nRun 'gpufleet --help' for usage.\n", msg.c_str(),
                   Suggestion(msg, app).c_str());
      return 2;
    }
    return app.exit(e);
  }

  for (auto& c : commands) {
    if (!app.got_subcommand(std::string(c->name()))) continue;
    Status st = c->Run();
    if (!st.ok()) {
      std::fprintf(stderr, "gpufleet %s: %s\n", std::string(c->name()).c_str(),
                   st.ToString().c_str());
      return st.code() == StatusCode::kInvalidArgument ? 2 : 1;
    }
    return 0;
  }
  return 2;
}

}  // namespace
}  // namespace gpufleet

int main(int argc, char** argv) { return gpufleet::Main(argc, argv); }
