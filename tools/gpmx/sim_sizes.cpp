#include "sim_sizes.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace gpmx::cli {

void note_test_sizes(std::string_view workload, const std::vector<std::string>& param_texts, bool full_size,
                     bool quiet) {
  if (full_size || quiet || param_texts.empty()) return;
  fmt::print(stderr,
             "gpmx sim: {}'s other parameters are its test sizes (the report lists them); --full-size starts "
             "from its own defaults\n",
             workload);
}

}  // namespace gpmx::cli
