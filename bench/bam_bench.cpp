#include "bam_bench.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "bam/common_params.hpp"
#include "bam/storage_workload.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/support/error.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::bench {

namespace {
namespace ab = gpmx::apps::bam;

bool wanted(const bam_bench_options& o, const std::string& part) {
  return o.parts.empty() || std::find(o.parts.begin(), o.parts.end(), part) != o.parts.end();
}

// A row beside the methods: a method run with other runtime parameters.
struct variant {
  std::string label;
  apps::params changes;  // "method" included
};

// Runs every method of w on prepared data, then the variants; rows in that order.
std::vector<result> methods_side_by_side(const bam_bench_options& o, ab::storage_workload& w, const ab::storage_env& e,
                                         const apps::params& p, const std::string& prefix, unsigned uncached_repeat,
                                         const std::vector<variant>& variants = {}) {
  std::vector<variant> runs_of;
  for (std::uint64_t m = 0; m < w.methods().size(); ++m) runs_of.push_back({w.methods()[m], {{"method", m}}});
  runs_of.insert(runs_of.end(), variants.begin(), variants.end());
  std::vector<result> rows;
  for (const variant& run : runs_of) {
    const std::string method = run.label;
    if (method == "mmap" && !ab::kernels_reach_mappings(e)) {
      if (o.progress) o.progress(fmt::format("{} mmap: left out, {} cannot fault in a file mapping's pages", prefix,
                                             e.gpu->description()));
      continue;
    }
    apps::params q = p;
    for (const auto& [key, value] : run.changes) q[key] = value;
    if (o.progress) o.progress(fmt::format("{} {}", prefix, method));
    ab::storage_run_report last;
    std::vector<double> runs;
    const unsigned repeat = method == "none" ? uncached_repeat : o.repeat;
    for (unsigned k = 0; k < repeat; ++k) {
      last = w.execute(e, q);
      runs.push_back(last.seconds * 1e9);
      if (k == 0) {
        const apps::verify_report v = w.verify(e);
        if (!v.ok)
          throw error(error_code::check, fmt::format("bench bam: {} with method {} computed a wrong result: {}", prefix,
                                                     method, v.detail));
      }
    }
    result r = make_result(fmt::format("{}_{}", prefix, method), runs,
                           fmt::format("{}: {}", method, last.answer));
    r.metrics["operations_per_second"] = double(last.operations) / (r.median_ns * 1e-9);
    r.metrics["bytes_read"] = double(last.bytes_read);
    r.metrics["bytes_written"] = double(last.bytes_written);
    r.metrics["bytes_used"] = double(last.bytes_used);
    r.metrics["io_amplification"] = last.bytes_used ? double(last.bytes_read) / double(last.bytes_used) : 0;
    r.metrics["io_commands"] = double(last.io_commands);
    r.metrics["launches"] = last.launches;
    if (last.cached) {
      r.metrics["cache_hits"] = double(last.cache.hits);
      r.metrics["cache_misses"] = double(last.cache.misses);
      r.metrics["cache_overwrites"] = double(last.cache.overwrites);
    }
    rows.push_back(r);
  }
  // The paper's ratios, from the medians of this one run.
  std::map<std::string, const result*> by;
  for (result& r : rows) by[r.name.substr(prefix.size() + 1)] = &r;
  auto ratio = [&](result& r, const char* key, const std::string& base) {
    if (by.contains(base) && by[base] != &r) r.metrics[key] = by[base]->median_ns / r.median_ns;
  };
  for (result& r : rows) {
    ratio(r, "speedup_vs_none", "none");
    ratio(r, "speedup_vs_naive", "naive");
    ratio(r, "speedup_vs_tiling", "tiling");
    ratio(r, "speedup_vs_mmap", "mmap");
    ratio(r, "speedup_vs_bam_read_first", "bam_read_first");
    for (const char* bam : {"bam", "reuse"})
      if (by.contains(bam) && by[bam] != &r && by[bam]->metrics.at("bytes_read") > 0)
        r.metrics["traffic_vs_bam"] = r.metrics["bytes_read"] / by[bam]->metrics.at("bytes_read");
  }
  return rows;
}

}  // namespace

std::vector<result> run_bam_benchmarks(const bam_bench_options& o) {
  if (o.repeat == 0 || o.uncached_repeat == 0) throw error(error_code::config, "bench bam: repeat must be positive");
  for (const std::string& part : o.parts)
    if (part != "graph" && part != "query" && part != "vectoradd")
      throw error(error_code::config, fmt::format("bench bam: no part '{}' (graph, query, vectoradd)", part));
  scratch_dir dir(o.dir, "bench-bam");
  cpu::executor ex({.workers = o.workers});
  std::vector<result> rows;
  auto add = [&](std::vector<result> more) { rows.insert(rows.end(), more.begin(), more.end()); };
  auto params_of = [&](ab::storage_workload& w, apps::params given) {
    apps::params p = ab::resolve_storage_params(w, o.small ? w.small_params() : given);
    p["controllers"] = o.controllers;
    return p;
  };
  if (wanted(o, "graph")) {
    for (const char* name : {"bam-bfs", "bam-cc"}) {
      ab::storage_workload& w = *ab::find_storage_workload(name);
      ab::storage_env e{ex, dir / name};
      e.gpu = o.gpu;
      const apps::params p = params_of(
          w, {{"nodes", o.graph_nodes}, {"cache_kib", o.graph_cache_kib}, {"threads", o.graph_threads}});
      if (o.progress) o.progress(fmt::format("{}: preparing {} nodes", name, p.at("nodes")));
      w.prepare(e, p);
      add(methods_side_by_side(o, w, e, p, name, o.uncached_repeat));
    }
  }
  if (wanted(o, "query")) {
    ab::storage_workload& w = *ab::find_storage_workload("bam-query");
    ab::storage_env e{ex, dir / "bam-query"};
    e.gpu = o.gpu;
    apps::params p = params_of(w, {{"rows", o.rows}});
    if (o.progress) o.progress(fmt::format("bam-query: preparing {} rows", p.at("rows")));
    w.prepare(e, p);
    for (std::uint64_t q = 0; q <= 5; ++q) {
      p["query"] = q;
      add(methods_side_by_side(o, w, e, p, fmt::format("bam-query_q{}", q), o.repeat));
    }
  }
  if (wanted(o, "vectoradd")) {
    ab::storage_workload& w = *ab::find_storage_workload("bam-vectoradd");
    ab::storage_env e{ex, dir / "bam-vectoradd"};
    e.gpu = o.gpu;
    const apps::params p = params_of(w, {{"elements", o.elements}});
    if (o.progress) o.progress(fmt::format("bam-vectoradd: preparing {} elements", p.at("elements")));
    w.prepare(e, p);
    // bam fills c's lines without reading them (-p overwrite=1); beside it,
    // the same method reading each line first, as BaM's write path does.
    add(methods_side_by_side(o, w, e, p, "bam-vectoradd", o.repeat,
                             {{"bam_read_first", {{"method", 0}, {"overwrite", 0}}}}));
  }
  return rows;
}

}  // namespace gpmx::bench
