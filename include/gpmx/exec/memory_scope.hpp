#pragma once
#include <cstdint>

namespace gpmx {

// The set of threads an atomic or fence orders with (CUDA's thread scopes).
enum class scope : std::uint8_t { block, device, system };

// C++ memory orders, spelled once so kernels compile on both back ends.
enum class memory_order : std::uint8_t { relaxed, acquire, release, acq_rel, seq_cst };

const char* to_string(scope s);
const char* to_string(memory_order o);

}  // namespace gpmx
