// image_slot: a directory kept from image to image ends each hold() exactly
// as a fresh write of the image would leave it, whatever "recovery" did to
// it in between, and copies only the pages that differ.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "check/image_slot.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using gpmx::check::image_slot;
using gpmx::check::slot_file;

std::vector<std::byte> pattern(std::size_t n, int seed) {
  std::vector<std::byte> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = std::byte((i * 131 + std::size_t(seed) * 7) & 0xff);
  return out;
}

// Every entry below `dir`: regular files with their bytes, directories as "<dir>".
std::map<std::string, std::string> contents(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = e.path().lexically_relative(dir).string();
    if (e.symlink_status().type() == fs::file_type::directory) {
      out[rel] = "<dir>";
    } else if (e.symlink_status().type() == fs::file_type::regular) {
      std::string bytes(fs::file_size(e.path()), '\0');
      std::ifstream(e.path(), std::ios::binary).read(bytes.data(), std::streamsize(bytes.size()));
      out[rel] = bytes;
    } else {
      out[rel] = "<other>";
    }
  }
  return out;
}

std::map<std::string, std::string> expected(const std::vector<slot_file>& files) {
  std::map<std::string, std::string> out;
  for (const slot_file& f : files) {
    out[f.relative.string()] = std::string(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
    for (fs::path p = f.relative.parent_path(); !p.empty(); p = p.parent_path()) out[p.string()] = "<dir>";
  }
  return out;
}

void overwrite(const fs::path& path, std::size_t at, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::pwrite(fd, text.data(), text.size(), off_t(at)), ssize_t(text.size()));
  ::close(fd);
}

class ImageSlot : public ::testing::Test {
 protected:
  gpmx::scratch_dir scratch;
  image_slot slot{scratch / "slot"};
  std::vector<std::byte> pool = pattern(5 * 4096 + 100, 1);  // five pages and a piece
  std::vector<std::byte> meta = pattern(300, 2);
  std::vector<std::byte> empty;
  std::vector<slot_file> files() const {
    return {{"w/pool.gpm", pool}, {"w/meta", meta}, {"w/sub/empty", empty}};
  }
  void hold_and_compare() {
    const std::vector<slot_file> f = files();
    slot.hold(f);
    EXPECT_EQ(contents(slot.dir()), expected(f));
  }
};

TEST_F(ImageSlot, WritesEveryFileOnceThenOnlyTheDifferingPages) {
  hold_and_compare();
  EXPECT_EQ(slot.written().files_written, 3u);
  EXPECT_EQ(slot.written().pages_copied, 0u);
  hold_and_compare();  // the same image again: nothing to write
  EXPECT_EQ(slot.written().files_written, 3u);
  EXPECT_EQ(slot.written().pages_copied, 0u);
  pool[10] = std::byte{0xee};         // page 0
  pool[3 * 4096 + 5] = std::byte{1};  // page 3
  pool.back() = std::byte{2};         // the piece after page 4
  hold_and_compare();
  EXPECT_EQ(slot.written().files_written, 3u);
  EXPECT_EQ(slot.written().pages_copied, 3u);
}

TEST_F(ImageSlot, UndoesWhatRecoveryWroteInPlace) {
  hold_and_compare();
  overwrite(slot.dir() / "w/pool.gpm", 4096 + 7, "recovered");
  overwrite(slot.dir() / "w/meta", 0, "x");
  hold_and_compare();
  EXPECT_EQ(slot.written().pages_copied, 2u);
  EXPECT_EQ(slot.written().files_written, 3u);
}

TEST_F(ImageSlot, RemovesWhatRecoveryAddedAndRewritesWhatItReplaced) {
  hold_and_compare();
  std::ofstream(slot.dir() / "w/new-log") << "made by recovery";
  fs::create_directories(slot.dir() / "w/newdir/deeper");
  std::ofstream(slot.dir() / "w/newdir/deeper/f") << "x";
  std::ofstream(slot.dir() / "top-level") << "x";
  hold_and_compare();
  EXPECT_EQ(slot.written().entries_removed, 3u);  // new-log, newdir (with what it holds), top-level

  // Replaced by rename (a new inode with the same bytes), removed, resized,
  // re-moded, turned into a directory: each is written whole again.
  const std::uint64_t before = slot.written().files_written;
  std::ofstream(slot.dir() / "w/tmp", std::ios::binary)
      .write(reinterpret_cast<const char*>(meta.data()), std::streamsize(meta.size()));
  fs::rename(slot.dir() / "w/tmp", slot.dir() / "w/meta");
  fs::remove(slot.dir() / "w/sub/empty");
  fs::resize_file(slot.dir() / "w/pool.gpm", 4096);
  hold_and_compare();
  EXPECT_EQ(slot.written().files_written, before + 3);
  ASSERT_EQ(::chmod((slot.dir() / "w/meta").c_str(), 0400), 0);
  fs::remove(slot.dir() / "w/sub/empty");
  fs::create_directories(slot.dir() / "w/sub/empty/inside");
  hold_and_compare();
  EXPECT_EQ(slot.written().files_written, before + 5);
  struct stat st {};
  ASSERT_EQ(::stat((slot.dir() / "w/meta").c_str(), &st), 0);
  EXPECT_NE(st.st_mode & 0200, 0u) << "the re-moded file was not written anew";
}

TEST_F(ImageSlot, AfterClearEveryFileIsANewInode) {
  hold_and_compare();
  struct stat before {};
  ASSERT_EQ(::stat((slot.dir() / "w/pool.gpm").c_str(), &before), 0);
  // A process still holding the old file open writes after the clear.
  const int fd = ::open((slot.dir() / "w/pool.gpm").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  slot.clear();
  EXPECT_FALSE(fs::exists(slot.dir()));
  hold_and_compare();
  ASSERT_EQ(::pwrite(fd, "late", 4, 0), 4);
  ::close(fd);
  struct stat after {};
  ASSERT_EQ(::stat((slot.dir() / "w/pool.gpm").c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino);
  EXPECT_EQ(contents(slot.dir()), expected(files()));  // the late write went to the old inode
}

TEST_F(ImageSlot, ImagesWithOtherFilesDropTheOldOnes) {
  hold_and_compare();
  const std::vector<slot_file> fewer{{"w/pool.gpm", pool}};
  slot.hold(fewer);
  EXPECT_EQ(contents(slot.dir()), expected(fewer));
  hold_and_compare();
}

}  // namespace
