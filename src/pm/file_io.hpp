#pragma once
// Positional writes to a pool's or journal's file descriptor, whole or not
// at all: pool creation, checkpoint saves through the file, the persist
// journal.
#include <cstdint>
#include <span>
#include <sys/uio.h>

namespace gpmx::pm {

// Writes all `bytes` at `offset`, retrying short and interrupted writes.
// Returns 0, or the errno that stopped it (EIO when a write made no progress).
int pwrite_all(int fd, const void* data, std::uint64_t bytes, std::uint64_t offset);
// Writes the buffers one after another from `offset` with as few pwritev
// calls as IOV_MAX allows, retrying short and interrupted writes; consumes
// the iovecs (they are advanced past what was written). Returns 0, or the
// errno that stopped it.
int pwritev_all(int fd, std::span<iovec> buffers, std::uint64_t offset);
// Writes zeros over [from, to): 0, or the errno that stopped it.
int write_zeros(int fd, std::uint64_t from, std::uint64_t to);

}  // namespace gpmx::pm
