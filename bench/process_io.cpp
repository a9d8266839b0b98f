#include "process_io.hpp"

#include <fstream>
#include <string>

namespace gpmx::bench {

std::optional<std::uint64_t> process_write_bytes() {
  std::ifstream in("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value)
    if (key == "write_bytes:") return value;
  return std::nullopt;
}

}  // namespace gpmx::bench
