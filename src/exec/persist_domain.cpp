#include "gpmx/exec/persist_domain.hpp"

namespace gpmx {

void persist_domain::persist_lines(const std::uintptr_t* lines, std::size_t n) const {
  std::size_t i = 0;
  while (i < n) {
    std::size_t j = i + 1;
    while (j < n && lines[j] == lines[j - 1] + 1) ++j;
    persist_range(reinterpret_cast<const void*>(lines[i] * persist_line_bytes),
                  (lines[j - 1] - lines[i] + 1) * persist_line_bytes);
    i = j;
  }
}

}  // namespace gpmx
