#pragma once
// Where in the kernel source an operation was written. Persistency
// operations and PM views take one as a defaulted last parameter, so the
// trace mode can name the line of every event without changing call sites.
#include <source_location>

namespace gpmx {

using source_loc = std::source_location;

}  // namespace gpmx
