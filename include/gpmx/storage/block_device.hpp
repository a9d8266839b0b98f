#pragma once
// A backing file or block device that an emulated NVMe controller serves:
// opened for reading and writing, with O_DIRECT where the file system
// allows it (the page cache would otherwise hide the device's latency),
// addressed in logical blocks.
#include <cstdint>
#include <filesystem>
#include <string>

namespace gpmx::storage {

struct device_options {
  std::uint32_t lba_bytes = 512;  // logical block size: 512 or 4096
  bool direct = true;             // try O_DIRECT (fall back when the file system refuses it)
};

class block_device {
 public:
  // Opens `path` (which must exist and hold a whole number of blocks);
  // `name` is what errors and statistics call it.
  block_device(const std::filesystem::path& path, std::string name, device_options o = {});
  ~block_device();
  block_device(const block_device&) = delete;
  block_device& operator=(const block_device&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  const std::filesystem::path& path() const { return path_; }
  std::uint32_t lba_bytes() const { return lba_bytes_; }
  std::uint64_t blocks() const { return blocks_; }
  bool direct() const { return direct_; }

 private:
  std::filesystem::path path_;
  std::string name_;
  int fd_ = -1;
  std::uint32_t lba_bytes_ = 512;
  std::uint64_t blocks_ = 0;
  bool direct_ = false;
};

}  // namespace gpmx::storage
