#include "access_width.hpp"

namespace gpmx::check {
namespace {

// pp: the implied prefix (0 none, 1 66, 2 F3, 3 F2); `full` the vector
// length. Scalar SSE forms and the 64-bit moves read less than a vector.
unsigned sse_width(unsigned map, std::uint8_t op, unsigned pp, bool rex_w, unsigned full) {
  if (map != 1) return full;  // 0F38, 0F3A: vector operations
  const bool single = pp == 2, dbl = pp == 3;
  switch (op) {
    case 0x10: case 0x11: return single ? 4 : dbl ? 8 : full;  // movss / movsd / movups / movupd
    case 0x12: case 0x13: case 0x16: case 0x17: return 8;      // movlps, movhps, movlpd, movhpd
    case 0x6E: return rex_w ? 8 : 4;                            // movd / movq from memory
    case 0x7E: return single ? 8 : rex_w ? 8 : 4;               // movq xmm, m64 / movd, movq to memory
    case 0xD6: return 8;                                        // movq to memory
    case 0x2E: case 0x2F: return pp == 1 ? 8 : 4;               // ucomis, comis
    case 0xC2: return single ? 4 : dbl ? 8 : full;              // cmpss / cmpsd / cmpps
    default:
      if (op >= 0x51 && op <= 0x5F && (single || dbl)) return single ? 4 : 8;  // scalar arithmetic
      return full;
  }
}

bool is_general_0f(std::uint8_t op) {
  return (op >= 0x40 && op <= 0x4F) || (op >= 0x90 && op <= 0xBF) || op == 0xB0 || op == 0xB1 || op == 0xC0 ||
         op == 0xC1 || op == 0xC7;
}

}  // namespace

unsigned access_width(const std::uint8_t* ip) {
  bool p66 = false, pf2 = false, pf3 = false, rex_w = false;
  unsigned i = 0;
  for (;; ++i) {
    const std::uint8_t b = ip[i];
    if (b == 0x66) p66 = true;
    else if (b == 0xF2) pf2 = true;
    else if (b == 0xF3) pf3 = true;
    else if (b == 0xF0 || b == 0x2E || b == 0x3E || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65 || b == 0x67) continue;
    else break;
  }
  if ((ip[i] & 0xF0) == 0x40) rex_w = (ip[i++] & 8) != 0;
  const std::uint8_t b = ip[i];
  const unsigned general = rex_w ? 8 : p66 ? 2 : 4;
  if (b == 0xC5)  // two-byte VEX: map 0F
    return sse_width(1, ip[i + 2], ip[i + 1] & 3, false, (ip[i + 1] & 4) ? 32 : 16);
  if (b == 0xC4)  // three-byte VEX
    return sse_width(ip[i + 1] & 0x1F, ip[i + 3], ip[i + 2] & 3, (ip[i + 2] & 0x80) != 0, (ip[i + 2] & 4) ? 32 : 16);
  if (b == 0x62)  // EVEX: 62, P0 (map), P1 (W, pp), P2 (L'L), opcode
    return sse_width(ip[i + 1] & 3, ip[i + 4], ip[i + 2] & 3, (ip[i + 2] & 0x80) != 0, 16u << ((ip[i + 3] >> 5) & 3));
  if (b == 0x0F) {
    std::uint8_t op = ip[i + 1];
    if (op == 0xB6 || op == 0xBE) return 1;  // movzx, movsx from a byte
    if (op == 0xB7 || op == 0xBF) return 2;  // from a word
    if (op == 0xB0) return 1;                // cmpxchg of a byte
    if (op == 0xC7) return rex_w ? 16 : 8;   // cmpxchg16b / cmpxchg8b
    if (is_general_0f(op)) return general;
    unsigned map = 1;
    if (op == 0x38 || op == 0x3A) {
      map = op == 0x38 ? 2 : 3;
      op = ip[i + 2];
    }
    const unsigned pp = p66 ? 1 : pf3 ? 2 : pf2 ? 3 : 0;
    if (pp == 0 && map == 1) {  // no prefix: SSE on xmm (ps forms), or MMX on 8 bytes
      if (op == 0x10 || op == 0x11 || op == 0x28 || op == 0x29 || op == 0x2B || (op >= 0x50 && op <= 0x5F) ||
          op == 0x14 || op == 0x15 || op == 0xC2 || op == 0xC6)
        return 16;
      if (op == 0x12 || op == 0x13 || op == 0x16 || op == 0x17) return 8;
      if (op == 0x6E || op == 0x7E) return rex_w ? 8 : 4;
      if (op >= 0x60) return 8;  // MMX
      return general;
    }
    return sse_width(map, op, pp, rex_w, 16);
  }
  // One-byte opcodes: the byte forms, else the operand size.
  switch (b) {
    case 0x88: case 0x8A: case 0xC6: case 0x80: case 0x84: case 0x86: case 0xF6: case 0xFE: case 0xA4: case 0xAA:
    case 0xAC: case 0xA6: case 0xAE: case 0x00: case 0x02: case 0x08: case 0x0A: case 0x20: case 0x22: case 0x28:
    case 0x2A: case 0x30: case 0x32: case 0x38: case 0x3A:
      return 1;
    default:
      return general;
  }
}

}  // namespace gpmx::check
