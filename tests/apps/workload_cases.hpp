#pragma once
// The parameter lists the whole-workload suites share: every registered
// workload in both styles, and test names gtest accepts (no dashes).
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "common/registry.hpp"

namespace gpmx::test {

struct workload_case {
  std::string workload;
  apps::style s;
};

// How gtest shows a case in its log: "gpkvs epoch", not its bytes.
inline void PrintTo(const workload_case& c, std::ostream* os) { *os << c.workload << " " << apps::to_string(c.s); }

// `text` with each dash made an underscore: gtest names take no dashes.
inline std::string test_name(std::string text) {
  for (char& c : text)
    if (c == '-') c = '_';
  return text;
}

inline std::string case_name(const testing::TestParamInfo<workload_case>& i) {
  return test_name(i.param.workload + "_" + std::string(apps::to_string(i.param.s)));
}

inline std::vector<workload_case> every_workload_in_both_styles() {
  std::vector<workload_case> v;
  for (const auto& w : apps::all_workloads())
    for (apps::style s : {apps::style::epoch, apps::style::sbrp}) v.push_back({std::string(w->name()), s});
  return v;
}

}  // namespace gpmx::test
