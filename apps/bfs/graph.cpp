#include "bfs/graph.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::apps::bfs {

graph from_edges(std::uint32_t nodes, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> both;
  both.reserve(edges.size() * 2);
  for (const auto& [u, v] : edges)
    if (u != v) {
      both.emplace_back(u, v);
      both.emplace_back(v, u);
    }
  std::sort(both.begin(), both.end());
  both.erase(std::unique(both.begin(), both.end()), both.end());
  graph g;
  g.offsets.assign(std::uint64_t(nodes) + 1, 0);
  for (const auto& e : both) ++g.offsets[e.first + 1];
  for (std::uint32_t v = 0; v < nodes; ++v) g.offsets[v + 1] += g.offsets[v];
  g.targets.reserve(both.size());
  for (const auto& e : both) g.targets.push_back(e.second);
  return g;
}

graph make_road_graph(std::uint32_t nodes, std::uint32_t shortcuts, std::uint64_t seed) {
  const auto width = std::max<std::uint32_t>(1, std::uint32_t(std::sqrt(double(nodes))));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::uint32_t v = 0; v < nodes; ++v) {
    if ((v + 1) % width != 0 && v + 1 < nodes) edges.emplace_back(v, v + 1);  // east
    if (std::uint64_t(v) + width < nodes) edges.emplace_back(v, v + width);    // south
  }
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 11);
  for (std::uint32_t s = 0; s < shortcuts; ++s)
    edges.emplace_back(std::uint32_t(rng() % nodes), std::uint32_t(rng() % nodes));
  return from_edges(nodes, edges);
}

graph make_scale_free_graph(std::uint32_t nodes, std::uint32_t degree, std::uint64_t seed) {
  std::uint32_t scale = 0;
  while ((std::uint64_t(1) << scale) < nodes) ++scale;
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 23);
  const std::uint64_t want = std::uint64_t(nodes) * degree / 2;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(want);
  while (edges.size() < want) {
    std::uint32_t u = 0, v = 0;
    for (std::uint32_t bit = 0; bit < scale; ++bit) {
      const std::uint64_t r = rng() % 100;  // quadrant: a 57, b 19, c 19, d 5 (percent)
      u = u * 2 + (r >= 76 ? 1 : 0);
      v = v * 2 + ((r >= 57 && r < 76) || r >= 95 ? 1 : 0);
    }
    if (u < nodes && v < nodes) edges.emplace_back(u, v);  // ids past `nodes` are drawn again
  }
  return from_edges(nodes, edges);
}

graph make_input_graph(std::uint64_t kind, std::uint32_t nodes, std::uint32_t shortcuts, std::uint32_t degree,
                       std::uint64_t seed, const char* edge_list_variable, std::string_view who) {
  if (kind == 0) return make_road_graph(nodes, shortcuts, seed);
  if (kind == 1) return make_scale_free_graph(nodes, degree, seed);
  const char* file = std::getenv(edge_list_variable);
  if (file == nullptr || *file == '\0')
    throw config_error(
        fmt::format("{}: graph=2 reads the edge list named by {}, which is not set", who, edge_list_variable));
  return read_edge_list(file);
}

graph read_edge_list(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw config_error(fmt::format("bfs: cannot read the edge list {}", file.string()));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  std::uint64_t nodes = 0, line_no = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    const char* p = line.data();
    const char* end = p + line.size();
    auto skip_space = [&] {
      while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == ',')) ++p;
    };
    skip_space();
    if (p == end) continue;  // blank or comment
    std::uint64_t ends[2];
    for (std::uint64_t& x : ends) {
      skip_space();
      const auto r = std::from_chars(p, end, x);
      if (r.ec != std::errc() || x >= max_nodes)
        throw config_error(fmt::format("bfs: {} line {}: expected 'u v' with node ids below {}, got '{}'",
                                       file.string(), line_no, max_nodes, line));
      p = r.ptr;
    }
    edges.emplace_back(std::uint32_t(ends[0]), std::uint32_t(ends[1]));
    nodes = std::max({nodes, ends[0] + 1, ends[1] + 1});
  }
  if (edges.empty()) throw config_error(fmt::format("bfs: the edge list {} holds no edge", file.string()));
  return from_edges(std::uint32_t(nodes), edges);
}

std::vector<std::uint32_t> reference_levels(const graph& g, std::uint32_t source) {
  std::vector<std::uint32_t> level(g.nodes(), unvisited);
  std::vector<std::uint32_t> queue{source};
  level[source] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t v = queue[head];
    for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (level[g.targets[e]] == unvisited) {
        level[g.targets[e]] = level[v] + 1;
        queue.push_back(g.targets[e]);
      }
  }
  return level;
}

}  // namespace gpmx::apps::bfs
