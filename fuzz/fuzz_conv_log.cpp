// Fuzz target: a conventional log file as recovery reads it. The input is the
// whole log file; open() must refuse it or give a log whose partitions a
// kernel can read and remove entry by entry without leaving them.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/conv_log.hpp"
#include "gpmx/pm/errors.hpp"

namespace {

// One thread per partition: the newest entry first, until it is empty.
struct drain_kernel {
  template <class Ctx>
  void operator()(Ctx& t, gpmx::pm::conv_view log) const {
    const int p = int(t.block_rank());
    while (!log.is_empty(t, p)) {
      std::uint64_t entry = 0;
      log.read(t, &entry, sizeof entry, p);
      log.remove(t, sizeof entry, p);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpmx;
  fuzz::refusing_damaged_file("input.log", data, size, [](const std::filesystem::path& file) {
    auto log = pm::conv_log::open(file, pm::durability::none);
    const pm::conv_view v = log.view();
    for (std::uint32_t p = 0; p < v.partitions; ++p) (void)log.size_of(p);
    if (v.partitions <= 4096)
      fuzz::one_worker().launch({dim3(v.partitions), dim3(1), 0, "fuzz_conv_drain"}, drain_kernel{}, v);
  });
  return 0;
}
