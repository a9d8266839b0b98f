#pragma once
// BVH construction and reduction as transactions (the helper-warp paper's
// B1/B2 and R1/R2, after Karras 2012). The leaves are a mesh's faces sorted
// by the Morton codes of their centroids; internal node i of n - 1 splits
// where the codes' common prefix changes (two leaves with equal codes are
// told apart by their index). Launch 0 (construction): committer i finds
// internal node i's children and, in three transactions of one node each,
// writes the node's children, then each child's parent; no two transactions
// conflict. Launch 1 (reduction): committer j climbs from leaf j; at each
// parent a transaction reads the parent's flag: the first child to arrive
// sets it and stops, the second computes the parent's box as the union of
// its children's and climbs on, so every node is completed exactly once.
//
// Node ids: internal nodes 0 .. n-2 (0 is the root), leaf j is n - 1 + j.
// The heap's words (tree_layout): left and right child of each internal
// node (0: not written yet; node 0 is never a child), the parent of every
// node (none: not written yet, or the root), the flag of each internal node
// (0 untouched, 1 one child done, 2 box done), and its box (six floats'
// bits: min x, y, z, max x, y, z). The codes and the leaves' boxes are the
// kernels' read-only input in device memory, outside the heap. A
// committer's climb position (cursor, proposal) would be a register on a
// GPU; here the generic transaction loop keeps it in plain memory.
#include <cstdint>
#include <cstring>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/stm_fail.hpp"

namespace gpmx::apps::tx::bvh {

inline constexpr std::uint32_t no_node = 0xffffffffu;
inline constexpr std::uint32_t box_words = 6;
// A reduction cursor's value before its committer's first step: at its own leaf.
inline constexpr std::uint32_t at_leaf = no_node - 1;
enum node_flag : std::uint32_t { flag_untouched = 0, flag_one_child = 1, flag_done = 2 };

struct tree_layout {
  std::uint32_t leaves;
  GPMX_HD std::uint32_t internal() const { return leaves - 1; }
  GPMX_HD std::uint32_t nodes() const { return 2 * leaves - 1; }
  GPMX_HD bool is_leaf(std::uint32_t node) const { return node >= internal(); }
  GPMX_HD std::uint32_t left(std::uint32_t i) const { return i; }
  GPMX_HD std::uint32_t right(std::uint32_t i) const { return internal() + i; }
  GPMX_HD std::uint32_t parent(std::uint32_t node) const { return 2 * internal() + node; }
  GPMX_HD std::uint32_t flag(std::uint32_t i) const { return 2 * internal() + nodes() + i; }
  GPMX_HD std::uint32_t box(std::uint32_t i) const { return 3 * internal() + nodes() + box_words * i; }
  GPMX_HD std::uint64_t words() const { return std::uint64_t(3 + box_words) * internal() + nodes(); }
};

struct box {
  float lo[3], hi[3];
};
GPMX_HD inline box unite(const box& a, const box& b) {
  box u;
  for (int d = 0; d < 3; ++d) {
    u.lo[d] = a.lo[d] < b.lo[d] ? a.lo[d] : b.lo[d];
    u.hi[d] = a.hi[d] > b.hi[d] ? a.hi[d] : b.hi[d];
  }
  return u;
}
GPMX_HD inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
GPMX_HD inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Leading zero bits of a non-zero word.
GPMX_HD inline int leading_zeros(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(x);
#else
  return __builtin_clz(x);
#endif
}

// Karras's delta: the length of the common prefix of leaves i and j's keys
// (code, then index), or -1 when j is outside [0, n).
// `codes` is anything indexable: a pointer (host) or a bound device view.
template <class Codes>
GPMX_HD int common_prefix(const Codes& codes, std::uint32_t n, std::int64_t i, std::int64_t j) {
  if (j < 0 || j >= std::int64_t(n)) return -1;
  const std::uint32_t a = codes[std::size_t(i)], b = codes[std::size_t(j)];
  if (a != b) return leading_zeros(a ^ b);
  const std::uint32_t x = std::uint32_t(i) ^ std::uint32_t(j);
  return 32 + (x == 0 ? 32 : leading_zeros(x));
}

struct children {
  std::uint32_t left, right;  // node ids
};

// Internal node i's children (Karras 2012, Figure 4).
template <class Codes>
GPMX_HD children split_of(const Codes& codes, std::uint32_t n, std::uint32_t i) {
  const std::int64_t ii = i;
  const int d = common_prefix(codes, n, ii, ii + 1) - common_prefix(codes, n, ii, ii - 1) > 0 ? 1 : -1;
  const int least = common_prefix(codes, n, ii, ii - d);
  std::int64_t span_max = 2;
  while (common_prefix(codes, n, ii, ii + span_max * d) > least) span_max *= 2;
  std::int64_t span = 0;
  for (std::int64_t t = span_max / 2; t >= 1; t /= 2)
    if (common_prefix(codes, n, ii, ii + (span + t) * d) > least) span += t;
  const std::int64_t j = ii + span * d;
  const int node_prefix = common_prefix(codes, n, ii, j);
  std::int64_t s = 0;
  for (std::int64_t div = 2;; div *= 2) {
    const std::int64_t t = (span + div - 1) / div;
    if (common_prefix(codes, n, ii, ii + (s + t) * d) > node_prefix) s += t;
    if (t == 1) break;
  }
  const std::int64_t gamma = ii + s * d + (d < 0 ? -1 : 0);
  const std::uint32_t m = n - 1;
  const std::int64_t lo = ii < j ? ii : j, hi = ii < j ? j : ii;
  return {lo == gamma ? m + std::uint32_t(gamma) : std::uint32_t(gamma),
          hi == gamma + 1 ? m + std::uint32_t(gamma + 1) : std::uint32_t(gamma + 1)};
}

struct body {
  static constexpr std::uint32_t max_writes = box_words + 1;
  tree_layout tree;
  global_span<const std::uint32_t> codes;  // sorted Morton codes, one per leaf
  global_span<const box> leaf_boxes;       // in leaf order
  std::uint32_t* cursor;       // reduction: per committer, the node it completed last (no_node: stopped)
  std::uint32_t* proposal;     // what the running attempt will move the cursor to
  std::uint32_t climb_limit;   // most transactions one committer runs in the reduction (the
                               // tree's height + 1: each level, then the root's stop)

  GPMX_HD std::uint32_t steps(std::uint32_t batch) const { return batch == 0 ? 3 : climb_limit; }
  GPMX_HD bool finished(std::uint32_t c, std::uint32_t batch) const {
    return batch == 0 ? c >= tree.internal() : (c >= tree.leaves || cursor[c] == no_node);
  }
  GPMX_HD void committed(std::uint32_t c, std::uint32_t batch) const {
    if (batch == 1) cursor[c] = proposal[c];
  }

  template <class Tx>
  GPMX_HD void operator()(Tx& tx, std::uint32_t c, std::uint32_t batch, std::uint32_t k) const {
    (void)k;
    if (batch == 0) return construct(tx, c, k);
    climb(tx, c);
  }

 private:
  // One transaction of node c's construction: its children, or a child's parent.
  template <class Tx>
  GPMX_HD void construct(Tx& tx, std::uint32_t c, std::uint32_t k) const {
    const children ch = split_of(codes.bind(tx.ctx()), tree.leaves, c);
    if (k == 0) {
      tx.write(tree.left(c), ch.left);
      tx.write(tree.right(c), ch.right);
    } else {
      tx.write(tree.parent(k == 1 ? ch.left : ch.right), c);
    }
  }

  template <class Tx>
  GPMX_HD box box_of(Tx& tx, std::uint32_t node) const {
    if (tree.is_leaf(node)) return leaf_boxes.bind(tx.ctx())[node - tree.internal()];
    box b;
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = bits_float(tx.read(tree.box(node) + d));
      b.hi[d] = bits_float(tx.read(tree.box(node) + 3 + d));
    }
    return b;
  }

  // One level of committer c's climb from the node its cursor names.
  template <class Tx>
  GPMX_HD void climb(Tx& tx, std::uint32_t c) const {
    const std::uint32_t node = cursor[c] == at_leaf ? tree.internal() + c : cursor[c];
    proposal[c] = no_node;
    const std::uint32_t p = tx.read(tree.parent(node));
    if (tx.failed() || p == no_node) return;  // the root: done
    const std::uint32_t f = tx.read(tree.flag(p));
    if (tx.failed()) return;
    if (f == flag_untouched) {
      tx.write(tree.flag(p), flag_one_child);  // the sibling will complete p
      return;
    }
    if (f != flag_one_child) stm::detail::stm_fail("a reduction reached a node already completed", p, f);
    const std::uint32_t l = tx.read(tree.left(p)), r = tx.read(tree.right(p));
    if (tx.failed()) return;
    const box a = box_of(tx, l), b = box_of(tx, r);
    if (tx.failed()) return;
    const box u = unite(a, b);
    for (int d = 0; d < 3; ++d) {
      tx.write(tree.box(p) + d, float_bits(u.lo[d]));
      tx.write(tree.box(p) + 3 + d, float_bits(u.hi[d]));
    }
    tx.write(tree.flag(p), flag_done);
    proposal[c] = p;
  }
};

}  // namespace gpmx::apps::tx::bvh
