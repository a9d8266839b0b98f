// Crash images of the timed mode: what the simulated NVM holds at a given
// time (durable_log, durability_tracker; docs/sim-persistency.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/sim/crash_image_files.hpp"
#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;

sim::sim_config with(const char* model) {
  sim::sim_config c;
  sim::set_parameter(c, "persist.model", model);
  return c;
}

// A timed run whose PM writes are followed (or not).
struct tracked_run {
  scratch_dir dir;
  sim::gpu_model gpu;
  sim::durability_tracker tracker;
  cpu::executor ex;
  pm::pool pool;
  pm::region region;
  tracked_run(const sim::sim_config& c, bool track)
      : gpu(c),
        tracker(c.l1.line, c.l1.sector),
        ex({.policy = cpu::schedule::timed, .timing = &(track ? start(gpu, tracker) : gpu)}),
        pool(pm::pool::create(dir / "p.pool", 4 << 20, {.mode = pm::durability::none})),
        region(pool.create_region("data", 1 << 20)) {}
  static sim::gpu_model& start(sim::gpu_model& g, sim::durability_tracker& t) {
    g.track_durability(&t);
    return g;
  }
  pm::pm_span<std::uint32_t> words() { return region.span<std::uint32_t>(); }
  std::uint64_t offset_in_file() const { return std::uint64_t(region.data() - pool.base()); }
  // Word i of the region as the NVM held it at t.
  std::uint32_t word_at(sim::picos t, std::size_t i) const {
    for (const auto& f : tracker.log().files_at(t))
      if (f.path == dir / "p.pool") {
        std::uint32_t v = 0;
        std::memcpy(&v, f.bytes.data() + offset_in_file() + 4 * i, 4);
        return v;
      }
    ADD_FAILURE() << "no image of the pool";
    return 0;
  }
  // The first time word i holds v (the images are monotone in these kernels).
  sim::picos first_holding(std::size_t i, std::uint32_t v) const {
    sim::picos lo = 0, hi = gpu.totals().end;
    if (word_at(hi, i) != v) return sim::not_durable;
    while (lo < hi) {
      const sim::picos mid = lo + (hi - lo) / 2;
      if (word_at(mid, i) == v) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
};

// Lane 0: word 0, a persist barrier (or dFence), word 1.
struct store_persist_store {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, bool sbrp) const {
    if (t.thread_rank() != 0) return;
    pm.bind(t)[0] = 7;
    if (sbrp) t.dfence();
    else t.gpm_persist();
    pm.bind(t)[1] = 9;
  }
};

TEST(DurableImage, AStoreAppearsWhenItIsDurableAndNotBefore) {
  for (const char* model : {"epoch", "sbrp"}) {
    tracked_run r(with(model), true);
    r.ex.launch({.grid = 1, .block = 32}, store_persist_store{}, r.words(), std::string_view(model) == "sbrp");
    EXPECT_EQ(r.word_at(0, 0), 0u) << model;
    const sim::picos first = r.first_holding(0, 7), second = r.first_holding(1, 9);
    ASSERT_NE(first, sim::not_durable) << model;
    ASSERT_NE(second, sim::not_durable) << model;
    EXPECT_GT(first, 0u) << model;
    // The barrier waits for the first; the second is stored after it.
    EXPECT_LT(first, second) << model;
    EXPECT_EQ(r.word_at(second - 1, 1), 0u) << model;
    EXPECT_EQ(r.tracker.waiting(), 0u) << model;
    EXPECT_EQ(r.tracker.log().pieces_not_durable(), 0u) << model;
  }
}

// Every thread adds to a PM counter (device scope) and stores its own
// word; one lane releases a PM flag at block scope.
struct atomics_and_release {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm) const {
    std::uint32_t* words = pm.raw();
    t.atomic_add(&words[0], 1u, memory_order::relaxed, scope::device);
    pm.bind(t)[64 + t.global_id()] = std::uint32_t(t.global_id() + 1);
    if (t.thread_rank() == 0) t.prel(scope::block, &words[32 + t.block_rank()], 5u);
  }
};

TEST(DurableImage, AtomicsAndReleasesOnPMReachTheImage) {
  tracked_run r(with("sbrp"), true);
  r.ex.launch({.grid = 4, .block = 64}, atomics_and_release{}, r.words());
  const sim::picos end = r.gpu.totals().end;
  EXPECT_EQ(r.word_at(end, 0), 256u);
  for (std::size_t b = 0; b < 4; ++b) EXPECT_EQ(r.word_at(end, 32 + b), 5u) << "block " << b;
  for (std::size_t i = 0; i < 256; ++i) ASSERT_EQ(r.word_at(end, 64 + i), i + 1) << "thread " << i;
  // The counter's adds become durable one by one, never going back.
  std::uint32_t last = 0;
  for (sim::picos t = 0; t <= end; t += end / 64 + 1) {
    const std::uint32_t v = r.word_at(t, 0);
    EXPECT_GE(v, last) << "at " << t << " ps";
    last = v;
  }
  EXPECT_EQ(r.tracker.waiting(), 0u);
  EXPECT_EQ(r.tracker.log().pieces_not_durable(), 0u);
}

TEST(DurableImage, FollowingTheWritesLeavesTheTimingAlone) {
  for (const char* model : {"epoch", "sbrp", "gpm"}) {
    sim::picos plain_end = 0;
    {  // one run at a time: an executor is the host observer while it lives
      tracked_run plain(with(model), false);
      plain.ex.launch({.grid = 4, .block = 64}, atomics_and_release{}, plain.words());
      plain_end = plain.gpu.totals().end;
    }
    tracked_run tracked(with(model), true);
    tracked.ex.launch({.grid = 4, .block = 64}, atomics_and_release{}, tracked.words());
    EXPECT_EQ(plain_end, tracked.gpu.totals().end) << model;
    EXPECT_GT(tracked.tracker.log().pieces(), 256u) << model;
  }
}

TEST(DurableLog, AFileIsItsFirstBytesWithWhatWasDurableAndAbsentBeforeItsFirstMapping) {
  scratch_dir dir;
  const auto path = dir / "f";
  std::ofstream(path) << std::string(16, 'a');
  std::vector<std::byte> first(16, std::byte{'a'}), again(16, std::byte{'?'});
  sim::durable_log log;
  log.mapped(first.data(), 16, path.string(), 100);
  first[3] = std::byte{'x'};
  log.durable(log.take(&first[3], 1), 150);
  first[4] = std::byte{'y'};
  (void)log.take(&first[4], 1);  // never durable
  log.unmapped(first.data());
  EXPECT_THROW(log.take(&first[0], 1), gpmx::error);  // no longer mapped
  // Mapped again (the bytes there now do not matter: the file is followed
  // from its first mapping).
  log.mapped(again.data(), 16, path.string(), 200);
  again[0] = std::byte{'z'};
  log.durable(log.take(&again[0], 1), 250);
  EXPECT_EQ(log.pieces_not_durable(), 1u);
  EXPECT_EQ(log.pieces_durable_by(150), 1u);

  auto text = [&](sim::picos t) {
    const auto files = log.files_at(t);
    EXPECT_EQ(files.size(), 1u);
    if (!files[0].exists) return std::string("(none)");
    return std::string(reinterpret_cast<const char*>(files[0].bytes.data()), files[0].bytes.size());
  };
  EXPECT_EQ(text(99), "(none)");
  EXPECT_EQ(text(149), "aaaaaaaaaaaaaaaa");
  EXPECT_EQ(text(150), "aaaxaaaaaaaaaaaa");
  EXPECT_EQ(text(250), "zaaxaaaaaaaaaaaa");

  const sim::written_images w = sim::write_images(log.files_at(99));
  EXPECT_EQ(w.removed, 1u);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DurableLog, LaterDurableWritesOfTheSameBytesWin) {
  scratch_dir dir;
  const auto path = dir / "f";
  std::ofstream(path) << std::string(8, '0');
  std::vector<std::byte> m(8, std::byte{'0'});
  sim::durable_log log;
  log.mapped(m.data(), 8, path.string(), 0);
  m[0] = std::byte{'1'};
  const auto one = log.take(&m[0], 1);
  m[0] = std::byte{'2'};
  const auto two = log.take(&m[0], 1);
  // The later store reached the NVM first (another SM's write-back, say).
  log.durable(two, 10);
  log.durable(one, 20);
  EXPECT_EQ(char(log.files_at(15)[0].bytes[0]), '2');
  EXPECT_EQ(char(log.files_at(20)[0].bytes[0]), '1');
  const sim::written_images w = sim::write_images(log.files_at(15));
  EXPECT_EQ(w.written, 1u);
  std::string back;
  std::ifstream(path) >> back;
  EXPECT_EQ(back, "20000000");
}

}  // namespace
