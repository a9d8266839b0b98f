#include "bench_output.hpp"

#include <fmt/format.h>
#include <fstream>
#include <stdexcept>

namespace gpmx::cli {

void print_results(const std::vector<bench::result>& results, bool json, const std::string& out) {
  const auto j = bench::to_json(results);
  if (json) fmt::print("{}\n", j.dump(2));
  else fmt::print("{}", bench::to_table(results));
  if (!out.empty()) {
    std::ofstream f(out);
    if (!(f << j.dump(2) << "\n")) throw std::runtime_error("cannot write " + out);
  }
}

}  // namespace gpmx::cli
