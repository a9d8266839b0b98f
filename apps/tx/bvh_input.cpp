#include "tx/bvh_input.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps::tx::bvh {
namespace {

// A uniform float in [0, 1) from a hash.
float unit(std::uint64_t h) { return float(h >> 40) / float(1u << 24); }

// Spreads the low 10 bits of x to every third bit.
std::uint32_t spread_bits(std::uint32_t x) {
  x &= 0x3ffu;
  x = (x | (x << 16)) & 0x030000ffu;
  x = (x | (x << 8)) & 0x0300f00fu;
  x = (x | (x << 4)) & 0x030c30c3u;
  x = (x | (x << 2)) & 0x09249249u;
  return x;
}

}  // namespace

mesh_input make_mesh(std::uint32_t faces, std::uint64_t seed) {
  constexpr float two_pi = 6.2831853f, ring = 1.0f, tube = 0.35f, size = 0.01f;
  std::vector<box> boxes(faces);
  std::vector<float> centroid(3 * std::size_t(faces));
  for (std::uint32_t f = 0; f < faces; ++f) {
    const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + f);
    const float u = two_pi * unit(h), v = two_pi * unit(mix64(h));
    const float c[3] = {(ring + tube * std::cos(v)) * std::cos(u), (ring + tube * std::cos(v)) * std::sin(u),
                        tube * std::sin(v)};
    box b{{c[0], c[1], c[2]}, {c[0], c[1], c[2]}};
    float sum[3] = {0, 0, 0};
    std::uint64_t g = mix64(h ^ 0x51ed27);
    for (int corner = 0; corner < 3; ++corner)
      for (int d = 0; d < 3; ++d) {
        g = mix64(g);
        const float p = c[d] + size * (2 * unit(g) - 1);
        b.lo[d] = std::min(b.lo[d], p);
        b.hi[d] = std::max(b.hi[d], p);
        sum[d] += p;
      }
    boxes[f] = b;
    for (int d = 0; d < 3; ++d) centroid[3 * std::size_t(f) + d] = sum[d] / 3;
  }
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::uint32_t f = 0; f < faces; ++f)
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], centroid[3 * std::size_t(f) + d]);
      hi[d] = std::max(hi[d], centroid[3 * std::size_t(f) + d]);
    }
  std::vector<std::uint32_t> code(faces);
  for (std::uint32_t f = 0; f < faces; ++f) {
    std::uint32_t m = 0;
    for (int d = 0; d < 3; ++d) {
      const float extent = hi[d] > lo[d] ? hi[d] - lo[d] : 1.0f;
      const float t = (centroid[3 * std::size_t(f) + d] - lo[d]) / extent;
      const auto q = std::uint32_t(std::clamp(t * 1024.0f, 0.0f, 1023.0f));
      m |= spread_bits(q) << (2 - d);
    }
    code[f] = m;
  }
  std::vector<std::uint32_t> order(faces);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return code[a] < code[b]; });
  mesh_input out;
  out.codes.reserve(faces);
  out.leaf_boxes.reserve(faces);
  for (std::uint32_t f : order) {
    out.codes.push_back(code[f]);
    out.leaf_boxes.push_back(boxes[f]);
  }
  return out;
}

reference_tree build_reference(const mesh_input& m) {
  const auto n = std::uint32_t(m.codes.size());
  const tree_layout t{n};
  reference_tree r;
  r.left.resize(t.internal());
  r.right.resize(t.internal());
  r.parent.assign(t.nodes(), no_node);
  for (std::uint32_t i = 0; i < t.internal(); ++i) {
    const children c = split_of(m.codes.data(), n, i);
    r.left[i] = c.left;
    r.right[i] = c.right;
    r.parent[c.left] = i;
    r.parent[c.right] = i;
  }
  // Boxes bottom-up: an internal node after both its children (post-order).
  r.boxes.resize(t.internal());
  const auto box_of = [&](std::uint32_t node) { return t.is_leaf(node) ? m.leaf_boxes[node - t.internal()] : r.boxes[node]; };
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack = {{0u, 0u}};  // node, depth
  std::vector<std::uint32_t> post;
  post.reserve(t.internal());
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    if (t.is_leaf(node)) {
      r.height = std::max(r.height, depth);
      continue;
    }
    post.push_back(node);
    stack.push_back({r.left[node], depth + 1});
    stack.push_back({r.right[node], depth + 1});
  }
  for (auto it = post.rbegin(); it != post.rend(); ++it) r.boxes[*it] = unite(box_of(r.left[*it]), box_of(r.right[*it]));
  return r;
}

}  // namespace gpmx::apps::tx::bvh
