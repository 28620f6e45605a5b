#include "console/console_assets.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace gpufleet::console {
namespace {

TEST(ConsoleAssetsTest, IndexComesFirstAndIsNotImmutable) {
  std::vector<const Asset*> all = AllAssets();
  ASSERT_GE(all.size(), 3u);  // index.html, one JS and one CSS bundle
  EXPECT_EQ(all[0]->path, "index.html");
  EXPECT_FALSE(all[0]->immutable);
  EXPECT_EQ(all[0]->content_type, "text/html; charset=utf-8");
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_EQ(all[i]->path.substr(0, 7), "assets/") << all[i]->path;
    EXPECT_TRUE(all[i]->immutable) << all[i]->path;
    EXPECT_FALSE(all[i]->body.empty()) << all[i]->path;
  }
  EXPECT_EQ(FindAsset("nope.js"), nullptr);
  EXPECT_EQ(FindAsset("/index.html"), nullptr);  // paths carry no leading '/'
}

// Everything index.html loads is embedded (the JS and CSS bundles, and the
// contention map's worker named in a meta tag), and it loads nothing from
// elsewhere (the console works offline).
TEST(ConsoleAssetsTest, IndexReferencesOnlyEmbeddedAssets) {
  std::string html(FindAsset("index.html")->body);
  std::regex ref(R"re((src|href|content)="([^"]*)")re");
  int local = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), ref), end; it != end; ++it) {
    std::string attr = (*it)[1];
    std::string url = (*it)[2];
    if (url == "data:,") continue;                        // the empty favicon
    if (attr == "content" && url.rfind("/", 0) != 0) continue;  // viewport, not a path
    ASSERT_EQ(url.substr(0, 8), "/assets/") << url;
    const Asset* a = FindAsset(url.substr(1));
    ASSERT_NE(a, nullptr) << url;
    EXPECT_TRUE(a->immutable) << url;
    ++local;
  }
  EXPECT_EQ(local, 3);
}

// The Content-Security-Policy has no 'unsafe-inline': index.html may hold
// no inline script, no <style> and no style attribute.
TEST(ConsoleAssetsTest, IndexHasNoInlineScriptOrStyle) {
  std::string html(FindAsset("index.html")->body);
  std::regex script(R"(<script\b([^>]*)>([\s\S]*?)</script>)");
  int scripts = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), script), end; it != end; ++it) {
    ++scripts;
    EXPECT_NE((*it)[1].str().find("src="), std::string::npos) << (*it)[0];
    EXPECT_TRUE((*it)[2].str().empty()) << (*it)[0];
  }
  EXPECT_EQ(scripts, 1);
  EXPECT_EQ(html.find("<style"), std::string::npos);
  EXPECT_EQ(html.find(" style="), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(\son[a-z]+\s*=)")));  // no onload= etc.
}

}  // namespace
}  // namespace gpufleet::console
