#include "core/flat_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpufleet {
namespace {

TEST(FlatIndexTest, FindsWhatWasInsertedAcrossRegrowth) {
  FlatIndex index;
  std::vector<std::string> keys;
  auto hash = [](const std::string& k) { return std::hash<std::string>()(k); };
  for (int i = 0; i < 5000; ++i) {
    std::string k = "key-" + std::to_string(i);
    ASSERT_EQ(index.Find(hash(k), [&](uint32_t id) { return keys[id] == k; }),
              FlatIndex::kNotFound);
    keys.push_back(k);
    EXPECT_EQ(index.Insert(hash(k)), static_cast<uint32_t>(i));
  }
  EXPECT_EQ(index.size(), 5000u);
  for (uint32_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(index.Find(hash(keys[i]), [&](uint32_t id) { return keys[id] == keys[i]; }), i);
  }
  EXPECT_EQ(index.Find(hash("absent"), [&](uint32_t id) { return keys[id] == "absent"; }),
            FlatIndex::kNotFound);
}

TEST(FlatIndexTest, EqualHashesAreToldApartByTheKey) {
  // Every key collides: the index must still tell them apart by asking.
  FlatIndex index;
  std::vector<std::string> keys = {"a", "b", "c"};
  for (size_t i = 0; i < keys.size(); ++i) index.Insert(42);
  for (uint32_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(index.Find(42, [&](uint32_t id) { return keys[id] == keys[i]; }), i);
  }
  EXPECT_EQ(index.Find(42, [&](uint32_t id) { return keys[id] == "d"; }), FlatIndex::kNotFound);
  EXPECT_EQ(index.Find(7, [](uint32_t) { return true; }), FlatIndex::kNotFound);
}

TEST(FlatIndexTest, ClearForgetsEverythingAndIdsStartAgain) {
  FlatIndex index;
  for (uint64_t h = 1; h <= 100; ++h) index.Insert(h * 0x9e3779b97f4a7c15ULL);
  index.Clear();
  EXPECT_EQ(index.size(), 0u);
  index.Prefetch(5);  // on an empty index: nothing to load, no crash
  EXPECT_EQ(index.Find(0x9e3779b97f4a7c15ULL, [](uint32_t) { return true; }), FlatIndex::kNotFound);
  EXPECT_EQ(index.Insert(5), 0u);
  index.Prefetch(5);
  EXPECT_EQ(index.Find(5, [](uint32_t id) { return id == 0; }), 0u);
}

}  // namespace
}  // namespace gpufleet
