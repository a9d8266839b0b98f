#include "kv_table.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace gpmx::cli {

void print_result(const kv_result& r, bool json) {
  if (json) {
    fmt::print("{}\n", r.json.dump(2));
    return;
  }
  std::size_t width = 0;
  for (const auto& [label, value] : r.rows) width = std::max(width, label.size());
  for (const auto& [label, value] : r.rows) fmt::print("  {:<{}}  {}\n", label, width, value);
}

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1000 && u < 4) v /= 1000, ++u;
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace gpmx::cli
