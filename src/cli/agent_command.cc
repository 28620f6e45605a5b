// gpufleet agent: collect every vendor's GPU telemetry and serve it in the
// canonical schema on /metrics.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_server.h"
#include "agent/collector_set.h"
#include "agent/remote_write_pusher.h"
#include "agent/scrape_source.h"
#include "agent/workload_labels.h"
#include "cli/command.h"
#include "net/url.h"

namespace gpufleet {
namespace {

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

class AgentCommand : public Command {
 public:
  std::string_view name() const override { return "agent"; }
  std::string_view help() const override {
    return "Collect GPU telemetry from every vendor (or a simulated fleet) and serve it in the "
           "canonical schema on /metrics.";
  }

  void Configure(CLI::App& app) override {
    app.add_option("--source", sources_.sources,
                   "Telemetry source, repeatable: auto (probe every vendor), sim, nvml, amd, "
                   "amdsmi, rocm_smi, amdgpu_sysfs, intel, levelzero, intel_sysfs")
        ->check(CLI::IsMember(KnownSources()));
    app.add_option("--scenario", sources_.scenario,
                   "Scenario file for --source sim ('default' = the embedded mixed fleet)");
    app.add_option(
        "--scrape", scrapes_,
        "Also scrape a vendor exporter (dcgm-exporter, AMD device-metrics-exporter, "
        "Intel XPU Manager or xpumd) at this URL or file and serve it translated; repeatable");
    app.add_option("--listen", listen_,
                   "Address to serve /metrics on (and take workloads' step reports, POST "
                   "/api/v1/steps from loopback): host:port, :port or port")
        ->capture_default_str();
    app.add_option("--interval", interval_s_, "Collection interval in seconds")
        ->capture_default_str()
        ->check(CLI::Range(0.05, 3600.0));
    app.add_option("--collect-timeout", timeout_s_,
                   "Seconds a collection may take per device before it counts as hung "
                   "(default: 80% of the interval, at most 5)")
        ->check(CLI::Range(0.01, 60.0));
    app.add_flag("--once", once_,
                 "Collect twice (one interval apart, so rates exist), print the snapshot, exit");
    app.add_option("--format", format_, "Output format for --once: prometheus or openmetrics")
        ->check(CLI::IsMember({"prometheus", "openmetrics"}))
        ->capture_default_str();
    app.add_option("--node", node_.node, "Node label (default: the host name)");
    app.add_option("--cloud", node_.cloud, "Cloud label, e.g. aws");
    app.add_option("--region", node_.region, "Region label, e.g. us-east-1");
    app.add_option("--sysfs-root", sources_.sysfs_root, "Root of sysfs (for the sysfs fallbacks)")
        ->capture_default_str();
    app.add_option("--proc-root", proc_root_,
                   "Root of procfs, for process -> container/pod attribution")
        ->capture_default_str();
    remote_write_.queue_dir = "/var/tmp/gpufleet-agent-remote-write";
    app.add_option("--remote-write", remote_write_.url,
                   "Also push every snapshot by Prometheus remote write to this URL (gpufleet "
                   "server, VictoriaMetrics or Prometheus /api/v1/write)");
    app.add_option("--remote-write-token", remote_write_.bearer_token,
                   "Bearer token for --remote-write (an admin token for a gpufleet server)")
        ->envname("GPUFLEET_REMOTE_WRITE_TOKEN");
    app.add_option("--remote-write-cacert", remote_write_.ca_file,
                   "Trust the CA certificates in this PEM file for an https --remote-write");
    app.add_option("--remote-write-queue", remote_write_.queue_dir,
                   "Directory of the on-disk queue that carries --remote-write over outages")
        ->capture_default_str();
  }

  Status Run() override {
    if (node_.node.empty()) node_.node = HostName();
    // Signals are taken by sigwait below; block them before any thread starts.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    std::vector<std::string> log;
    sources_.other_sources = !scrapes_.empty();
    ASSIGN_OR_RETURN(auto collectors, BuildCollectors(sources_, RealClock::Get(), &log));
    for (const std::string& line : log) std::fprintf(stderr, "gpufleet agent: %s\n", line.c_str());

    AgentOptions options;
    options.node = node_;
    options.interval_ns = static_cast<int64_t>(interval_s_ * kNsPerSecond);
    if (timeout_s_ > 0) options.collect_timeout_ns = static_cast<int64_t>(timeout_s_ * kNsPerSecond);
    auto attributor = std::make_shared<ProcessAttributor>(proc_root_);
    options.enrich = [attributor](std::string_view source, std::span<Sample> samples) {
      AddWorkloadLabels(*attributor, source, samples);
    };
    Agent agent(options, std::move(collectors), RealClock::Get());
    for (const std::string& target : scrapes_) {
      ASSIGN_OR_RETURN(ExtraSource src, NewScrapeSource(target, node_, options.collect_timeout_ns));
      agent.AddExtraSource(std::move(src));
    }
    // Step durations the workloads report (POST /api/v1/steps, loopback).
    StepReports steps(node_);
    agent.AddExtraSource({"steps", [&steps](std::vector<Sample>& out, auto&) {
                            steps.Collect(out, RealClock::Get().NowNs());
                            return OkStatus();
                          }});

    if (once_) {
      agent.CollectOnce();
      std::this_thread::sleep_for(std::chrono::nanoseconds(options.interval_ns));
      agent.CollectOnce();
      std::string out = agent.Render(format_ == "openmetrics" ? ExpositionFormat::kOpenMetrics
                                                              : ExpositionFormat::kPrometheusText);
      std::fwrite(out.data(), 1, out.size(), stdout);
      std::fflush(stdout);
      if (agent.AnyWorkerBusy()) std::_Exit(0);  // a stuck vendor call must not hold us
      return OkStatus();
    }

    ASSIGN_OR_RETURN(ListenAddress listen, ParseListenAddress(listen_));
    AgentServer server(agent, &steps);
    RETURN_IF_ERROR(server.Start(listen.host, listen.port));
    std::thread runner([&agent] { agent.Run(); });
    std::unique_ptr<RemoteWriteForwarder> forwarder;
    std::unique_ptr<RemoteWritePusher> pusher;
    std::thread push_thread;
    if (!remote_write_.url.empty()) {
      auto started = RemoteWriteForwarder::Start(remote_write_);
      if (!started.ok()) {
        agent.Stop();
        server.Stop();
        runner.join();
        return started.status();
      }
      forwarder = std::move(started).value();
      pusher = std::make_unique<RemoteWritePusher>([&agent] { return agent.snapshot(); },
                                                   *forwarder);
      push_thread = std::thread([&] { pusher->Run(options.interval_ns / 4); });
      std::fprintf(stderr, "gpufleet agent: pushing to %s (queue %s)\n",
                   remote_write_.url.c_str(), remote_write_.queue_dir.c_str());
    }
    std::string shown_host = listen.host == "0.0.0.0" ? HostName() : listen.host;
    std::fprintf(stderr, "gpufleet agent: serving http://%s:%d/metrics (health: /healthz); Ctrl-C stops\n",
                 shown_host.c_str(), server.port());
    std::fflush(stderr);

    int sig = 0;
    sigwait(&signals, &sig);
    std::fprintf(stderr, "gpufleet agent: signal %d, stopping\n", sig);
    agent.Stop();
    server.Stop();
    runner.join();
    if (pusher) {
      pusher->Stop();
      push_thread.join();
      forwarder->Stop();  // what is still queued stays on disk for the next start
    }
    if (agent.AnyWorkerBusy()) {
      std::fprintf(stderr, "gpufleet agent: a vendor call is still stuck; exiting without waiting\n");
      std::_Exit(0);
    }
    return OkStatus();
  }

 private:
  SourceOptions sources_;
  std::vector<std::string> scrapes_;
  std::string listen_ = "127.0.0.1:9835";
  double interval_s_ = 1.0;
  double timeout_s_ = 0;
  bool once_ = false;
  std::string format_ = "prometheus";
  NodeIdentity node_;
  std::string proc_root_ = "/proc";
  ForwarderOptions remote_write_;
};

}  // namespace

std::unique_ptr<Command> NewAgentCommand() { return std::make_unique<AgentCommand>(); }

}  // namespace gpufleet
