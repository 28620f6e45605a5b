#include "server/capture_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/file_util.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& p, std::string_view text) { std::ofstream(p) << text; }

std::vector<std::string> Names(const std::vector<CaptureFile>& files) {
  std::vector<std::string> out;
  for (const CaptureFile& f : files) out.push_back(f.name);
  return out;
}

// Only the capture's own files: its output and its output + "." suffixes,
// regular files, safe names; not another capture whose name merely starts
// the same, not links or folders, nothing for a path outside the directory.
TEST(CaptureFilesTest, ListsOnlyTheCapturesOwnRegularFiles) {
  StatusOr<ScratchDir> scratch = ScratchDir::Create("gpufleet-capture");
  ASSERT_TRUE(scratch.ok());
  const fs::path dir = scratch->path();
  Write(dir / "incident-7-n1-gpu0", "report");
  Write(dir / "incident-7-n1-gpu0.log", "nsys: done\n");
  Write(dir / "incident-7-n1-gpu0.nsys-rep", std::string(1000, 'x'));
  Write(dir / "incident-7-n1-gpu01", "another capture");
  Write(dir / "incident-70-n1-gpu0.log", "another incident");
  Write(dir / "incident-7-n1-gpu0.we\"ird", "unsafe name");
  fs::create_directory(dir / "incident-7-n1-gpu0.d");
  fs::create_symlink("/etc/hostname", dir / "incident-7-n1-gpu0.link");

  const std::string capture = (dir / "incident-7-n1-gpu0").string();
  std::vector<CaptureFile> files = ListCaptureFiles(dir.string(), capture);
  EXPECT_EQ(Names(files), (std::vector<std::string>{"incident-7-n1-gpu0", "incident-7-n1-gpu0.log",
                                                    "incident-7-n1-gpu0.nsys-rep"}));
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[2].bytes, 1000u);

  // The same capture named through ".." still resolves into the directory.
  EXPECT_EQ(ListCaptureFiles(dir.string(), (dir / "sub" / ".." / "incident-7-n1-gpu0").string())
                .size(),
            3u);
  // A capture path outside the directory, or captures off: nothing.
  EXPECT_TRUE(ListCaptureFiles(dir.string(), "/etc/hostname").empty());
  EXPECT_TRUE(ListCaptureFiles(dir.string(), (dir / ".." / "incident-7-n1-gpu0").string()).empty());
  EXPECT_TRUE(ListCaptureFiles("", capture).empty());
  // The capture wrote nothing here (its command left the output on a node).
  EXPECT_TRUE(ListCaptureFiles(dir.string(), (dir / "incident-9-n2").string()).empty());
}

}  // namespace
}  // namespace gpufleet
