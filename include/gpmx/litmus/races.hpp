#pragma once
// race classification of one SC execution under each model.
#include <string>
#include <vector>

#include "gpmx/litmus/relations.hpp"

namespace gpmx::litmus {

enum class consistency_model { drf0, drf1, drfrlx, hrf_direct, hrf_indirect };
enum class race_class { data, commutative, non_ordering, speculative, quantum, heterogeneous };

const char* to_string(consistency_model m);
const char* to_string(race_class c);
consistency_model parse_model(const std::string& s);  // throws gpmx::error (config) naming an unknown model
inline constexpr consistency_model all_models[] = {consistency_model::drf0, consistency_model::drf1, consistency_model::drfrlx, consistency_model::hrf_direct, consistency_model::hrf_indirect};

struct race {
  race_class cls = race_class::data;
  int first = 0;   // event indices, first < second in T
  int second = 0;
};

// Two conflicting accesses of different threads unordered by hb (either way).
bool unordered(const relation& hb, int i, int j);

// Whether two writes to one location give the same final value in either order.
bool commute(const event& a, const event& b);

// The non-ordering condition for the racing pair (x co-> y): some ordering
// path A ->* x -co-> y ->* B between conflicting A and B has no valid path
// from A to B. A valid path is an ordering path whose edges are all hb1, or
// all between atomics to one address, or all between paired/unpaired accesses;
// A hb1 B counts as a valid path (the herd model requires A and B to race),
// and A and B must both be atomics (a data pair is already a data race).
bool non_ordering_violation(const execution& x, const execution_relations& r, int xi, int yi);

// Illegal races of this execution under model m (every class each pair shows).
std::vector<race> find_races(consistency_model m, const execution& x, const execution_relations& r);

}  // namespace gpmx::litmus
