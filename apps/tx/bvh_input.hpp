#pragma once
// The BVH benchmark's input and reference (host code): a generated mesh of
// small triangles scattered over a torus, its faces' boxes and Morton codes
// sorted into leaf order, and the tree and boxes a sequential build gives,
// which every transactional run must reproduce exactly (the construction is
// a function of the codes; min and max are exact in any order).
#include <cstdint>
#include <vector>

#include "tx/bvh.hpp"

namespace gpmx::apps::tx::bvh {

struct mesh_input {
  std::vector<std::uint32_t> codes;  // sorted: leaf j's code
  std::vector<box> leaf_boxes;       // leaf j's face's box
};

// `faces` triangles (at least 2), the same for the same seed.
mesh_input make_mesh(std::uint32_t faces, std::uint64_t seed);

struct reference_tree {
  std::vector<std::uint32_t> left, right;  // per internal node
  std::vector<std::uint32_t> parent;       // per node; no_node for the root
  std::vector<box> boxes;                  // per internal node
  std::uint32_t height = 0;                // most levels from a leaf up to the root
};

reference_tree build_reference(const mesh_input& m);

}  // namespace gpmx::apps::tx::bvh
