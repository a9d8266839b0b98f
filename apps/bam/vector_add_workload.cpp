// vectorAdd over vectors on storage (`gpmx run bam-vectoradd`): BaM's
// write-heavy workload (002_..., section 5.4): c = a + b, all three stored.
// Methods: bam (a warp per cache line of c, reading a and b and writing c
// through the page cache, then write-back and FLUSH; -p overwrite=1, the
// default, fills c's lines without reading them first), tiling (the host loads
// tiles of a and b, a kernel adds them, the host writes the tile of c while
// it loads the next tile, as the paper's baseline overlaps them; one
// fdatasync at the end), mmap (all three mapped; msync at the end).
#include <algorithm>
#include <chrono>
#include <future>
#include <span>

#include <fmt/format.h>

#include "bam/common_params.hpp"
#include "bam/mapped_file.hpp"
#include "bam/run_files.hpp"
#include "bam/storage_workload.hpp"
#include "common/run_meta.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/storage/array.hpp"
#include "gpmx/support/elapsed.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps::bam {
namespace {

enum method : std::uint64_t { bam_method = 0, tiling = 1, mmap_method = 2 };

std::uint64_t input_value(std::uint64_t seed, std::uint32_t vector, std::uint64_t i) {
  return mix64(seed * 0x9e3779b97f4a7c15ull + 2 * i + vector) >> 2;  // two of them never overflow
}

storage_layout layout_of(const params& data) {
  const std::uint64_t bytes = data.at("elements") * 8;
  return storage_layout::plan(std::uint32_t(data.at("devices")), std::uint32_t(data.at("line")),
                              {{"a", bytes}, {"b", bytes}, {"c", bytes}});
}

// A warp per cache line of c; its lanes walk the line in step, each keeping
// its pages of a, b and c pinned across the line (reference reuse). With
// `overwrite` the warp fills c's line whole (array_view::overwrite_page), so
// a line of c not in the cache is not read first; without it every line of
// c is read before it is written, as BaM's write path does.
struct stored_add_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, storage::array_view<std::uint64_t> a, storage::array_view<std::uint64_t> b,
                  storage::array_view<std::uint64_t> c, std::uint64_t per_line, bool overwrite) const {
    storage::warp_cursor<std::uint64_t> ra(a), rb(b), wc(c);
    const std::uint64_t lines = (c.size() + per_line - 1) / per_line, warps = t.global_count() / 32;
    for (std::uint64_t line = t.global_id() / 32; line < lines; line += warps) {
      if (overwrite) {
        // a's and b's pages pinned before c's line is taken, as the other
        // path takes them: a warp holds at most three lines either way.
        (void)ra.read(t, line * per_line);
        (void)rb.read(t, line * per_line);
        c.overwrite_page(t, line, [&](std::uint64_t i) { return ra.read(t, i) + rb.read(t, i); });
      } else {
        const std::uint64_t end = std::min(c.size(), (line + 1) * per_line);
        for (std::uint64_t i = line * per_line + t.lane_id(); i < end; i += 32) wc.write(t, i, ra.read(t, i) + rb.read(t, i));
        wc.done(t);
      }
      ra.done(t);
      rb.done(t);
    }
  }
};

struct memory_add_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* c, std::uint64_t n) const {
    for (std::uint64_t i = t.global_id(); i < n; i += t.global_count()) {
      t.record_load(mem_space::global, a + i, 8);
      t.record_load(mem_space::global, b + i, 8);
      c[i] = a[i] + b[i];
      t.record_store(mem_space::global, c + i, 8);
    }
  }
};

class vector_add_workload final : public storage_workload {
 public:
  std::string_view name() const override { return "bam-vectoradd"; }
  std::string_view summary() const override {
    return "c = a + b with all three vectors on storage, write-back through the cache (BaM section 5.4)";
  }
  std::vector<std::string> methods() const override { return {"bam", "tiling", "mmap"}; }
  std::vector<param_spec> parameters() const override {
    return with_storage_parameters({{"elements", 1u << 22, "8-byte elements per vector"},
                                    {"seed", 1, "seed of the inputs"},
                                    {"tile", 1u << 20, "tiling: elements per tile"},
                                    {"overwrite", 1,
                                     "bam: 1 fills a line of c not in the cache without reading it (the warp "
                                     "writes it whole); 0 reads it first, as BaM does"}},
                                   bam_method, 8192);
  }
  params small_params() const override {
    return small_storage_params({{"elements", 1u << 15}, {"seed", 1}, {"tile", 1u << 12}, {"overwrite", 1}}, 4096,
                                bam_method, 256, 256);
  }

  void prepare(const storage_env& e, const params& p) override {
    check_range(p, "elements", 1, std::uint64_t(1) << 34);
    check_layout_parameters(p);
    check_runtime(p);
    fresh_directory(e.dir);
    const storage_layout l = layout_of(p);
    create_devices(e.dir, l);
    for (std::uint32_t v = 0; v < 2; ++v)
      write_generated(e.dir, l, v == 0 ? "a" : "b", p.at("elements"),
                      [&](std::uint64_t i) { return input_value(p.at("seed"), v, i); });
    settle_devices(e.dir, l);
    write_meta(e.dir, name(), p);
  }

  storage_run_report execute(const storage_env& e, const params& p) override {
    check_runtime(p);
    const params data = read_meta(e.dir, name());
    const storage_layout l = layout_of(data);
    settle_devices(e.dir, l);
    const std::uint64_t n = data.at("elements");
    storage_run_report r;
    r.method = methods()[p.at("method")];
    require_timed_method(e, p.at("method") == bam_method, r.method);
    r.unit = "elements";
    r.operations = n;
    r.bytes_used = 2 * n * 8;  // the inputs: what a run must read
    const launch_config grid = grid_of(p, "bam_vectoradd");
    launch_target target = e.target();
    if (p.at("method") == bam_method) {
      storage_stack s(e.ex, e.dir, l, stack_options_of(e, p, data));
      const auto start = std::chrono::steady_clock::now();
      storage::launch(target, s.cache(), grid, stored_add_kernel{}, s.array<std::uint64_t>("a"), s.array<std::uint64_t>("b"),
                  s.array<std::uint64_t>("c"), std::uint64_t(l.line_bytes / 8), p.at("overwrite") == 1);
      storage::flush(target, s.cache());
      r.seconds = seconds_since(start);
      const io_totals io = s.io();
      r.bytes_read = io.bytes_read;
      r.bytes_written = io.bytes_written;
      r.io_commands = io.commands;
      r.cached = true;
      r.cache = s.cache().counters();
      r.launches = 3;
    } else if (p.at("method") == tiling) {
      run_tiled(e, p, l, n, grid, r);
    } else {
      require_gpu_reaches_mapping(e, r.method);
      mapped_file f(e.dir, l, true);
      const auto before = process_io();
      const auto start = std::chrono::steady_clock::now();
      target.launch(grid, memory_add_kernel{}, static_cast<const std::uint64_t*>(f.array<std::uint64_t>("a")),
                  static_cast<const std::uint64_t*>(f.array<std::uint64_t>("b")), f.array<std::uint64_t>("c"), n);
      f.sync();
      r.seconds = seconds_since(start);
      const process_io_bytes io = process_io_since(before);
      r.bytes_read = io.read;
      r.bytes_written = io.written;
      r.launches = 1;
    }
    r.answer = fmt::format("c = a + b over {} elements written to storage", n);
    write_result(e.dir, std::vector<std::uint64_t>{n});
    return r;
  }

  verify_report verify(const storage_env& e) override {
    const params data = read_meta(e.dir, name());
    const auto done = read_result<std::uint64_t>(e.dir, name());
    const storage_layout l = layout_of(data);
    const std::uint64_t n = data.at("elements"), chunk = 1 << 18;
    verify_report v;
    if (done.size() != 1 || done[0] != n) {
      v.detail = "the result file does not record a finished run";
      return v;
    }
    std::vector<std::uint64_t> a(chunk), b(chunk), c(chunk);
    for (std::uint64_t first = 0; first < n; first += chunk) {
      const std::uint64_t k = std::min(chunk, n - first);
      read_array(e.dir, l, "a", first * 8, std::as_writable_bytes(std::span(a.data(), k)));
      read_array(e.dir, l, "b", first * 8, std::as_writable_bytes(std::span(b.data(), k)));
      read_array(e.dir, l, "c", first * 8, std::as_writable_bytes(std::span(c.data(), k)));
      for (std::uint64_t i = 0; i < k; ++i)
        if (c[i] != a[i] + b[i]) {
          v.detail = fmt::format("c[{}] is {}; a + b is {}", first + i, c[i], a[i] + b[i]);
          return v;
        }
    }
    v.ok = true;
    v.checked = n;
    v.detail = fmt::format("every one of the {} elements of c on storage equals a + b", n);
    return v;
  }

 private:
  void check_runtime(const params& p) const {
    check_runtime_parameters(p, methods().size());
    check_range(p, "tile", 1, std::uint64_t(1) << 30);
    check_range(p, "overwrite", 0, 1);
  }

  // Loads tile k + 1 while the write of tile k is in flight (two sets of buffers).
  void run_tiled(const storage_env& e, const params& p, const storage_layout& l, std::uint64_t n,
                 const launch_config& grid, storage_run_report& r) {
    const std::uint64_t tile = std::min(p.at("tile"), n);
    // Kernel memory: the kernel reads and writes the tiles.
    kernel_vector<std::uint64_t> a(tile), b(tile);
    kernel_vector<std::uint64_t> c[2] = {kernel_vector<std::uint64_t>(tile), kernel_vector<std::uint64_t>(tile)};
    std::future<void> writing;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t first = 0, k = 0; first < n; first += tile, ++k) {
      const std::uint64_t m = std::min(tile, n - first);
      read_array(e.dir, l, "a", first * 8, std::as_writable_bytes(std::span(a.data(), m)));
      read_array(e.dir, l, "b", first * 8, std::as_writable_bytes(std::span(b.data(), m)));
      kernel_vector<std::uint64_t>& out = c[k % 2];
      e.target().launch(grid, memory_add_kernel{}, static_cast<const std::uint64_t*>(a.data()),
                  static_cast<const std::uint64_t*>(b.data()), out.data(), m);
      ++r.launches;
      if (writing.valid()) writing.get();
      writing = std::async(std::launch::async, [&e, &l, &out, first, m] {
        write_array(e.dir, l, "c", first * 8, std::as_bytes(std::span(out.data(), m)));
      });
      r.bytes_read += 2 * m * 8;
      r.bytes_written += m * 8;
      e.report(double(first + m) / n);
    }
    if (writing.valid()) writing.get();
    sync_devices(e.dir, l);
    r.seconds = seconds_since(start);
  }
};

}  // namespace

std::unique_ptr<storage_workload> make_bam_vector_add() { return std::make_unique<vector_add_workload>(); }

}  // namespace gpmx::apps::bam
