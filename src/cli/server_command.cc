// gpufleet server: the central receiver. Takes remote write from agents (or
// scrapes them), keeps recent samples in memory, runs the detectors, keeps
// incidents and inventory in SQLite, alerts Alertmanager and webhooks, and
// forwards everything to long-term storage. --simulate runs a simulated mixed
// fleet in process on a sped-up clock.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "server/fleet_simulator.h"
#include "server/server.h"

namespace gpufleet {
namespace {

class ServerCommand : public Command {
 public:
  std::string_view name() const override { return "server"; }
  std::string_view help() const override {
    return "Run the gpufleet server: remote-write receiver, detectors, incidents, alerts "
           "(see docs/server.md).";
  }
  void Configure(CLI::App& app) override {
    app.add_option("--config", config_path_,
                   "Server config (TOML, same shape as data/server/default.toml)");
    app.add_option("--listen", listen_, "host:port to serve on (default 127.0.0.1:9840)");
    app.add_option("--db", db_, "SQLite state database (default gpufleet.db)");
    app.add_option("--token", token_,
                   "Admin bearer token: required on writes (and reads beyond loopback); "
                   "overrides the config's token")
        ->envname("GPUFLEET_ADMIN_TOKEN");
    app.add_option("--token-file", token_file_,
                   "File of admin tokens, one a line (overrides the config's token_file)");
    app.add_option("--read-token", read_tokens_,
                   "Read-only bearer token, repeatable (adds to the config's read_tokens)")
        ->envname("GPUFLEET_READ_TOKENS")
        ->delimiter(',');
    app.add_option("--read-token-file", read_token_file_,
                   "File of read-only tokens, one a line (overrides the config's)");
    app.add_option("--tls-cert", tls_cert_,
                   "Serve HTTPS with this PEM certificate (chain) file ([tls] cert_file)");
    app.add_option("--tls-key", tls_key_, "Its PEM private key file ([tls] key_file)");
    app.add_option("--alertmanager", alertmanagers_,
                   "Alertmanager base URL, repeatable (adds to the config)");
    app.add_option("--forward", forward_,
                   "Remote-write URL of long-term storage (overrides the config)");
    app.add_option("--simulate", simulate_,
                   "Feed a simulated mixed fleet in process: a scenario file or 'default'");
    app.add_option("--speedup", speedup_,
                   "With --simulate: how many times faster than real time the fleet runs")
        ->check(CLI::Range(1.0, 10000.0))
        ->capture_default_str();
  }

  Status Run() override {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    ServerOptions options;
    ASSIGN_OR_RETURN(options.config, LoadServerConfig(config_path_));
    if (!listen_.empty()) options.config.listen = listen_;
    if (!db_.empty()) options.config.db_path = db_;
    if (!token_.empty()) options.config.token = token_;
    if (!token_file_.empty()) options.config.token_file = token_file_;
    for (const std::string& t : read_tokens_) options.config.read_tokens.push_back(t);
    if (!read_token_file_.empty()) options.config.read_token_file = read_token_file_;
    if (!tls_cert_.empty()) options.config.tls_cert_file = tls_cert_;
    if (!tls_key_.empty()) options.config.tls_key_file = tls_key_;
    if (!forward_.empty()) options.config.forward_url = forward_;
    for (const std::string& a : alertmanagers_) options.config.alertmanager_urls.push_back(a);
    std::unique_ptr<ScaledClock> clock;
    if (!simulate_.empty()) {
      clock = std::make_unique<ScaledClock>(speedup_);
      options.clock = clock.get();
      options.time_scale = speedup_;
      // The default fleet's nodes have site prices (teams, owners, rates).
      if (simulate_ == "default" && options.config.cost_prices.empty()) {
        options.config.cost_prices = "embedded:prices/demo.toml";
      }
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(options));
    std::unique_ptr<FleetSimulator> sim;
    if (clock != nullptr) {
      ASSIGN_OR_RETURN(sim, FleetSimulator::Create(simulate_, *clock, server->ingester()));
    }
    RETURN_IF_ERROR(server->Start());
    if (sim != nullptr) sim->Start();
    std::fprintf(stderr,
                 "gpufleet server: listening on %s (port %d), state in %s%s; Ctrl-C stops\n",
                 options.config.listen.c_str(), server->port(), options.config.db_path.c_str(),
                 sim != nullptr ? ", simulated fleet running" : "");
    // The console is on the same port (docs/console.md).
    std::string host = options.config.listen.substr(0, options.config.listen.rfind(':'));
    if (host.empty() || host == "0.0.0.0" || host == "[::]") host = "127.0.0.1";
    std::fprintf(stderr, "gpufleet server: web console at %s://%s:%d/\n",
                 server->tls() ? "https" : "http", host.c_str(), server->port());
    std::fflush(stderr);
    int sig = 0;
    sigwait(&signals, &sig);
    std::fprintf(stderr, "gpufleet server: signal %d, stopping\n", sig);
    if (sim != nullptr) sim->Stop();
    server->Stop();
    return OkStatus();
  }

 private:
  std::string config_path_;
  std::string listen_;
  std::string db_;
  std::string token_;
  std::string token_file_;
  std::vector<std::string> read_tokens_;
  std::string read_token_file_;
  std::string tls_cert_;
  std::string tls_key_;
  std::string forward_;
  std::vector<std::string> alertmanagers_;
  std::string simulate_;
  double speedup_ = 30;
};

}  // namespace

std::unique_ptr<Command> NewServerCommand() { return std::make_unique<ServerCommand>(); }

}  // namespace gpufleet
