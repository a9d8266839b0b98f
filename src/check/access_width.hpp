#pragma once
// How many bytes the x86-64 instruction at `ip` reads or writes in memory,
// from its encoding, for the read tracker: a fault reports only the first
// byte of an access, and a vector load (memcpy of a struct) covers several
// granules. Decodes what memory accesses are made of (legacy prefixes,
// REX, VEX, EVEX, the 0F maps); an instruction it does not know counts as
// its general-register width (1, 2, 4 or 8), so it never claims more bytes
// than a vector move would.
#include <cstdint>

namespace gpmx::check {

unsigned access_width(const std::uint8_t* ip);

}  // namespace gpmx::check
