#pragma once
// gtest prints a test's parameter in its listings; a style is an enum that
// would print as a byte. Found by argument-dependent lookup, so it lives in
// the enum's namespace.
#include <ostream>

#include "common/workload.hpp"

namespace gpmx::pm {
inline void PrintTo(ordering o, std::ostream* os) { *os << apps::to_string(o); }
}  // namespace gpmx::pm
