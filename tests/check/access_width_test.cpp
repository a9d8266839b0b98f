// access_width: the bytes an x86-64 instruction's memory operand covers,
// on encodings compilers emit for loads, stores, struct copies and atomics.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "check/access_width.hpp"

namespace {

unsigned width(std::vector<std::uint8_t> bytes) {
  bytes.resize(16, 0x90);  // the decoder may look past the instruction
  return gpmx::check::access_width(bytes.data());
}

TEST(AccessWidth, GeneralRegisterMoves) {
  EXPECT_EQ(width({0x48, 0x8b, 0x07}), 8u);        // mov rax, [rdi]
  EXPECT_EQ(width({0x8b, 0x07}), 4u);              // mov eax, [rdi]
  EXPECT_EQ(width({0x66, 0x8b, 0x07}), 2u);        // mov ax, [rdi]
  EXPECT_EQ(width({0x8a, 0x07}), 1u);              // mov al, [rdi]
  EXPECT_EQ(width({0x0f, 0xb6, 0x07}), 1u);        // movzx eax, byte [rdi]
  EXPECT_EQ(width({0x0f, 0xb7, 0x07}), 2u);        // movzx eax, word [rdi]
  EXPECT_EQ(width({0x48, 0x3b, 0x07}), 8u);        // cmp rax, [rdi]
}

TEST(AccessWidth, AtomicsAndStringMoves) {
  EXPECT_EQ(width({0xf0, 0x48, 0x0f, 0xb1, 0x17}), 8u);   // lock cmpxchg [rdi], rdx
  EXPECT_EQ(width({0xf0, 0x48, 0x0f, 0xc7, 0x0f}), 16u);  // lock cmpxchg16b [rdi]
  EXPECT_EQ(width({0xf0, 0x48, 0x0f, 0xc1, 0x07}), 8u);   // lock xadd [rdi], rax
  EXPECT_EQ(width({0xf3, 0xa4}), 1u);                     // rep movsb: one byte a step
  EXPECT_EQ(width({0xf3, 0x48, 0xa5}), 8u);               // rep movsq
}

TEST(AccessWidth, VectorMovesCoverWholeVectors) {
  EXPECT_EQ(width({0xf3, 0x0f, 0x6f, 0x07}), 16u);                    // movdqu xmm0, [rdi]
  EXPECT_EQ(width({0x0f, 0x10, 0x07}), 16u);                          // movups xmm0, [rdi]
  EXPECT_EQ(width({0x0f, 0x11, 0x07}), 16u);                          // movups [rdi], xmm0
  EXPECT_EQ(width({0xc5, 0xfa, 0x6f, 0x07}), 16u);                    // vmovdqu xmm0, [rdi]
  EXPECT_EQ(width({0xc5, 0xfe, 0x6f, 0x07}), 32u);                    // vmovdqu ymm0, [rdi]
  EXPECT_EQ(width({0xc4, 0xc1, 0x7e, 0x6f, 0x07}), 32u);              // vmovdqu ymm0, [r15]
  EXPECT_EQ(width({0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x07}), 64u);        // vmovdqu64 zmm0, [rdi]
}

TEST(AccessWidth, ScalarVectorFormsReadLess) {
  EXPECT_EQ(width({0xf2, 0x0f, 0x10, 0x07}), 8u);        // movsd xmm0, [rdi]
  EXPECT_EQ(width({0xf3, 0x0f, 0x10, 0x07}), 4u);        // movss xmm0, [rdi]
  EXPECT_EQ(width({0x66, 0x0f, 0xd6, 0x07}), 8u);        // movq [rdi], xmm0
  EXPECT_EQ(width({0xf3, 0x0f, 0x7e, 0x07}), 8u);        // movq xmm0, [rdi]
  EXPECT_EQ(width({0x66, 0x48, 0x0f, 0x6e, 0x07}), 8u);  // movq xmm0, [rdi] (REX.W)
  EXPECT_EQ(width({0x66, 0x0f, 0x6e, 0x07}), 4u);        // movd xmm0, [rdi]
  EXPECT_EQ(width({0xc5, 0xfb, 0x10, 0x07}), 8u);        // vmovsd xmm0, [rdi]
  EXPECT_EQ(width({0x0f, 0x16, 0x07}), 8u);              // movhps xmm0, [rdi]
}

}  // namespace
