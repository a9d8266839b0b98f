#pragma once
// `gpmx check` forks a child per crash image, and each child would bind
// the shared libraries' symbols lazily, again, page-faulting on their
// symbol tables and tables of addresses: 23 of a gpKVS image's 157 page
// faults, and 15% of the checker's images per second (docs/check.md). For
// the commands that check images, gpmx runs itself again with LD_BIND_NOW
// set, so that the server's children inherit every symbol bound.
namespace gpmx::cli {

// Call first in main. Returns only when no new image is needed (another
// command, LD_BIND_NOW already set by the user, or the exec failed, which
// costs speed and nothing else); the variable is removed again in the new
// image, so the programs gpmx runs (--verify commands) do not inherit it.
void bind_symbols_eagerly_for_checks(int argc, char** argv);

}  // namespace gpmx::cli
