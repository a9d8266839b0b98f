#pragma once
// The whole check of one program: program-centric verdicts per model, the
// final condition over SC executions, and optionally the system-centric
// machine against the SC outcomes of the quantum-equivalent program.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpmx/litmus/enumerate.hpp"
#include "gpmx/litmus/machine.hpp"
#include "gpmx/litmus/races.hpp"

namespace gpmx::litmus {

struct witness {
  std::string pair;       // the two racing accesses
  std::string execution;  // one SC execution that shows the race
};

struct model_verdict {
  consistency_model model = consistency_model::drf0;
  std::map<race_class, witness> races;  // first witness of each class found
  bool legal() const { return races.empty(); }
  std::string verdict() const;  // "legal" or sorted class names joined by ','
};

struct system_verdict {
  std::uint64_t states = 0;
  std::uint64_t stuck = 0;
  std::size_t outcomes = 0;
  std::vector<std::vector<value>> non_sc;  // final memories no SC execution of Pq reaches
  bool cond = false;                       // final condition over the machine's outcomes
  double seconds = 0;                      // time spent in the machine
  bool theorem_holds() const { return non_sc.empty(); }
};

struct expectation_result {
  expectation expect;
  std::string actual;  // empty: not checked in this run
  bool ok() const { return actual.empty() || actual == expect.expected; }
};

struct check_result {
  std::string name;
  std::string file;
  std::vector<model_verdict> models;
  enumerate_stats sc;                 // SC executions of P
  std::optional<enumerate_stats> pq;  // SC executions of Pq when P has quantum accesses
  std::vector<value> domain;
  condition_kind cond_kind = condition_kind::none;
  bool cond = false;
  std::uint64_t cond_satisfied = 0;  // complete SC executions satisfying it
  std::optional<system_verdict> system;
  std::vector<expectation_result> expectations;
  double seconds = 0;
  bool expectations_ok() const;
};

struct check_options {
  std::vector<consistency_model> models;  // empty: all five
  bool system = false;
  bool reduce = true;  // partial-order reduction in the SC enumeration
};

check_result check_program(const program& p, const check_options& opt = {});

}  // namespace gpmx::litmus
