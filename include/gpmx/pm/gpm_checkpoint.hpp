#pragma once
// libGPM's checkpoint names (GPM paper, Table 2) over gpmx::pm::checkpoint.
//
// `size` in gpmcp_create is the bytes of one group's data in one copy: the
// sum of the sizes a group's registrations may reach (the paper: "the size
// of the data being checkpointed"). `elements` is the most buffers a group
// holds. The file holds two copies of every group, 128-byte aligned.
//
// These functions never throw: on failure the creating/opening ones return
// nullptr and the others -1, and gpmcp_last_error() gives the message of
// this thread's latest failure (its errc in gpmcp_last_errc()). Copies run
// on the GPU of the open gpu_session, else on gpmx::cpu::default_executor().
// Files are opened with pmem durability.
#include <cstddef>

#include "gpmx/pm/errors.hpp"

struct gpmcp;  // one open checkpoint

gpmcp* gpmcp_create(const char* path, std::size_t size, std::size_t elements, std::size_t groups);
gpmcp* gpmcp_open(const char* path);
void gpmcp_close(gpmcp* cp);  // nullptr is allowed
int gpmcp_register(gpmcp* cp, void* addr, std::size_t size, std::size_t group);
int gpmcp_checkpoint(gpmcp* cp, std::size_t group);
int gpmcp_restore(gpmcp* cp, std::size_t group);

// "" until a call on this thread fails; kept until the next failure.
const char* gpmcp_last_error();
gpmx::pm::errc gpmcp_last_errc();
