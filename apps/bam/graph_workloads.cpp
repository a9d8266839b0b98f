// BFS and connected components over a graph whose edge array is stored on
// the devices (`gpmx run bam-bfs`, `gpmx run bam-cc`): BaM's graph
// workloads (002_..., section 5.2), with the paper's ablation of the
// cache (no cache, naive, coalesced, reference reuse) and a page-fault
// baseline. The node offsets and the per-node results live in device
// memory, the edges on storage, as in the paper.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <numeric>
#include <span>

#include <fmt/format.h>

#include "bam/common_params.hpp"
#include "bam/edge_access.hpp"
#include "bam/graph_kernels.hpp"
#include "bam/mapped_file.hpp"
#include "bam/run_files.hpp"
#include "bam/storage_workload.hpp"
#include "bfs/graph.hpp"
#include "common/run_meta.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::apps::bam {
namespace {

constexpr const char* edge_list_variable = "GPMX_BAM_EDGE_LIST";
constexpr const char* offsets_file = "offsets";
enum graph_kind : std::uint64_t { road = 0, scale_free = 1, edge_list = 2 };

void check_graph_params(const params& p) {
  check_range(p, "graph", road, edge_list);
  if (p.at("graph") != edge_list) check_range(p, "nodes", 2, bfs::max_nodes);
  if (p.at("graph") == scale_free) check_range(p, "degree", 1, 64);
  if (p.at("graph") == road) check_range(p, "shortcuts", 0, p.at("nodes"));
  check_layout_parameters(p);
}

bfs::graph make_graph(const params& p) {
  return bfs::make_input_graph(p.at("graph"), std::uint32_t(p.at("nodes")), std::uint32_t(p.at("shortcuts")),
                               std::uint32_t(p.at("degree")), p.at("seed"), edge_list_variable, "bam graph");
}

storage_layout layout_of(const params& data, std::uint64_t edges) {
  return storage_layout::plan(std::uint32_t(data.at("devices")), std::uint32_t(data.at("line")),
                              {{"edges", std::max<std::uint64_t>(edges, 1) * 4}});
}

std::vector<std::uint64_t> read_offsets(const std::filesystem::path& dir) {
  const auto path = dir / offsets_file;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::not_found, fmt::format("{}: missing: prepare the workload again", path.string()));
  const auto bytes = std::filesystem::file_size(path);
  if (bytes % 8 != 0 || bytes < 16)
    throw error(error_code::corrupt_data, fmt::format("{}: {} bytes are not node offsets", path.string(), bytes));
  std::vector<std::uint64_t> offsets(bytes / 8);
  in.read(reinterpret_cast<char*>(offsets.data()), std::streamsize(bytes));
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1] || offsets[0] != 0)
      throw error(error_code::corrupt_data, fmt::format("{}: offsets fall at node {}", path.string(), i - 1));
  return offsets;
}

// The graph as prepared, read back from the files (what verify checks against).
bfs::graph load_graph(const std::filesystem::path& dir, const params& data) {
  bfs::graph g;
  g.offsets = read_offsets(dir);
  g.targets.resize(g.offsets.back());
  const storage_layout l = layout_of(data, g.targets.size());
  read_array(dir, l, "edges", 0, std::as_writable_bytes(std::span(g.targets)));
  for (std::uint32_t t : g.targets)
    if (t >= g.nodes())
      throw error(error_code::corrupt_data, fmt::format("{}: an edge names node {} of a {}-node graph", dir.string(), t,
                                                        g.nodes()));
  return g;
}

// Labels of the sequential reference: the smallest node of each component.
std::vector<std::uint32_t> reference_components(const bfs::graph& g) {
  std::vector<std::uint32_t> parent(g.nodes());
  std::iota(parent.begin(), parent.end(), 0u);
  auto root = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (std::uint32_t v = 0; v < g.nodes(); ++v)
    for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const std::uint32_t a = root(v), b = root(g.targets[e]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  std::vector<std::uint32_t> label(g.nodes());
  for (std::uint32_t v = 0; v < g.nodes(); ++v) label[v] = root(v);
  return label;
}

class graph_workload final : public storage_workload {
 public:
  explicit graph_workload(bool components) : components_(components) {}

  std::string_view name() const override { return components_ ? "bam-cc" : "bam-bfs"; }
  std::string_view summary() const override {
    return components_ ? "connected components (hooking + pointer jumping) over edges on storage (BaM section 5.2)"
                       : "level-synchronous BFS over edges on storage (BaM section 5.2)";
  }
  std::vector<std::string> methods() const override {
    return {"none", "naive", "coalesced", "reuse", "mmap", "tiling"};
  }
  std::vector<param_spec> parameters() const override {
    std::vector<param_spec> p = {
        {"graph", scale_free, "input: 0 road-like grid, 1 scale-free R-MAT, 2 edge list named by GPMX_BAM_EDGE_LIST"},
        {"nodes", 1u << 20, "nodes of a generated graph"},
        {"degree", 8, "scale-free graph: mean degree"},
        {"shortcuts", 64, "road graph: random long edges added to the grid"},
        {"seed", 1, "seed of the generated graph"},
        {"tile_edges", 1u << 20, "tiling: edges the host loads per tile"}};
    if (!components_) p.push_back({"source", 0, "the node the search starts from"});
    return with_storage_parameters(p, std::uint64_t(edge_method::reuse), 8192);
  }
  params small_params() const override {
    params p = {{"graph", scale_free}, {"nodes", 4096}, {"degree", 8}, {"shortcuts", 4}, {"seed", 1}, {"tile_edges", 8192}};
    if (!components_) p["source"] = 0;
    return small_storage_params(p, 1024, std::uint64_t(edge_method::reuse), 64, 256);
  }

  void prepare(const storage_env& e, const params& p) override {
    check_graph_params(p);
    check_runtime_parameters(p, methods().size());
    const bfs::graph g = make_graph(p);
    if (!components_ && p.at("source") >= g.nodes())
      throw config_error(fmt::format("source={} is not a node of the {}-node graph", p.at("source"), g.nodes()));
    fresh_directory(e.dir);
    const storage_layout l = layout_of(p, g.targets.size());
    create_devices(e.dir, l);
    write_array(e.dir, l, "edges", 0, std::as_bytes(std::span(g.targets)));
    std::ofstream out(e.dir / offsets_file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(g.offsets.data()), std::streamsize(g.offsets.size() * 8));
    out.close();
    if (!out) throw error(error_code::io, fmt::format("{}: cannot write", (e.dir / offsets_file).string()));
    settle_devices(e.dir, l);
    write_meta(e.dir, name(), p);
  }

  storage_run_report execute(const storage_env& e, const params& p) override {
    check_runtime_parameters(p, methods().size());
    const params data = read_meta(e.dir, name());
    // What kernels touch is kernel memory (canonical pages in the timed mode).
    const std::vector<std::uint64_t> host_offsets = read_offsets(e.dir);
    const kernel_vector<std::uint64_t> offsets(host_offsets.begin(), host_offsets.end());
    const auto nodes = std::uint32_t(offsets.size() - 1);
    const storage_layout l = layout_of(data, offsets.back());
    settle_devices(e.dir, l);  // every method starts with nothing of the graph in memory
    const auto method = edge_method(p.at("method"));
    storage_run_report r;
    r.method = methods()[std::size_t(method)];
    require_timed_method(e, method != edge_method::mmap && method != edge_method::tiling, r.method);
    check_range(p, "tile_edges", 1, std::uint64_t(1) << 32);
    r.unit = "edges";
    kernel_vector<std::uint32_t> result(nodes);
    const launch_config grid = grid_of(p, components_ ? "bam_cc" : "bam_bfs");
    const storage::page_cache* cache = nullptr;  // set for the methods that use one
    launch_target target = e.target();
    // sweep(f) calls f(window, access) for the launches of one level or pass.
    auto compute = [&](auto sweep) {
      // Through the cache's launch, a cache whose every line is pinned is reported by name.
      auto launch = [&](const launch_config& cfg, auto kernel, auto&&... args) {
        if (cache != nullptr)
          storage::launch(target, *cache, cfg, kernel, args...);
        else
          target.launch(cfg, kernel, args...);
      };
      const auto start = std::chrono::steady_clock::now();
      if (components_)
        components(e, launch, sweep, offsets, result, grid, r);
      else
        search(e, launch, sweep, offsets, std::uint32_t(data.at("source")), result, grid, r);
      r.seconds = seconds_since(start);
    };
    const graph_window whole{0, nodes, 0, offsets.back()};
    auto once = [&](auto access) {
      return [whole, access](auto&& f) { f(whole, access); };
    };
    if (method == edge_method::mmap) {
      require_gpu_reaches_mapping(e, r.method);
      const auto before = process_io();
      mapped_file f(e.dir, l, false);
      compute(once(mapped_edges{f.array<const std::uint32_t>("edges")}));
      r.bytes_read = process_io_since(before).read;
    } else if (method == edge_method::tiling) {
      // Every level (pass) the host loads all the edges, a tile at a time:
      // it cannot know which nodes the frontier holds.
      const std::uint64_t tile = p.at("tile_edges");
      // Kernel memory: on a GPU the kernel reads the tile there.
      kernel_vector<std::uint32_t> buffer(std::min<std::uint64_t>(tile, std::max<std::uint64_t>(offsets.back(), 1)));
      compute([&](auto&& f) {
        for (std::uint64_t first = 0; first < offsets.back(); first += tile) {
          const std::uint64_t end = std::min(offsets.back(), first + tile);
          read_array(e.dir, l, "edges", first * 4, std::as_writable_bytes(std::span(buffer.data(), end - first)));
          r.bytes_read += (end - first) * 4;
          const auto v_begin = std::uint64_t(std::upper_bound(offsets.begin(), offsets.end(), first) - offsets.begin() - 1);
          const auto v_end = std::uint64_t(std::lower_bound(offsets.begin(), offsets.end(), end) - offsets.begin());
          f(graph_window{v_begin, std::min<std::uint64_t>(v_end, nodes), first, end}, mapped_edges{buffer.data(), first});
        }
      });
    } else {
      storage_stack s(e.ex, e.dir, l, stack_options_of(e, p, data));
      const auto edges = s.array<std::uint32_t>("edges");
      cache = &s.cache();
      if (method == edge_method::none) {
        const std::size_t threads = std::size_t(grid.grid.x) * grid.block.x;
        // Each thread's block, read into by the controller (a host agent).
        const host_visible_block buffers((threads * lba_bytes + 4095) / 4096 * 4096, 4096);
        compute(once(uncached_edges{edges, buffers.data()}));
      } else if (method == edge_method::naive) {
        compute(once(naive_edges{edges}));
      } else if (method == edge_method::coalesced) {
        compute(once(coalesced_edges{edges}));
      } else {
        compute(once(reused_edges{edges}));
      }
      const io_totals io = s.io();
      r.bytes_read = io.bytes_read;
      r.io_commands = io.commands;
      r.cached = method != edge_method::none;
      r.cache = s.cache().counters();
    }
    write_result(e.dir, std::vector<std::uint32_t>(result.begin(), result.end()));
    return r;
  }

  verify_report verify(const storage_env& e) override {
    const params data = read_meta(e.dir, name());
    const bfs::graph g = load_graph(e.dir, data);
    const auto got = read_result<std::uint32_t>(e.dir, name());
    verify_report v;
    if (got.size() != g.nodes()) {
      v.detail = fmt::format("the result holds {} nodes; the graph has {}", got.size(), g.nodes());
      return v;
    }
    const std::vector<std::uint32_t> want =
        components_ ? reference_components(g) : bfs::reference_levels(g, std::uint32_t(data.at("source")));
    for (std::uint32_t n = 0; n < g.nodes(); ++n) {
      if (got[n] == want[n]) continue;
      auto text = [](std::uint32_t x) { return x == not_reached ? std::string("unreached") : std::to_string(x); };
      v.detail = components_ ? fmt::format("node {} has label {}; the smallest node of its component is {}", n,
                                           got[n], want[n])
                             : fmt::format("node {} has level {}; the sequential BFS from {} gives {}", n,
                                           text(got[n]), data.at("source"), text(want[n]));
      return v;
    }
    v.ok = true;
    v.checked = g.nodes();
    v.detail = components_ ? fmt::format("the labels of all {} nodes equal the smallest node of their component",
                                         g.nodes())
                           : fmt::format("the levels of all {} nodes equal the sequential BFS from node {}", g.nodes(),
                                         data.at("source"));
    return v;
  }

 private:
  template <class Launch, class Sweep>
  void search(const storage_env& e, Launch& launch, Sweep& sweep, const kernel_vector<std::uint64_t>& offsets,
              std::uint32_t source, kernel_vector<std::uint32_t>& levels, const launch_config& grid,
              storage_run_report& r) {
    const auto nodes = std::uint32_t(levels.size());
    std::fill(levels.begin(), levels.end(), not_reached);
    levels[source] = 0;
    kernel_vector<std::uint64_t> counts(2, 0);  // found this level, edges scanned
    std::uint64_t reached = 1;
    std::uint32_t level = 0;
    for (;; ++level) {
      counts[0] = 0;
      sweep([&](graph_window w, auto access) {
        launch(grid, bfs_level_kernel<decltype(access)>{}, access, w, offsets.data(), levels.data(), level,
               &counts[0], &counts[1]);
        ++r.launches;
      });
      reached += counts[0];
      e.report(double(reached) / nodes);
      if (counts[0] == 0) break;
    }
    r.operations = counts[1];
    r.bytes_used = counts[1] * 4;
    r.answer = fmt::format("reached {} of {} nodes from node {} in {} levels", reached, nodes, source, level);
  }

  template <class Launch, class Sweep>
  void components(const storage_env& e, Launch& launch, Sweep& sweep, const kernel_vector<std::uint64_t>& offsets,
                  kernel_vector<std::uint32_t>& labels, const launch_config& grid, storage_run_report& r) {
    const auto nodes = std::uint32_t(labels.size());
    std::iota(labels.begin(), labels.end(), 0u);
    kernel_vector<std::uint64_t> counts(2, 0);  // hooks this pass, edges scanned
    std::uint32_t passes = 0;
    for (counts[0] = 1; counts[0] != 0; ++passes) {
      counts[0] = 0;
      sweep([&](graph_window w, auto access) {
        launch(grid, cc_hook_kernel<decltype(access)>{}, access, w, offsets.data(), labels.data(), &counts[0],
               &counts[1]);
        ++r.launches;
      });
      e.target().launch({grid.grid, grid.block, 0, "bam_cc_jump"}, cc_jump_kernel{}, nodes, labels.data());
      ++r.launches;
      e.report(std::min(0.95, 0.2 * (passes + 1)));
    }
    std::uint64_t roots = 0;
    for (std::uint32_t v = 0; v < nodes; ++v) roots += labels[v] == v;
    r.operations = counts[1];
    r.bytes_used = offsets.back() * 4;
    r.answer = fmt::format("{} components among {} nodes, {} hooking passes", roots, nodes, passes);
  }

  bool components_;
};

}  // namespace

std::unique_ptr<storage_workload> make_bam_bfs() { return std::make_unique<graph_workload>(false); }
std::unique_ptr<storage_workload> make_bam_cc() { return std::make_unique<graph_workload>(true); }

}  // namespace gpmx::apps::bam
