#include "gpmx/check/pool_reads.hpp"

#include <fmt/format.h>
#include <sstream>
#include <stdexcept>

namespace gpmx::check {

// One item a line: "C0"/"C1" (complete), "N" + note, "F" + path (the file
// the offsets after it belong to), or an offset in hex.
std::string encode(const pool_reads& r) {
  std::string out = r.complete ? "C1\n" : "C0\n";
  if (!r.note.empty()) out += "N" + r.note + "\n";
  for (const pool_reads::file& f : r.files) {
    out += "F" + f.path + "\n";
    for (std::uint64_t o : f.offsets) out += fmt::format("{:x}\n", o);
  }
  return out;
}

pool_reads decode_pool_reads(const std::string& text) {
  pool_reads r;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    switch (line[0]) {
      case 'C': r.complete = line == "C1"; break;
      case 'N': r.note = line.substr(1); break;
      case 'F': r.files.push_back({line.substr(1), {}}); break;
      default: {
        std::size_t used = 0;
        std::uint64_t offset = 0;
        try {
          offset = std::stoull(line, &used, 16);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != line.size() || r.files.empty())
          throw std::runtime_error(fmt::format("pool reads, line {}: '{}' is not an offset after a file", number, line));
        r.files.back().offsets.push_back(offset);
      }
    }
  }
  return r;
}

}  // namespace gpmx::check
