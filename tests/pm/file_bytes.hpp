#pragma once
// Whole-file reads and writes for tests that corrupt or tear pool files.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace gpmx::test {

inline std::vector<char> bytes_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<char>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(b.data(), std::streamsize(b.size()));
}

}  // namespace gpmx::test
