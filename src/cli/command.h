// One gpufleet subcommand: its name, help, flags and Run(). main() owns
// parsing; commands hold no logic beyond turning flags into library calls.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/status.h"

namespace gpufleet {

class Command {
 public:
  virtual ~Command() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view help() const = 0;
  // Declares the command's flags and positionals on `app`.
  virtual void Configure(CLI::App& app) = 0;
  virtual Status Run() = 0;
};

std::unique_ptr<Command> NewAgentCommand();
std::unique_ptr<Command> NewTranslateCommand();
std::unique_ptr<Command> NewDocsCommand();
std::unique_ptr<Command> NewCanaryCommand();
std::unique_ptr<Command> NewCompatCommand();
std::unique_ptr<Command> NewSimCommand();
std::unique_ptr<Command> NewRulesCommand();
std::unique_ptr<Command> NewDashboardsCommand();
std::unique_ptr<Command> NewSimDetectCommand();  // hosted by `sim` as `sim detect`
std::unique_ptr<Command> NewSimGavelCommand();   // hosted by `sim` as `sim gavel`
std::unique_ptr<Command> NewTraceCommand();
std::unique_ptr<Command> NewServerCommand();
std::unique_ptr<Command> NewIncidentsCommand();
std::unique_ptr<Command> NewCostCommand();
std::unique_ptr<Command> NewDetectCommand();
std::unique_ptr<Command> NewPlaceCommand();
std::unique_ptr<Command> NewPlaceSlurmCommand();  // hosted by `place` as `place slurm`
std::unique_ptr<Command> NewPlanCommand();
std::unique_ptr<Command> NewAdviseCommand();


}  // namespace gpufleet
