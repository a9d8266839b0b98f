#pragma once
// A directory that holds one crash image at a time and is kept from image to
// image. Writing every image's files anew cost the checker a copy of each
// whole file, and the file system fresh pages for it, per image; a slot maps
// its files once and copies only the pages that differ from the image wanted
// (those the last image's stores and its recovery changed). What recovery did
// to the directory is undone first: an entry it made is removed, and a file
// it removed, replaced, resized or re-moded is written anew, so the directory
// ends exactly as if the image had been written into an empty one.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>

namespace gpmx::check {

struct slot_file {
  std::filesystem::path relative;    // below the slot's directory, normalized
  std::span<const std::byte> bytes;  // what it must hold
};

class image_slot {
 public:
  explicit image_slot(std::filesystem::path dir);
  ~image_slot();  // unmaps; the directory stays
  image_slot(const image_slot&) = delete;
  image_slot& operator=(const image_slot&) = delete;

  // Makes the directory hold exactly `files` (and the directories above
  // them), nothing else. Throws std::runtime_error naming the file when the
  // file system refuses.
  const std::filesystem::path& hold(std::span<const slot_file> files);
  const std::filesystem::path& dir() const { return dir_; }
  // Empties the directory: the next hold() writes every file anew, in new
  // inodes. After a failed image: a process of its recovery that was killed
  // (a timeout) may not have ended yet, and must not write into the files
  // of the next image.
  void clear();

  struct counts {
    std::uint64_t pages_copied = 0;     // pages that differed and were copied
    std::uint64_t files_written = 0;    // files written whole (first use, or changed by recovery)
    std::uint64_t entries_removed = 0;  // files and directories recovery left that the image lacks
  };
  const counts& written() const { return counts_; }

 private:
  struct mapped {
    bool known = false;  // written by this slot, identity below recorded
    std::byte* data = nullptr;
    std::size_t size = 0;
    dev_t device = 0;
    ino_t inode = 0;
    mode_t mode = 0;
  };
  void remove_strays(std::span<const slot_file> files);
  bool unchanged(const std::filesystem::path& path, const mapped& m, std::size_t size) const;
  void write_whole(const std::filesystem::path& path, std::span<const std::byte> bytes, mapped& m);
  static void unmap(mapped& m);

  std::filesystem::path dir_;
  std::map<std::filesystem::path, mapped> files_;
  counts counts_;
};

}  // namespace gpmx::check
