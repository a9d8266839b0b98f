#pragma once
// The page-fault baselines' view of a device file (the analogue of unified
// memory: the OS brings pages in as threads touch them), and the process's
// own count of bytes read from and written to storage (/proc/self/io), which
// is what those baselines and the tiled ones report as their I/O.
#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace gpmx::apps::bam {

class mapped_file {
 public:
  mapped_file(const std::filesystem::path& p, bool writable);
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  void sync();  // msync of the whole mapping (writable ones)

 private:
  std::filesystem::path path_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

struct process_io {
  std::uint64_t read_bytes = 0, write_bytes = 0;
};
// Zeros where /proc/self/io is not readable (then the report says 0 bytes).
process_io read_process_io();

}  // namespace gpmx::apps::bam
