#include "dashboards/dashboard_set.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "cost/cost_metrics.h"
#include "cost/price_book.h"
#include "dashboards/promql_refs.h"
#include "detect/rules_export.h"
#include "normalize/normalizer.h"

namespace gpufleet::dashboards {
namespace {

using json = nlohmann::json;

std::vector<GeneratedDashboard> Built() {
  StatusOr<std::vector<GeneratedDashboard>> set =
      BuildDashboards(MetricCatalog::Default(), detect::DefaultDetectConfig());
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : std::vector<GeneratedDashboard>{};
}

std::vector<const json*> Panels(const json& d) {
  std::vector<const json*> out;
  for (const json& p : d["panels"]) out.push_back(&p);
  return out;
}

TEST(DashboardSetTest, SixDashboardsWithTheGrafanaModelsFields) {
  const std::vector<GeneratedDashboard> set = Built();
  ASSERT_EQ(set.size(), 6u);
  std::set<std::string> uids;
  for (const GeneratedDashboard& d : set) {
    const json& j = d.json;
    EXPECT_TRUE(uids.insert(j["uid"].get<std::string>()).second) << j["uid"];
    EXPECT_LE(j["uid"].get<std::string>().size(), 40u);  // Grafana's uid limit
    EXPECT_TRUE(j["schemaVersion"].is_number_integer());
    EXPECT_TRUE(j["id"].is_null());  // assigned by Grafana on import
    EXPECT_FALSE(j["title"].get<std::string>().empty());
    EXPECT_TRUE(j["panels"].is_array());
    EXPECT_FALSE(j["panels"].empty());
  }
}

TEST(DashboardSetTest, EveryDashboardHasTheFleetVariables) {
  for (const GeneratedDashboard& d : Built()) {
    std::map<std::string, json> vars;
    for (const json& v : d.json["templating"]["list"]) vars[v["name"]] = v;
    ASSERT_TRUE(vars.count("datasource")) << d.file_name;
    EXPECT_EQ(vars["datasource"]["type"], "datasource");
    EXPECT_EQ(vars["datasource"]["query"], "prometheus");
    for (const char* name : {"vendor", "cloud", "model", "node", "team"}) {
      ASSERT_TRUE(vars.count(name)) << d.file_name << " lacks $" << name;
      const json& v = vars[name];
      EXPECT_EQ(v["type"], "query");
      EXPECT_EQ(v["datasource"]["uid"], "${datasource}");
      EXPECT_EQ(v["allValue"], ".*");
      EXPECT_EQ(v["definition"].get<std::string>().rfind("label_values(", 0), 0u);
    }
  }
}

TEST(DashboardSetTest, EveryPanelHasAQueryOnTheDataSourceVariable) {
  for (const GeneratedDashboard& d : Built()) {
    for (const json* p : Panels(d.json)) {
      if ((*p)["type"] == "row") continue;
      ASSERT_FALSE((*p)["targets"].empty()) << d.file_name << ": " << (*p)["title"];
      EXPECT_EQ((*p)["datasource"]["uid"], "${datasource}");
      std::set<std::string> ref_ids;
      for (const json& t : (*p)["targets"]) {
        EXPECT_FALSE(t["expr"].get<std::string>().empty()) << (*p)["title"];
        EXPECT_EQ(t["datasource"]["uid"], "${datasource}");
        EXPECT_TRUE(ref_ids.insert(t["refId"].get<std::string>()).second);
      }
    }
  }
}

// Independent of the exporter's own check: names from the catalog, every
// `- alert:` line of the real rules export, the series the real cost renderer
// writes for a metered device, and the server names (which the integration
// test checks against a running server).
TEST(DashboardSetTest, EveryQueriedMetricExists) {
  std::set<std::string> known;
  for (const MetricDef& m : MetricCatalog::Default().metrics()) known.insert(m.name);
  known.insert("ALERTS");
  std::set<std::string> alerts;
  std::istringstream rules(detect::ExportPrometheusRules(detect::DefaultDetectConfig(), "t"));
  for (std::string line; std::getline(rules, line);) {
    const size_t at = line.find("- alert: ");
    if (at != std::string::npos) alerts.insert(line.substr(at + 9));
  }
  ASSERT_FALSE(alerts.empty());
  cost::MeteredDevice dev;
  dev.node = "n";
  dev.cloud = "aws";
  dev.region = "us-east-1";
  dev.model = "NVIDIA H100 80GB HBM3";
  dev.gpu_uuid = "GPU-1";
  dev.key = "k";
  std::istringstream cost(cost::RenderCostMetrics({dev}, cost::PriceBook(), {{"k", 0.5}}));
  for (std::string line; std::getline(cost, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      known.insert(line.substr(7, line.find(' ', 7) - 7));
    } else if (!line.empty() && line[0] != '#') {
      known.insert(line.substr(0, line.find_first_of("{ ")));
    }
  }
  for (const std::string& s : ServerMetricNames()) known.insert(s);

  size_t queries = 0;
  size_t annotations = 0;
  for (const GeneratedDashboard& d : Built()) {
    std::vector<std::pair<std::string, std::string>> exprs;  // (where, expr)
    for (const json& a : d.json["annotations"]["list"]) {
      if (!a.contains("expr")) continue;
      exprs.emplace_back("annotation " + a["name"].get<std::string>(), a["expr"]);
      ++annotations;
    }
    for (const json* p : Panels(d.json)) {
      if ((*p)["type"] == "row") continue;
      for (const json& t : (*p)["targets"]) exprs.emplace_back((*p)["title"], t["expr"]);
    }
    for (const auto& [where, expr] : exprs) {
      {
        StatusOr<PromqlRefs> refs = ExtractPromqlRefs(expr);
        ASSERT_TRUE(refs.ok()) << refs.status().message();
        ++queries;
        for (const std::string& m : refs->metrics) {
          EXPECT_TRUE(known.count(m)) << d.file_name << " / " << where << ": " << m;
        }
        for (const LabelMatcher& lm : refs->matchers) {
          if (lm.label != "alertname") continue;
          std::istringstream names(lm.value);
          for (std::string n; std::getline(names, n, '|');) EXPECT_TRUE(alerts.count(n)) << n;
        }
      }
    }
  }
  EXPECT_GT(queries, 100u);
  EXPECT_GE(annotations, 1u);  // the contention dashboard marks rule alerts
}

TEST(DashboardSetTest, NoTwoPanelsOverlap) {
  for (const GeneratedDashboard& d : Built()) {
    const std::vector<const json*> panels = Panels(d.json);
    for (size_t i = 0; i < panels.size(); ++i) {
      const json& a = (*panels[i])["gridPos"];
      EXPECT_GE(a["x"].get<int>(), 0);
      EXPECT_LE(a["x"].get<int>() + a["w"].get<int>(), 24) << d.file_name;
      for (size_t j = i + 1; j < panels.size(); ++j) {
        const json& b = (*panels[j])["gridPos"];
        const bool apart = a["x"].get<int>() + a["w"].get<int>() <= b["x"].get<int>() ||
                           b["x"].get<int>() + b["w"].get<int>() <= a["x"].get<int>() ||
                           a["y"].get<int>() + a["h"].get<int>() <= b["y"].get<int>() ||
                           b["y"].get<int>() + b["h"].get<int>() <= a["y"].get<int>();
        EXPECT_TRUE(apart) << d.file_name << ": " << (*panels[i])["title"] << " overlaps "
                           << (*panels[j])["title"];
      }
    }
  }
}

// AMD's and NVIDIA's dashboards (../shared/fixtures/grafana) show these
// meanings; each must be charted from its canonical metric somewhere.
TEST(DashboardSetTest, CoversTheVendorDashboardsMeanings) {
  const std::map<std::string, std::string> vendor_to_canonical = {
      {"gpu_gfx_activity / DCGM_FI_DEV_GPU_UTIL", "gpu_utilization_ratio"},
      {"gpu_used_vram / DCGM_FI_DEV_FB_USED", "gpu_memory_used_bytes"},
      {"gpu_total_vram", "gpu_memory_total_bytes"},
      {"gpu_package_power / DCGM_FI_DEV_POWER_USAGE", "gpu_power_watts"},
      {"gpu_energy_consumed", "gpu_energy_joules_total"},
      {"gpu_edge/junction/memory/hbm_temperature / DCGM_FI_DEV_GPU_TEMP",
       "gpu_temperature_celsius"},
      {"DCGM_FI_DEV_SM_CLOCK", "gpu_clock_hertz"},
      {"pcie_bandwidth", "gpu_pcie_transmit_bytes_total"},
      {"pcie_replay_count", "gpu_pcie_replays_total"},
      {"gpu_ecc_correct/uncorrect_total", "gpu_ecc_errors_total"},
      {"gpu_health", "gpu_up"},
      {"gpu_prof_sm_active", "gpu_sm_active_ratio"},
      {"gpu_prof_occupancy_per_cu", "gpu_sm_occupancy_ratio"},
      {"gpu_prof_tensor_active_percent / DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
       "gpu_tensor_active_ratio"},
      {"gpu_prof_gui_util_percent", "gpu_graphics_engine_active_ratio"},
      {"job_id / pod", "gpu_workload_info"}};
  std::set<std::string> used;
  for (const GeneratedDashboard& d : Built()) {
    for (const json* p : Panels(d.json)) {
      if ((*p)["type"] == "row") continue;
      for (const json& t : (*p)["targets"]) {
        StatusOr<PromqlRefs> refs = ExtractPromqlRefs(t["expr"].get<std::string>());
        ASSERT_TRUE(refs.ok());
        used.insert(refs->metrics.begin(), refs->metrics.end());
      }
    }
  }
  for (const auto& [vendor, canonical] : vendor_to_canonical) {
    EXPECT_TRUE(used.count(canonical)) << vendor << " -> " << canonical << " is charted nowhere";
  }
}

std::set<std::string> ChartedMetrics() {
  std::set<std::string> used;
  for (const GeneratedDashboard& d : Built()) {
    for (const json* p : Panels(d.json)) {
      if ((*p)["type"] == "row") continue;
      for (const json& t : (*p)["targets"]) {
        StatusOr<PromqlRefs> refs = ExtractPromqlRefs(t["expr"].get<std::string>());
        if (refs.ok()) used.insert(refs->metrics.begin(), refs->metrics.end());
      }
    }
  }
  return used;
}

// Every metric a panel of AMD's dashboards reads (../shared/fixtures/grafana)
// is charted here under its canonical name (through the project's own
// data/mappings/amd_dme.toml, or the table below), or listed as not carried
// with the reason. A new name in the fixtures fails until it is accounted for.
TEST(DashboardSetTest, EveryAmdDashboardMetricIsChartedOrExplained) {
  const std::filesystem::path dir =
      std::filesystem::path(GPUFLEET_SOURCE_DIR) / "../shared/fixtures/grafana";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no Grafana fixtures at " << dir;
  std::set<std::string> amd_names;
  const std::regex name(R"(\$\{g_metrics_prefix\}([a-zA-Z_]+))");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), name), end; it != end; ++it) {
      amd_names.insert((*it)[1]);
    }
  }
  ASSERT_GT(amd_names.size(), 10u);
  // from -> to pairs of the AMD exporter mapping.
  std::map<std::string, std::string> mapping;
  std::ifstream map_in(std::string(GPUFLEET_SOURCE_DIR) + "/data/mappings/amd_dme.toml");
  std::string from;
  for (std::string line; std::getline(map_in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, std::regex(R"re(from = "([^"]+)")re"))) from = m[1];
    if (std::regex_match(line, m, std::regex(R"re(to = "([^"]+)")re")) && !from.empty()) {
      mapping[from] = m[1];
    }
  }
  ASSERT_FALSE(mapping.empty());
  // Names the mapping leaves out: the canonical metric charted instead, or
  // "" with why nothing is.
  const std::map<std::string, std::pair<std::string, std::string>> extra = {
      {"gpu_package_power", {"gpu_power_watts", "mapping's ignore: same as gpu_power_usage"}},
      {"gpu_average_package_power", {"gpu_power_watts", "same, MI2xx"}},
      {"gpu_gfx_busy_instantaneous", {"gpu_utilization_ratio", "instantaneous gfx activity"}},
      {"gpu_health", {"gpu_up", "health becomes gpu_up with a reason"}},
      {"gpu_nodes_total", {"gpu_up", "a count of devices"}},
      {"gpu_prof_occupancy_per_cu", {"gpu_sm_occupancy_ratio", "occupancy"}},
      {"gpu_prof_occupancy_per_active_cu", {"gpu_sm_occupancy_ratio", "occupancy"}},
      {"pcie_bandwidth", {"gpu_pcie_transmit_bytes_total", "PCIe throughput"}},
      {"pcie_max_speed", {"", "link speed: no canonical metric"}},
      {"pcie_recovery_count", {"", "no canonical metric"}},
      {"pcie_replay_rollover_count", {"", "no canonical metric"}},
      {"pcie_nack_received_count", {"", "no canonical metric"}},
      {"pcie_nack_sent_count", {"", "no canonical metric"}},
      {"gpu_prof_simd_utilization", {"", "no canonical SIMD utilization"}}};
  const std::set<std::string> charted = ChartedMetrics();
  for (const std::string& amd : amd_names) {
    std::string canonical;
    if (auto it = mapping.find(amd); it != mapping.end()) {
      canonical = it->second;
    } else if (auto e = extra.find(amd); e != extra.end()) {
      canonical = e->second.first;
      if (canonical.empty()) continue;  // not carried, with its reason above
    } else {
      ADD_FAILURE() << "AMD dashboard metric " << amd << " is neither mapped nor explained";
      continue;
    }
    EXPECT_TRUE(charted.count(canonical)) << amd << " -> " << canonical << " is charted nowhere";
  }
}

// Every label a query matches on is one its series carries: the device labels
// the normalizer sets, `method`, the catalog's labels of that metric, the
// labels the cost renderer writes, or alertname / alertstate on ALERTS. The
// one deliberate exception is Team()'s `gpu_up{workload_team=~"$team"}`,
// which matches every device on All and none otherwise.
TEST(DashboardSetTest, EveryMatchedLabelExistsOnItsSeries) {
  std::set<std::string> device(std::begin(kDeviceLabelNames), std::end(kDeviceLabelNames));
  device.insert("method");
  cost::MeteredDevice dev;
  dev.node = "n";
  dev.cloud = "aws";
  dev.region = "us-east-1";
  dev.model = "NVIDIA H100 80GB HBM3";
  dev.gpu_uuid = "GPU-1";
  dev.partition_id = "0";
  dev.partition_kind = "mig";
  dev.key = "k";
  std::map<std::string, std::set<std::string>> cost_labels;
  std::istringstream cost(cost::RenderCostMetrics({dev}, cost::PriceBook(), {{"k", 0.5}}));
  const std::regex label(R"re(([a-z_]+)=")re");
  for (std::string line; std::getline(cost, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::set<std::string>& labels = cost_labels[line.substr(0, line.find('{'))];
    for (std::sregex_iterator it(line.begin(), line.end(), label), end; it != end; ++it) {
      labels.insert((*it)[1]);
    }
  }
  size_t checked = 0;
  for (const GeneratedDashboard& d : Built()) {
    std::vector<std::string> exprs;
    for (const json& v : d.json["templating"]["list"]) {
      if (v["type"] == "query") exprs.push_back(v["definition"]);
    }
    for (const json* p : Panels(d.json)) {
      if ((*p)["type"] == "row") continue;
      for (const json& t : (*p)["targets"]) exprs.push_back(t["expr"]);
    }
    for (const std::string& e : exprs) {
      StatusOr<PromqlRefs> refs = ExtractPromqlRefs(e);
      ASSERT_TRUE(refs.ok()) << refs.status().message();
      for (const Selector& sel : refs->selectors) {
        std::set<std::string> allowed = device;
        allowed.insert("__name__");
        if (const MetricDef* def = MetricCatalog::Default().Find(sel.metric)) {
          allowed.insert(def->labels.begin(), def->labels.end());
        } else if (sel.metric == "ALERTS") {
          allowed.insert({"alertname", "alertstate"});
        } else if (cost_labels.count(sel.metric)) {
          allowed = cost_labels[sel.metric];
        } else if (!sel.metric.empty()) {
          continue;  // server self-metrics: matched on nothing
        }
        for (const LabelMatcher& m : sel.matchers) {
          ++checked;
          if (sel.metric == "gpu_up" && m.label == "workload_team") continue;  // Team()
          EXPECT_TRUE(allowed.count(m.label))
              << d.file_name << ": " << sel.metric << " has no label " << m.label << " in " << e;
        }
      }
    }
  }
  EXPECT_GT(checked, 500u);
}

// A metric renamed in the catalog breaks the export loudly, naming the panel.
TEST(DashboardSetTest, RenamedMetricFailsTheExport) {
  std::ifstream in(std::string(GPUFLEET_SOURCE_DIR) + "/data/metrics.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string toml = text.str();
  const std::string from = "name = \"gpu_sm_occupancy_ratio\"";
  const size_t at = toml.find(from);
  ASSERT_NE(at, std::string::npos);
  toml.replace(at, from.size(), "name = \"gpu_sm_residency_ratio\"");
  StatusOr<MetricCatalog> renamed = MetricCatalog::Parse(toml, "renamed.toml");
  ASSERT_TRUE(renamed.ok()) << renamed.status().message();
  StatusOr<std::vector<GeneratedDashboard>> set =
      BuildDashboards(*renamed, detect::DefaultDetectConfig());
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("gpu_sm_occupancy_ratio"), std::string::npos)
      << set.status().message();
  EXPECT_NE(set.status().message().find("panel '"), std::string::npos) << set.status().message();
}

TEST(DashboardSetTest, ContentionThresholdsFollowTheDetectConfig) {
  detect::DetectConfig config = detect::DefaultDetectConfig();
  bool changed = false;
  for (detect::RuleConfig& r : config.rules) {
    if (r.name != "memory_contention") continue;
    for (detect::Condition& c : r.conditions) {
      if (c.metric == "gpu_memory_bandwidth_utilization_ratio") {
        c.value = 0.7;
        changed = true;
      }
    }
  }
  ASSERT_TRUE(changed);
  StatusOr<std::vector<GeneratedDashboard>> set = BuildDashboards(MetricCatalog::Default(), config);
  ASSERT_TRUE(set.ok()) << set.status().message();
  const json* contention = nullptr;
  for (const GeneratedDashboard& d : *set) {
    if (d.json["uid"] == "gpufleet-contention") contention = &d.json;
  }
  ASSERT_NE(contention, nullptr);
  bool seen = false;
  for (const json& p : (*contention)["panels"]) {
    if (p["type"] == "row") continue;
    for (const json& t : p["targets"]) {
      const std::string e = t["expr"];
      if (e.find("gpu_memory_bandwidth_utilization_ratio{") != std::string::npos &&
          e.find(" > ") != std::string::npos) {
        EXPECT_NE(e.find("> 0.7 "), std::string::npos) << e;
        seen = true;
      }
    }
  }
  EXPECT_TRUE(seen);
}

TEST(DashboardSetTest, WritesOneFilePerDashboard) {
  const std::string dir = ::testing::TempDir() + "/gpufleet_dashboards_test";
  StatusOr<std::vector<std::string>> paths = WriteDashboards(Built(), dir);
  ASSERT_TRUE(paths.ok()) << paths.status().message();
  ASSERT_EQ(paths->size(), 6u);
  for (const std::string& p : *paths) {
    std::ifstream in(p);
    const json back = json::parse(in, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(back.is_discarded()) << p;
    EXPECT_TRUE(back.contains("panels")) << p;
  }
}

}  // namespace
}  // namespace gpufleet::dashboards
