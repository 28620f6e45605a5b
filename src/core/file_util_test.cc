#include "core/file_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace gpufleet {
namespace {

std::string TempPath(const char* name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/gpufleet_file_util_" + name + "_" +
         std::to_string(::testing::UnitTest::GetInstance()->random_seed());
}

TEST(FileContentsTest, MapsARegularFileAndSurvivesMoves) {
  std::string path = TempPath("regular");
  std::string text(100000, 'x');
  text += "end\n";
  ASSERT_TRUE(WriteStringToFile(path, text).ok());
  auto f = FileContents::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  FileContents moved = std::move(f).value();
  EXPECT_EQ(moved.view(), text);
  std::remove(path.c_str());
}

TEST(FileContentsTest, ReadsEmptyAndProcFiles) {
  std::string path = TempPath("empty");
  ASSERT_TRUE(WriteStringToFile(path, "").ok());
  auto empty = FileContents::Open(path);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->view().empty());
  std::remove(path.c_str());
  // /proc files report size 0 but have content: read, not mapped. A short
  // content also exercises the move of an inline (short-string) buffer.
  auto proc = FileContents::Open("/proc/self/comm");  // "core_test\n"
  ASSERT_TRUE(proc.ok());
  FileContents moved = std::move(proc).value();
  ASSERT_FALSE(moved.view().empty());
  EXPECT_EQ(moved.view().back(), '\n');
}

TEST(FileContentsTest, MissingFileIsNotFoundNamingThePath) {
  auto f = FileContents::Open("/nonexistent/gpufleet/file");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kNotFound);
  EXPECT_NE(f.status().message().find("/nonexistent/gpufleet/file"), std::string::npos);
}

TEST(FileUtilTest, ReadTrimmedFileTrimsAndAnswersNulloptWhenUnreadable) {
  std::string path = TempPath("trimmed");
  ASSERT_TRUE(WriteStringToFile(path, " 0x74a1\n").ok());
  EXPECT_EQ(ReadTrimmedFile(path), "0x74a1");
  std::remove(path.c_str());
  EXPECT_EQ(ReadTrimmedFile(path), std::nullopt);
}

TEST(ScratchDirTest, IsCreatedEmptyAndRemovedWithItsContents) {
  std::string path;
  {
    auto dir = ScratchDir::Create("gpufleet-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    path = dir->path();
    EXPECT_NE(path.find("/gpufleet-test."), std::string::npos);
    ASSERT_TRUE(std::filesystem::is_directory(path));
    ASSERT_TRUE(WriteStringToFile(path + "/a.db", "x").ok());
    ScratchDir moved = std::move(*dir);  // the moved-from object removes nothing
    EXPECT_TRUE(std::filesystem::exists(path + "/a.db"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(FileUtilTest, WritesAFifoInPlaceInsteadOfReplacingIt) {
  // `--csv /dev/null` once replaced /dev/null with a regular file (the
  // atomic write renamed its temp file over it, as root). A FIFO stands in
  // for the device here: the data goes through it and it stays a FIFO.
  auto dir = ScratchDir::Create("gpufleet-fifo");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  const std::string fifo = dir->path() + "/out";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reading end, opened first without waiting for a writer, so neither
  // side blocks (the data fits the pipe's buffer) whatever the writer does.
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  const Status st = WriteStringToFile(fifo, "a,b\n1,2\n");
  std::string read;
  char buf[64];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) read.append(buf, static_cast<size_t>(n));
  ::close(fd);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(read, "a,b\n1,2\n");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_FALSE(std::filesystem::exists(fifo + ".tmp"));
  // A regular file is still replaced whole.
  const std::string file = dir->path() + "/plain.csv";
  ASSERT_TRUE(WriteStringToFile(file, "old, longer contents").ok());
  ASSERT_TRUE(WriteStringToFile(file, "new").ok());
  auto back = ReadFileToString(file);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "new");
}

}  // namespace
}  // namespace gpufleet
