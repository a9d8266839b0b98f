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

struct Witness {
  std::string pair;       // the two racing accesses
  std::string execution;  // one SC execution that shows the race
};

struct ModelVerdict {
  Model model = Model::DRF0;
  std::map<RaceClass, Witness> races;  // first witness of each class found
  bool legal() const { return races.empty(); }
  std::string verdict() const;  // "legal" or sorted class names joined by ','
};

struct SystemVerdict {
  std::uint64_t states = 0;
  std::uint64_t stuck = 0;
  std::size_t outcomes = 0;
  std::vector<std::vector<Value>> non_sc;  // final memories no SC execution of Pq reaches
  bool cond = false;                       // final condition over the machine's outcomes
  double seconds = 0;                      // time spent in the machine
  bool theorem_holds() const { return non_sc.empty(); }
};

struct ExpectationResult {
  Expectation expect;
  std::string actual;  // empty: not checked in this run
  bool ok() const { return actual.empty() || actual == expect.value; }
};

struct CheckResult {
  std::string name;
  std::string file;
  std::vector<ModelVerdict> models;
  EnumStats sc;              // SC executions of P
  std::optional<EnumStats> pq;  // SC executions of Pq when P has quantum accesses
  std::vector<Value> domain;
  Program::Cond cond_kind = Program::Cond::None;
  bool cond = false;
  std::uint64_t cond_satisfied = 0;  // complete SC executions satisfying it
  std::optional<SystemVerdict> system;
  std::vector<ExpectationResult> expectations;
  double seconds = 0;
  bool expectations_ok() const;
};

struct CheckOptions {
  std::vector<Model> models;  // empty: all five
  bool system = false;
  bool reduce = true;  // partial-order reduction in the SC enumeration
};

CheckResult check_program(const Program& p, const CheckOptions& opt = {});

}  // namespace gpmx::litmus
