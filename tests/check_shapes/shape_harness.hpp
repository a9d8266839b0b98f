#pragma once
// Programs gpmx has never seen, checked as a user would: each test records
// a small kernel program under the trace schedule in a pool of its own, and
// checks it with a recovery-and-verify function written for it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpmx/check/check_run.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "gpmx/trace/recorder.hpp"

namespace gpmx::shapes {

inline const char* pool_name = "shape.pool";
inline const char* region_name = "data";

// Runs `program` on a fresh pool (one region of `words` 8-byte words) under
// the trace schedule with `seed`, and returns its trace.
using program = std::function<void(cpu::executor&, pm::pool&, pm::region&)>;
inline trace::trace record(const std::filesystem::path& dir, std::uint64_t seed, std::size_t words,
                           const program& run) {
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed, .observer = &rec});
  pm::pool p = pm::pool::create(dir / pool_name, 1 << 20, {.mode = pm::durability::none});
  pm::region r = p.create_region(region_name, words * 8);
  run(ex, p, r);
  return rec.take();
}

// The region's words in an image's directory, for a recovery to read (the
// shapes use fewer than max_words).
inline constexpr std::size_t max_words = 64;
using words = std::array<std::uint64_t, max_words>;
inline words image_words(const std::filesystem::path& dir) {
  pm::pool p = pm::pool::open(dir / pool_name, pm::durability::none);
  const auto w = p.find(region_name).as<std::uint64_t>();
  if (w.size() > max_words) throw std::runtime_error("a shape's region holds more than 64 words");
  words out{};
  std::copy(w.begin(), w.end(), out.begin());
  return out;
}

// Checks the trace under `model` with the default (mixed) strategy.
inline check::check_report check_shape(const trace::trace& t, const std::filesystem::path& root,
                                       check::persist_model model, const check::image_target& target,
                                       check::image_strategy strategy = check::image_strategy::mixed) {
  const scratch_dir images;
  check::check_options o;
  o.model = model;
  o.strategy.strategy = strategy;
  o.max_images = 20000;
  o.jobs = 2;
  o.root = root;
  o.work_dir = images.path() / "images";
  return check::check_trace(t, target, o);
}

inline std::string causes_of(const check::check_report& r) {
  std::string out;
  for (const check::check_failure& f : r.failures) out += f.cause + " [" + f.verdict + "]\n";
  return out.empty() ? "none" : out;
}

inline const std::vector<check::persist_model>& every_model() {
  static const std::vector<check::persist_model> all{check::persist_model::strict, check::persist_model::epoch,
                                                     check::persist_model::sbrp,
                                                     check::persist_model::sbrp_promoted};
  return all;
}

// A correct program: for seeds 1 to 3 under each of `models`, the checker
// makes images and none of them fails.
using seeded_recording = std::function<trace::trace(const std::filesystem::path&, std::uint64_t)>;
inline void expect_no_failure(const seeded_recording& record_correct, const check::image_target& target,
                              const std::vector<check::persist_model>& models = every_model()) {
  for (std::uint64_t seed : {1, 2, 3})
    for (check::persist_model m : models) {
      const scratch_dir dir;
      const check::check_report r = check_shape(record_correct(dir.path(), seed), dir.path(), m, target);
      EXPECT_GT(r.images, 0u) << "seed " << seed << " under " << check::to_string(m);
      EXPECT_EQ(r.failed_images, 0u) << "seed " << seed << " under " << check::to_string(m) << ": " << causes_of(r);
    }
}

}  // namespace gpmx::shapes
