// Writes the seed corpora of the fuzz targets whose inputs are gpmx files
// (corpus/<target>/ under the directory given): a small pool with two
// regions, an HCL log and a conventional log holding entries written by a
// kernel, a trace of a small kernel on a small pool, and for fuzz_workload
// each workload with no patch and with one.
// scripts/fuzz.sh --make-seeds runs it; the files are committed.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/registry.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/conv_log.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/trace/recorder.hpp"
#include "gpmx/trace/trace_file.hpp"

namespace {
using namespace gpmx;
namespace fs = std::filesystem;

struct hcl_fill {
  template <class Ctx>
  void operator()(Ctx& t, pm::hcl_view log) const {
    for (std::uint64_t i = 0; i <= t.thread_rank() % 3; ++i) {
      const std::uint64_t v = t.global_id() * 16 + i;
      log.insert(t, &v, sizeof v);
    }
  }
};

// A store, a persist, and a release in block 0 that block 1 acquires.
struct trace_kernel {
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words, std::uint32_t* flag) const {
    auto v = words.bind(t);
    v[t.global_id()] = t.global_id() + 1;
    t.gpm_persist();
    if (t.global_id() == 0) t.prel(scope::device, flag, 1u);
    if (t.block_rank() == 1 && t.thread_rank() == 0)
      t.spin_wait([&] { return t.pacq(scope::device, flag) == 1u; });
  }
};

struct conv_fill {
  template <class Ctx>
  void operator()(Ctx& t, pm::conv_view log) const {
    const std::uint64_t v = t.global_id();
    log.insert(t, &v, sizeof v);
  }
};

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds CORPUS_DIR\n");
    return 2;
  }
  const fs::path root = argv[1];
  for (const char* t : {"fuzz_pool", "fuzz_hcl_log", "fuzz_conv_log", "fuzz_workload", "fuzz_trace"}) {
    fs::remove_all(root / t);
    fs::create_directories(root / t);
  }
  {
    auto p = pm::pool::create(root / "fuzz_pool/two_regions.pool", 8 * 4096, {.mode = pm::durability::none, .table_capacity = 4});
    std::memset(p.create_region("first", 4096).data(), 0x5a, 4096);
    std::memcpy(p.create_region("second", 100).data(), "region data", 11);
  }
  cpu::executor ex({.workers = 1});
  {
    auto log = pm::hcl_log::create(root / "fuzz_hcl_log/entries.log", 2 * 32 * 64, 2, 32, pm::durability::none);
    ex.launch({dim3(2), dim3(32), 0, "seed_hcl"}, hcl_fill{}, log.view());
  }
  {
    auto log = pm::conv_log::create(root / "fuzz_conv_log/entries.log", 4096, 4, pm::durability::none);
    ex.launch({dim3(4), dim3(8), 0, "seed_conv"}, conv_fill{}, log.view());
  }
  {
    trace::recorder rec;
    {
      const pm::deterministic_pool_identity identity(1);
      cpu::executor traced({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &rec});
      auto p = pm::pool::create(root / "traced.pool", 8 * 4096, {.mode = pm::durability::none, .table_capacity = 4});
      pm::region r = p.create_region("words", 4096);
      std::uint32_t flag = 0;
      traced.launch({dim3(2), dim3(4), 0, "seed_trace"}, trace_kernel{}, r.span<std::uint64_t>(), &flag);
      r.persist();
    }
    fs::remove(root / "traced.pool");
    trace::trace t = rec.take();
    // The committed seed names no directory of the machine that made it:
    // source locations and the pool keep their file names only.
    for (std::string& s : t.strings) s = fs::path(s).filename().string();
    for (trace::pool_image& pi : t.pools) pi.path = fs::path(pi.path).filename().string();
    trace::write_trace(t, root / "fuzz_trace/small.trace");
  }
  // fuzz_workload: byte 0 the workload; a patch is file, region, offset, value.
  for (std::size_t w = 0; w < apps::all_workloads().size(); ++w) {
    const std::string name(apps::all_workloads()[w]->name());
    write_bytes(root / "fuzz_workload" / (name + "-as-left"), std::string(1, char(w)));
    std::string patched(1, char(w));
    patched += std::string("\0\0\0\0\0\0", 6);             // file 0, region 0, offset 0
    patched += std::string("\x01\0\0\0\0\0\0\0", 8);       // value 1
    write_bytes(root / "fuzz_workload" / (name + "-patched"), patched);
  }
  return 0;
}
