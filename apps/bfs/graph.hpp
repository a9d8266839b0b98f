#pragma once
// BFS inputs: undirected graphs in CSR form (each edge stored both ways,
// neighbours sorted, no self loops or duplicates), generated deterministically
// from a seed or read from an edge-list file.
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

namespace gpmx::apps::bfs {

inline constexpr std::uint32_t unvisited = 0xffffffffu;  // the level of a node BFS has not reached
inline constexpr std::uint32_t max_nodes = 1u << 28;

struct graph {
  std::vector<std::uint64_t> offsets;  // nodes + 1 entries
  std::vector<std::uint32_t> targets;  // neighbours of v: targets[offsets[v], offsets[v + 1])
  std::uint32_t nodes() const { return std::uint32_t(offsets.size() - 1); }
};

// The CSR of the undirected graph with these edges.
graph from_edges(std::uint32_t nodes, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges);

// Road-network-like: a grid (row width floor(sqrt(nodes)), the last row may be
// short) of 4-neighbour streets plus `shortcuts` random long edges: low
// degree, diameter about twice the width.
graph make_road_graph(std::uint32_t nodes, std::uint32_t shortcuts, std::uint64_t seed);
// Scale-free: R-MAT (a, b, c, d = 0.57, 0.19, 0.19, 0.05) with nodes * degree / 2
// edges drawn, so the mean degree is about `degree`; node 0 is the largest hub.
graph make_scale_free_graph(std::uint32_t nodes, std::uint32_t degree, std::uint64_t seed);
// "u v" per line (further columns ignored), '#' starts a comment; node ids
// are 0-based and the graph has max id + 1 nodes. Throws config_error naming
// the file and line of a malformed line.
graph read_edge_list(const std::filesystem::path& file);

// What a graph workload's parameters name: 0 a road graph, 1 a scale-free
// graph (both generated from `seed`), 2 the edge list in the file that the
// environment variable `edge_list_variable` names. Throws config_error,
// starting with `who`, when that variable is not set.
graph make_input_graph(std::uint64_t kind, std::uint32_t nodes, std::uint32_t shortcuts, std::uint32_t degree,
                       std::uint64_t seed, const char* edge_list_variable, std::string_view who);

// Levels of every node from source by a sequential BFS (unvisited where unreachable).
std::vector<std::uint32_t> reference_levels(const graph& g, std::uint32_t source);

}  // namespace gpmx::apps::bfs
