#pragma once
// The page-fault baselines' view of a device file (the analogue of unified
// memory: the OS brings pages in as threads touch them). What they read and
// write is the process's own count (gpmx/support/process_io.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "bam/storage_layout.hpp"
#include "gpmx/support/process_io.hpp"

namespace gpmx::apps::bam {

class mapped_file {
 public:
  // The one device file of layout l under dir (config_error naming the
  // method's need when the data is striped over more than one).
  mapped_file(const std::filesystem::path& dir, const storage_layout& l, bool writable);
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  // Where stored array `name` starts in the mapping.
  template <class T>
  T* array(std::string_view name) const {
    return reinterpret_cast<T*>(data_ + layout_.find(name).first_lba * lba_bytes);
  }
  void sync();  // msync of the whole mapping (writable ones)

 private:
  std::filesystem::path path_;
  storage_layout layout_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// Bytes this process read and wrote since `before` (zeros where the kernel
// does not count them).
process_io_bytes process_io_since(const std::optional<process_io_bytes>& before);

}  // namespace gpmx::apps::bam
