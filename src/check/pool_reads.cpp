#include "gpmx/check/pool_reads.hpp"

#include <fmt/format.h>
#include <cstdint>
#include <map>
#include <sstream>
#include <unordered_set>
#include <vector>
#include <stdexcept>

namespace gpmx::check {

// One item a line: "C0"/"C1" (complete), "N" + note, "W" + who read (when
// not recovery), "F" + path (the file
// the offsets after it belong to), or an offset in hex.
std::string encode(const pool_reads& r) {
  std::string out = r.complete ? "C1\n" : "C0\n";
  if (!r.note.empty()) out += "N" + r.note + "\n";
  if (r.reader != "recovery") out += "W" + r.reader + "\n";
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
  std::map<std::string, std::size_t> index;                   // file path -> r.files
  std::vector<std::unordered_set<std::uint64_t>> seen;        // per file
  std::size_t current = SIZE_MAX;                              // the file offsets belong to
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    switch (line[0]) {
      case 'C': r.complete = r.complete && line == "C1"; break;
      case 'N': r.note += (r.note.empty() ? "" : "; ") + line.substr(1); break;
      case 'W': r.reader = line.substr(1); break;
      case 'F': {
        auto [it, added] = index.try_emplace(line.substr(1), r.files.size());
        if (added) {
          r.files.push_back({line.substr(1), {}});
          seen.emplace_back();
        }
        current = it->second;
        break;
      }
      default: {
        std::size_t used = 0;
        std::uint64_t offset = 0;
        try {
          offset = std::stoull(line, &used, 16);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != line.size() || current == SIZE_MAX)
          throw std::runtime_error(fmt::format("pool reads, line {}: '{}' is not an offset after a file", number, line));
        if (seen[current].insert(offset).second) r.files[current].offsets.push_back(offset);
      }
    }
  }
  return r;
}

}  // namespace gpmx::check
