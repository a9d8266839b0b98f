// Fuzz target: a pool file's header and namespace table. The input is the
// whole file; open() must either refuse it with a pm_error or give regions
// that lie inside the mapping (every byte of each is read).
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/pm/pool.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpmx;
  fuzz::refusing_damaged_file("input.pool", data, size, [](const std::filesystem::path& file) {
    auto p = pm::pool::open(file, pm::durability::none);
    std::uint8_t sum = 0;
    for (const pm::region_info& info : p.list()) {
      const pm::region r = p.find(info.name);
      for (std::uint64_t i = 0; i < r.size(); i += 512) sum ^= std::uint8_t(r.data()[i]);
      if (r.size() > 0) sum ^= std::uint8_t(r.data()[r.size() - 1]);
    }
    volatile std::uint8_t keep = sum;
    (void)keep;
  });
  return 0;
}
