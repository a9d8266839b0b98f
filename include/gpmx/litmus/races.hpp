#pragma once
// Race classification of one SC execution under each model.
#include <string>
#include <vector>

#include "gpmx/litmus/relations.hpp"

namespace gpmx::litmus {

enum class Model { DRF0, DRF1, DRFrlx, HRFDirect, HRFIndirect };
enum class RaceClass { Data, Commutative, NonOrdering, Speculative, Quantum, Heterogeneous };

const char* to_string(Model m);
const char* to_string(RaceClass c);
Model parse_model(const std::string& s);  // throws std::invalid_argument
inline constexpr Model kAllModels[] = {Model::DRF0, Model::DRF1, Model::DRFrlx, Model::HRFDirect, Model::HRFIndirect};

struct Race {
  RaceClass cls = RaceClass::Data;
  int first = 0;   // event indices, first < second in T
  int second = 0;
};

// Two conflicting accesses of different threads unordered by hb (either way).
bool unordered(const Rel& hb, int i, int j);

// Whether two writes to one location give the same final value in either order.
bool commute(const Event& a, const Event& b);

// The non-ordering condition for the racing pair (x co-> y): some ordering
// path A ->* x -co-> y ->* B between conflicting A and B has no valid path
// from A to B. A valid path is an ordering path whose edges are all hb1, or
// all between atomics to one address, or all between paired/unpaired accesses;
// A hb1 B counts as a valid path (the herd model requires A and B to race),
// and A and B must both be atomics (a data pair is already a data race).
bool non_ordering_violation(const Execution& x, const Relations& r, int xi, int yi);

// Illegal races of this execution under model m (every class each pair shows).
std::vector<Race> find_races(Model m, const Execution& x, const Relations& r);

}  // namespace gpmx::litmus
