#pragma once
// Checks every checkpointing workload's tests share: a run verifies in each
// style, verification catches a corrupted checkpoint value, bad parameters
// are rejected with their name.
#include <gtest/gtest.h>

#include <cstring>

#include "common/registry.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/checkpoint.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "iterative/iterative.hpp"
#include "pm/checkpoint_reseal.hpp"

namespace gpmx::test {

inline apps::iterative::checkpointed_workload& checkpointed(std::string_view name) {
  return dynamic_cast<apps::iterative::checkpointed_workload&>(apps::find_workload(name));
}

// Runs with the small parameters (and `more`) in style s, then verifies.
inline apps::verify_report run_then_verify(std::string_view name, const std::filesystem::path& dir, apps::style s,
                                           const apps::params& more = {}) {
  auto& w = checkpointed(name);
  apps::params p = w.small_params();
  for (const auto& [k, v] : more) p[k] = v;
  cpu::executor ex({.workers = 2});
  const apps::env e{ex, dir, pm::durability::msync};
  const apps::run_report r = w.run(e, apps::resolve_params(w, p), s);
  EXPECT_EQ(r.batches, p.at("iterations"));
  EXPECT_GT(r.bytes_persisted, 0u);
  return w.verify(e);
}

inline void expect_verifies_in_both_styles(std::string_view name) {
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    scratch_dir dir;
    const apps::verify_report v = run_then_verify(name, dir.path(), s);
    EXPECT_TRUE(v.ok) << apps::to_string(s) << ": " << v.detail;
    EXPECT_GT(v.checked, 0u);
  }
}

// Changes value `index` of state array `element` (0-based, after the
// progress word) in the consistent copy; verify must name the array.
inline void expect_corruption_caught(std::string_view name, std::uint32_t element, std::uint64_t index,
                                     const std::string& array_name) {
  scratch_dir dir;
  ASSERT_TRUE(run_then_verify(name, dir.path(), apps::style::epoch).ok);
  std::uint64_t e = 0;
  {
    auto cp = pm::checkpoint::open(dir / (std::string(name) + ".cp"), pm::durability::msync);
    e = cp.epoch(0);
    auto* v = reinterpret_cast<float*>(const_cast<std::byte*>(cp.element_copy(0, std::uint32_t(e % 2), element + 1)));
    v[index] += 1.0f;
  }
  test::reseal_copy(dir / (std::string(name) + ".cp"), 0, e % 2, e);  // past the seal, to the comparison
  cpu::executor ex({.workers = 2});
  const apps::verify_report v = checkpointed(name).verify({ex, dir.path(), pm::durability::msync});
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find(array_name + "[" + std::to_string(index) + "]"), std::string::npos) << v.detail;
}

// run() with name=value must throw config_error mentioning `name`.
inline void expect_rejected(std::string_view workload, const std::string& name, std::uint64_t value) {
  auto& w = checkpointed(workload);
  apps::params p = w.small_params();
  p[name] = value;
  scratch_dir dir;
  cpu::executor ex({.workers = 1});
  try {
    (void)w.run({ex, dir.path(), pm::durability::msync}, apps::resolve_params(w, p), apps::style::epoch);
    ADD_FAILURE() << name << "=" << value << " was accepted";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

}  // namespace gpmx::test
