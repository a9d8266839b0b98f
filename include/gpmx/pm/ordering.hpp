#pragma once
// The two ways gpmx code orders its persists (docs/persistency-models.md):
// epoch, with GPM's gpm_persist barriers, and sbrp, with SBRP's oFence (and
// scoped pacq/prel where threads hand work to each other). Logs and
// workloads take one so that the same code can be written either way.
#include <cstdint>

#include "gpmx/exec/portability.hpp"

namespace gpmx::pm {

enum class ordering : std::uint8_t { epoch = 0, sbrp = 1 };

// The thread's earlier PM stores persist before its later ones: a persist
// barrier under epoch (which also makes them durable), an oFence under sbrp.
template <class Ctx>
GPMX_HD void order_persists(Ctx& t, ordering o) {
  if (o == ordering::sbrp) t.ofence();
  else t.gpm_persist();
}

}  // namespace gpmx::pm
