#include "gpmx/support/process_io.hpp"

#include <fstream>
#include <string>

namespace gpmx {

std::optional<process_io_bytes> process_io() {
  std::ifstream in("/proc/self/io");
  process_io_bytes io;
  bool read = false, written = false;
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "read_bytes:") io.read = value, read = true;
    if (key == "write_bytes:") io.written = value, written = true;
  }
  if (!read || !written) return std::nullopt;
  return io;
}

}  // namespace gpmx
