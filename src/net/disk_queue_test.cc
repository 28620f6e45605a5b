#include "net/disk_queue.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

class DiskQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpufleet_disk_queue_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    options_.dir = dir_.string();
    options_.sync = DiskQueueOptions::Sync::kNone;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<DiskQueue> OpenQueue() {
    auto queue = DiskQueue::Open(options_);
    EXPECT_TRUE(queue.ok()) << queue.status().ToString();
    return queue.ok() ? std::move(queue).value() : nullptr;
  }

  std::vector<fs::path> Segments() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().extension() == ".seg") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Pops everything, returning the payloads in order.
  static std::vector<std::string> Drain(DiskQueue& queue) {
    std::vector<std::string> out;
    while (true) {
      auto record = queue.Peek();
      EXPECT_TRUE(record.ok());
      if (!record.ok() || !record->has_value()) break;
      out.push_back((*record)->payload);
      EXPECT_TRUE(queue.Pop((*record)->id).ok());
    }
    return out;
  }

  fs::path dir_;
  DiskQueueOptions options_;
};

TEST_F(DiskQueueTest, PeekDoesNotRemoveAndPopDoes) {
  auto queue = OpenQueue();
  ASSERT_TRUE(queue->Push("first").ok());
  ASSERT_TRUE(queue->Push(std::string("sec\0nd", 6)).ok());
  auto a = queue->Peek();
  auto b = queue->Peek();
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->payload, "first");
  EXPECT_EQ((*a)->id, (*b)->id);
  ASSERT_TRUE(queue->Pop((*a)->id).ok());
  EXPECT_EQ(queue->stats().records, 1u);
  EXPECT_EQ(queue->stats().bytes, 8u + 6u);
  EXPECT_EQ(Drain(*queue), std::vector<std::string>{std::string("sec\0nd", 6)});
  auto empty = queue->Peek();
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

TEST_F(DiskQueueTest, UnacknowledgedRecordsSurviveReopen) {
  {
    auto queue = OpenQueue();
    for (const char* p : {"a", "b", "c"}) ASSERT_TRUE(queue->Push(p).ok());
    auto head = queue->Peek();
    ASSERT_TRUE(queue->Pop((*head)->id).ok());
  }
  auto queue = OpenQueue();
  EXPECT_EQ(queue->stats().records, 2u);
  ASSERT_TRUE(queue->Push("d").ok());
  EXPECT_EQ(Drain(*queue), (std::vector<std::string>{"b", "c", "d"}));
  queue.reset();
  // Everything acknowledged stays acknowledged.
  EXPECT_EQ(OpenQueue()->stats().records, 0u);
}

TEST_F(DiskQueueTest, TornLastRecordIsCutAndCounted) {
  {
    auto queue = OpenQueue();
    ASSERT_TRUE(queue->Push("one").ok());
    ASSERT_TRUE(queue->Push("two").ok());
  }
  {
    // A crash mid-append: header promises 100 bytes, 4 arrived.
    std::ofstream out(Segments().back(), std::ios::binary | std::ios::app);
    out.write("\x64\x00\x00\x00\x01\x02\x03\x04torn", 12);
  }
  {
    auto queue = OpenQueue();
    EXPECT_EQ(queue->stats().corrupt_records, 1u);
    EXPECT_EQ(queue->stats().records, 2u);
    ASSERT_TRUE(queue->Push("three").ok());
  }
  // The torn bytes were cut, so the record appended after them reads back cleanly.
  auto queue = OpenQueue();
  EXPECT_EQ(queue->stats().corrupt_records, 0u);
  EXPECT_EQ(Drain(*queue), (std::vector<std::string>{"one", "two", "three"}));
}

TEST_F(DiskQueueTest, CorruptRecordEndsItsSegment) {
  {
    auto queue = OpenQueue();
    for (const char* p : {"aaaa", "bbbb", "cccc"}) ASSERT_TRUE(queue->Push(p).ok());
  }
  {
    std::fstream f(Segments().back(), std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(12 + 8 + 1);  // inside the payload of "bbbb"
    f.put('X');
  }
  auto queue = OpenQueue();
  EXPECT_EQ(queue->stats().corrupt_records, 1u);
  EXPECT_EQ(Drain(*queue), (std::vector<std::string>{"aaaa"}));
}

TEST_F(DiskQueueTest, PushPastTheBoundDropsTheOldest) {
  options_.max_bytes = 3 * (8 + 10);
  auto queue = OpenQueue();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(queue->Push("record-00" + std::to_string(i)).ok());
  DiskQueueStats stats = queue->stats();
  EXPECT_EQ(stats.records, 3u);
  EXPECT_EQ(stats.dropped_records, 2u);
  EXPECT_EQ(stats.dropped_bytes, 2u * 18u);
  EXPECT_LE(stats.bytes, options_.max_bytes);
  EXPECT_EQ(Drain(*queue),
            (std::vector<std::string>{"record-002", "record-003", "record-004"}));
}

TEST_F(DiskQueueTest, RecordLargerThanTheBoundIsRejected) {
  options_.max_bytes = 64;
  auto queue = OpenQueue();
  ASSERT_TRUE(queue->Push("keep").ok());
  Status st = queue->Push(std::string(100, 'x'));
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(queue->stats().rejected_records, 1u);
  EXPECT_EQ(Drain(*queue), std::vector<std::string>{"keep"});
}

TEST_F(DiskQueueTest, PopOfADroppedRecordLeavesTheNewHead) {
  options_.max_bytes = 2 * (8 + 1);
  auto queue = OpenQueue();
  ASSERT_TRUE(queue->Push("a").ok());
  auto head = queue->Peek();  // the consumer is sending "a"...
  ASSERT_TRUE(queue->Push("b").ok());
  ASSERT_TRUE(queue->Push("c").ok());  // ...while it is dropped to make room
  ASSERT_TRUE(queue->Pop((*head)->id).ok());
  EXPECT_EQ(Drain(*queue), (std::vector<std::string>{"b", "c"}));
}

TEST_F(DiskQueueTest, RotatesSegmentsAndDeletesAcknowledgedOnes) {
  options_.segment_bytes = 64;
  auto queue = OpenQueue();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(queue->Push(std::string(20, 'a' + i)).ok());
  EXPECT_GE(Segments().size(), 4u);
  EXPECT_EQ(Drain(*queue).size(), 10u);
  EXPECT_EQ(Segments().size(), 1u);  // only the segment being written
  queue.reset();
  EXPECT_EQ(OpenQueue()->stats().records, 0u);
}

TEST_F(DiskQueueTest, TornCursorMeansRedeliveryNotLoss) {
  {
    auto queue = OpenQueue();
    for (const char* p : {"a", "b"}) ASSERT_TRUE(queue->Push(p).ok());
    auto head = queue->Peek();
    ASSERT_TRUE(queue->Pop((*head)->id).ok());
  }
  {
    std::ofstream out(dir_ / "cursor", std::ios::binary | std::ios::trunc);
    out << "garbage";
  }
  EXPECT_EQ(Drain(*OpenQueue()), (std::vector<std::string>{"a", "b"}));
}

TEST_F(DiskQueueTest, OneProducerOneConsumerSeeEveryRecordInOrder) {
  options_.segment_bytes = 4096;
  auto queue = OpenQueue();
  constexpr int kRecords = 2000;
  std::thread producer([&] {
    for (int i = 0; i < kRecords; ++i) ASSERT_TRUE(queue->Push(std::to_string(i)).ok());
  });
  std::vector<std::string> got;
  int idle_waits = 0;
  while (got.size() < kRecords && idle_waits < 30) {
    if (!queue->WaitForRecord(std::chrono::milliseconds(1000))) {
      ++idle_waits;
      continue;
    }
    auto record = queue->Peek();
    ASSERT_TRUE(record.ok() && record->has_value());
    got.push_back((*record)->payload);
    ASSERT_TRUE(queue->Pop((*record)->id).ok());
  }
  producer.join();
  ASSERT_EQ(got.size(), static_cast<size_t>(kRecords));
  for (int i = 0; i < kRecords; ++i) ASSERT_EQ(got[i], std::to_string(i));
  EXPECT_EQ(queue->stats().records, 0u);
}

TEST_F(DiskQueueTest, DurableModeWorks) {
  options_.sync = DiskQueueOptions::Sync::kEveryPush;
  {
    auto queue = OpenQueue();
    ASSERT_TRUE(queue->Push("synced").ok());
  }
  EXPECT_EQ(Drain(*OpenQueue()), std::vector<std::string>{"synced"});
}

}  // namespace
}  // namespace gpufleet
