// Fuzz target: an HCL log file as recovery reads it. The input is the whole
// log file; open() must refuse it or give a log whose every entry recovery
// can visit (for_each_entry) and read back and remove in a kernel, as the
// workloads' undo kernels do, without leaving the log's regions.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/pm/hcl_log.hpp"

namespace {

// The undo kernels' loop: newest entry first, until the thread's slot is empty.
struct drain_kernel {
  template <class Ctx>
  void operator()(Ctx& t, gpmx::pm::hcl_view log) const {
    while (!log.is_empty(t)) {
      std::uint64_t entry = 0;
      log.read(t, &entry, sizeof entry);
      log.remove(t, sizeof entry);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpmx;
  fuzz::refusing_damaged_file("input.log", data, size, [](const std::filesystem::path& file) {
    auto log = pm::hcl_log::open(file, pm::durability::none);
    std::uint64_t entries = 0;
    log.for_each_entry(8, [&](std::uint64_t, std::uint32_t, const void*) { ++entries; });
    const pm::hcl_view v = log.view();
    // The lanes are bounded by the input's size; a launch per lane stays small.
    if (std::uint64_t(v.blocks) * v.threads <= 4096)
      fuzz::one_worker().launch({dim3(std::uint32_t(v.blocks)), dim3(v.threads), 0, "fuzz_hcl_drain"},
                                drain_kernel{}, v);
  });
  return 0;
}
