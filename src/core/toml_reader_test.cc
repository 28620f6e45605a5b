#include "core/toml_reader.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace gpufleet {
namespace {

// Line numbers in the messages below count from "name" = line 1.
constexpr const char* kSite = R"(name = "site-a"
port = 9840
ratio = 0.5
whole = 2
debug = true
retention = "30m"
tags = ["a", "b"]
[limits]
burst = 10
[[node]]
name = "n0"
gpus = 8
[[node]]
name = "n1"
gpus = "eight"
)";

toml::table Parse(std::string_view text) {
  StatusOr<toml::table> t = ParseToml(text, "site.toml");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : toml::table();
}

std::string Message(const Status& s) {
  EXPECT_FALSE(s.ok());
  return std::string(s.message());
}

TEST(TomlReaderTest, SyntaxErrorNamesFileLineAndColumn) {
  StatusOr<toml::table> t = ParseToml("a = 1\nb = = 2\n", "bad.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message().rfind("bad.toml:2:5: ", 0), 0u) << t.status().message();
}

TEST(TomlReaderTest, ReadsEachType) {
  toml::table t = Parse(kSite);
  TomlReader r(t, "site.toml");
  std::string name;
  int64_t port = 0;
  double ratio = 0;
  double whole = 0;
  bool debug = false;
  int64_t retention_ns = 0;
  std::vector<std::string> tags;
  ASSERT_TRUE(r.Require("name", name).ok());
  ASSERT_TRUE(r.Read("port", port, 1, 65535).ok());
  ASSERT_TRUE(r.Read("ratio", ratio, 0.0, 1.0).ok());
  ASSERT_TRUE(r.Read("whole", whole).ok());  // an integer is a number too
  ASSERT_TRUE(r.Read("debug", debug).ok());
  ASSERT_TRUE(r.ReadDuration("retention", retention_ns).ok());
  ASSERT_TRUE(r.Read("tags", tags).ok());
  EXPECT_EQ(name, "site-a");
  EXPECT_EQ(port, 9840);
  EXPECT_DOUBLE_EQ(ratio, 0.5);
  EXPECT_DOUBLE_EQ(whole, 2);
  EXPECT_TRUE(debug);
  EXPECT_EQ(retention_ns, 30LL * 60 * 1'000'000'000);
  EXPECT_EQ(tags, (std::vector<std::string>{"a", "b"}));
}

TEST(TomlReaderTest, AbsentOptionalKeysKeepTheDefault) {
  toml::table t = Parse("x = 1\n");
  TomlReader r(t, "site.toml");
  std::string s = "keep";
  int64_t i = 7;
  double d = 1.5;
  bool b = true;
  int64_t ns = 42;
  std::vector<std::string> v = {"keep"};
  EXPECT_TRUE(r.Read("s", s).ok());
  EXPECT_TRUE(r.Read("i", i).ok());
  EXPECT_TRUE(r.Read("d", d).ok());
  EXPECT_TRUE(r.Read("b", b).ok());
  EXPECT_TRUE(r.ReadDuration("ns", ns).ok());
  EXPECT_TRUE(r.Read("v", v).ok());
  EXPECT_EQ(s, "keep");
  EXPECT_EQ(i, 7);
  EXPECT_DOUBLE_EQ(d, 1.5);
  EXPECT_TRUE(b);
  EXPECT_EQ(ns, 42);
  EXPECT_EQ(v, std::vector<std::string>{"keep"});
  EXPECT_FALSE(r.Has("s"));
  EXPECT_TRUE(r.Has("x"));
}

TEST(TomlReaderTest, TypeErrorsNameFileLineAndField) {
  toml::table t = Parse(kSite);
  TomlReader r(t, "site.toml");
  std::string s;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::vector<std::string> v;
  EXPECT_EQ(Message(r.Read("port", s)),
            "site.toml:2: field 'port': must be a string, got an integer");
  EXPECT_EQ(Message(r.Read("name", i)),
            "site.toml:1: field 'name': must be an integer, got a string");
  EXPECT_EQ(Message(r.Read("ratio", i)),
            "site.toml:3: field 'ratio': must be an integer, got a number");
  EXPECT_EQ(Message(r.Read("debug", d)),
            "site.toml:5: field 'debug': must be a number, got a boolean");
  EXPECT_EQ(Message(r.Read("name", b)),
            "site.toml:1: field 'name': must be true or false, got a string");
  EXPECT_EQ(Message(r.Read("name", v)),
            "site.toml:1: field 'name': must be an array of strings, got a string");
  toml::table mixed = Parse("\n\ntags = [\"a\", 2]\n");
  EXPECT_EQ(Message(TomlReader(mixed, "site.toml").Read("tags", v)),
            "site.toml:3: field 'tags[1]': must be a string, got an integer");
}

TEST(TomlReaderTest, RangeErrors) {
  toml::table t = Parse(kSite);
  TomlReader r(t, "site.toml");
  int64_t i = 0;
  double d = 0;
  EXPECT_EQ(Message(r.Read("port", i, 0, 1024)),
            "site.toml:2: field 'port': must be an integer 0..1024");
  EXPECT_EQ(Message(r.Read("port", i, 10000)),
            "site.toml:2: field 'port': must be an integer >= 10000");
  EXPECT_EQ(Message(r.Read("ratio", d, 0.75, 1.0)),
            "site.toml:3: field 'ratio': must be a number 0.75..1, got 0.5");
  EXPECT_EQ(Message(r.Read("name", d, 0.0, 1.0)),
            "site.toml:1: field 'name': must be a number 0..1, got a string");
  EXPECT_EQ(i, 0);  // untouched on error
  toml::table big = Parse("n = 9007199254740993\n");
  EXPECT_EQ(Message(TomlReader(big, "site.toml").Read("n", d)),
            "site.toml:1: field 'n': must be a number, got an integer");
}

TEST(TomlReaderTest, DurationErrors) {
  toml::table t = Parse("a = \"soon\"\nb = 30\nc = \"0s\"\n");
  TomlReader r(t, "site.toml");
  int64_t ns = 0;
  EXPECT_NE(Message(r.ReadDuration("a", ns)).find("site.toml:1: field 'a': bad duration 'soon'"),
            std::string::npos);
  EXPECT_EQ(Message(r.ReadDuration("b", ns)),
            "site.toml:2: field 'b': must be a duration such as \"30s\", got an integer");
  EXPECT_TRUE(r.ReadDuration("c", ns).ok());
  EXPECT_EQ(Message(r.ReadDuration("c", ns, 1'000'000'000)),
            "site.toml:3: field 'c': must be at least 1s, got \"0s\"");
  EXPECT_EQ(Message(r.ReadDuration("c", ns, 1)),
            "site.toml:3: field 'c': must be a positive duration, got \"0s\"");
}

TEST(TomlReaderTest, MissingRequiredFieldNamesTheTable) {
  toml::table t = Parse("x = 1\n\n[limits]\nburst = 3\n");
  TomlReader r(t, "site.toml");
  StatusOr<std::optional<TomlReader>> limits = r.Table("limits");
  ASSERT_TRUE(limits.ok());
  ASSERT_TRUE(limits->has_value());
  double rate = 0;
  EXPECT_EQ(Message((*limits)->Require("rate", rate)), "site.toml:3: missing field 'limits.rate'");
  std::string name;
  EXPECT_EQ(Message(r.Require("name", name)).rfind("site.toml", 0), 0u);
}

TEST(TomlReaderTest, SubTablesAndArraysOfTablesCarryTheDottedPath) {
  toml::table t = Parse(kSite);
  TomlReader r(t, "site.toml");
  StatusOr<std::optional<TomlReader>> absent = r.Table("nothing");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  EXPECT_EQ(Message(r.Table("name").status()),
            "site.toml:1: field 'name': must be a table, got a string");

  std::vector<std::string> names;
  Status s = r.ForEachTable("node", [&](const TomlReader& node) -> Status {
    std::string n;
    RETURN_IF_ERROR(node.Require("name", n));
    names.push_back(n);
    int64_t gpus = 0;
    return node.Read("gpus", gpus, 0, 64);
  });
  EXPECT_EQ(Message(s), "site.toml:15: field 'node[1].gpus': must be an integer 0..64");
  EXPECT_EQ(names, (std::vector<std::string>{"n0", "n1"}));

  EXPECT_EQ(Message(r.ForEachTable("tags", [](const TomlReader&) { return OkStatus(); })),
            "site.toml:7: field 'tags[0]': must be a table, got a string");
  EXPECT_EQ(Message(r.ForEachTable("port", [](const TomlReader&) { return OkStatus(); })),
            "site.toml:2: field 'port': must be an array of tables, got an integer");
  EXPECT_TRUE(r.ForEachTable("none", [](const TomlReader&) { return OkStatus(); }).ok());
}

TEST(TomlReaderTest, UnknownKeysSuggestTheClosest) {
  toml::table t = Parse("name = 1\n[limits]\nbrust = 3\n");
  TomlReader r(t, "site.toml");
  EXPECT_TRUE(r.CheckKeys({"name", "limits"}).ok());
  EXPECT_EQ(Message(r.CheckKeys({"name"})), "site.toml:2: unknown field 'limits'");
  StatusOr<std::optional<TomlReader>> limits = r.Table("limits");
  ASSERT_TRUE(limits.ok() && limits->has_value());
  EXPECT_EQ(Message((*limits)->CheckKeys({"burst", "rate"})),
            "site.toml:3: unknown field 'limits.brust' (did you mean 'burst'?)");
  TomlReader bare = (*limits)->WithContext("node \"n1\": ", TomlReader::Naming::kBare);
  EXPECT_EQ(Message(bare.CheckKeys({"burst"})),
            "site.toml:3: node \"n1\": unknown key 'brust' (did you mean 'burst'?)");
  int64_t i = 0;
  EXPECT_EQ(Message(bare.Read("brust", i, 0, 1)),
            "site.toml:3: node \"n1\": limits.brust: must be an integer 0..1");
}

TEST(TomlReaderTest, NodesBuiltInMemoryNameOnlyTheOrigin) {
  toml::table t;
  t.insert("gpus", "two");
  int64_t gpus = 0;
  EXPECT_EQ(Message(TomlReader(t, "request").Read("gpus", gpus)),
            "request: field 'gpus': must be an integer, got a string");
}

TEST(TomlReaderTest, ShortFormsKeepTheirMessages) {
  toml::table t = Parse("a = 1\nb = \"x\"\n");
  EXPECT_EQ(RequiredString(t, "a", "d.toml").status().message(),
            "d.toml:1: field 'a' must be a string");
  EXPECT_EQ(*OptionalString(t, "z", "d.toml"), "");
  EXPECT_EQ(*OptionalString(t, "b", "d.toml"), "x");
  EXPECT_DOUBLE_EQ(*OptionalNumber(t, "a", 5, "d.toml"), 1);
  EXPECT_DOUBLE_EQ(*OptionalNumber(t, "z", 5, "d.toml"), 5);
  EXPECT_EQ(OptionalNumber(t, "b", 5, "d.toml").status().message(),
            "d.toml:2: field 'b' must be a number");
  EXPECT_NE(RequiredString(t, "z", "d.toml").status().message().find("missing field 'z'"),
            std::string::npos);
}

}  // namespace
}  // namespace gpufleet
