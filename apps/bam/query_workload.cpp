// Analytics queries Q0-Q5 over a taxi-like table on storage (`gpmx run
// bam-query`): BaM's data-analytics workload (002_..., section 5.3). Methods:
// bam (kernel threads read through the page cache, the cost columns only
// where a trip is long), tiling (the CPU-initiated baseline: the host loads
// tiles of every column the query uses, then a kernel scans each tile), mmap
// (the columns mapped; pages come in on faults).
#include <algorithm>
#include <chrono>
#include <span>

#include <fmt/format.h>

#include "bam/common_params.hpp"
#include "bam/mapped_file.hpp"
#include "bam/query_kernels.hpp"
#include "bam/run_files.hpp"
#include "bam/storage_workload.hpp"
#include "common/run_meta.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::apps::bam {
namespace {

enum method : std::uint64_t { bam_method = 0, tiling = 1, mmap_method = 2 };

storage_layout layout_of(const params& data) {
  std::vector<std::pair<std::string, std::uint64_t>> arrays;
  for (const std::string& c : taxi_column_names) arrays.emplace_back(c, data.at("rows") * 8);
  return storage_layout::plan(std::uint32_t(data.at("devices")), std::uint32_t(data.at("line")), arrays);
}

// The answer from the stored columns, read by the host a chunk at a time.
query_answer host_answer(const std::filesystem::path& dir, const storage_layout& l, std::uint64_t rows,
                         std::uint32_t query) {
  query_answer a;
  const std::uint64_t chunk = 1 << 18;
  std::vector<std::uint64_t> col(chunk), other(chunk);
  for (std::uint64_t first = 0; first < rows; first += chunk) {
    const std::uint64_t n = std::min(chunk, rows - first);
    read_array(dir, l, taxi_column_names[0], first * 8, std::as_writable_bytes(std::span(col.data(), n)));
    std::vector<std::uint64_t> hits;
    for (std::uint64_t i = 0; i < n; ++i)
      if (col[i] >= long_trip) {
        hits.push_back(i);
        ++a.trips;
        a.sums[0] += col[i];
      }
    for (std::uint32_t c = 1; c <= query && !hits.empty(); ++c) {
      read_array(dir, l, taxi_column_names[c], first * 8, std::as_writable_bytes(std::span(other.data(), n)));
      for (std::uint64_t i : hits) a.sums[c] += other[i];
    }
  }
  return a;
}

class query_workload final : public storage_workload {
 public:
  std::string_view name() const override { return "bam-query"; }
  std::string_view summary() const override {
    return "analytics queries Q0-Q5 over a taxi-like table on storage, later columns read only for long trips "
           "(BaM section 5.3)";
  }
  std::vector<std::string> methods() const override { return {"bam", "tiling", "mmap"}; }
  std::vector<param_spec> parameters() const override {
    return with_storage_parameters(
        {{"rows", 1u << 20, "trips in the table"},
         {"seed", 1, "seed of the generated table"},
         {"query", 5, "which query: 0 (scan distance) to 5 (dollars per mile)"},
         {"tile_rows", 1u << 18, "tiling: rows of each column the host loads per tile"}},
        bam_method, 8192);
  }
  params small_params() const override {
    return small_storage_params({{"rows", 1u << 15}, {"seed", 1}, {"query", 5}, {"tile_rows", 1u << 12}}, 4096,
                                bam_method, 256, 512);
  }

  void prepare(const storage_env& e, const params& p) override {
    check_range(p, "rows", 1, std::uint64_t(1) << 34);
    check_layout_parameters(p);
    check_runtime(p);
    fresh_directory(e.dir);
    const storage_layout l = layout_of(p);
    create_devices(e.dir, l);
    for (std::uint32_t c = 0; c < taxi_columns; ++c) {
      write_generated(e.dir, l, taxi_column_names[c], p.at("rows"),
                      [&](std::uint64_t row) { return taxi_value(p.at("seed"), c, row); });
      e.report(0.5 * (c + 1) / taxi_columns);
    }
    settle_devices(e.dir, l);
    write_meta(e.dir, name(), p);
  }

  storage_run_report execute(const storage_env& e, const params& p) override {
    check_runtime(p);
    const params data = read_meta(e.dir, name());
    const storage_layout l = layout_of(data);
    settle_devices(e.dir, l);
    const std::uint64_t rows = data.at("rows");
    const auto query = std::uint32_t(p.at("query"));
    storage_run_report r;
    r.method = methods()[p.at("method")];
    require_timed_method(e, p.at("method") == bam_method, r.method);
    r.unit = "rows";
    r.operations = rows;
    kernel_vector<std::uint64_t> answer(1 + taxi_columns, 0);  // kernel memory: canonical pages when timed
    const launch_config grid = grid_of(p, "bam_query");
    const std::uint64_t chunk = l.line_bytes / 8;  // rows of one cache line per warp at a time
    launch_target target = e.target();
    const auto start = std::chrono::steady_clock::now();
    if (p.at("method") == bam_method) {
      storage_stack s(e.ex, e.dir, l, stack_options_of(e, p, data));
      stored_columns cols;
      for (std::uint32_t c = 0; c < taxi_columns; ++c) cols.col[c] = s.array<std::uint64_t>(taxi_column_names[c]);
      const auto launched = std::chrono::steady_clock::now();
      storage::launch(target, s.cache(), grid, query_kernel<stored_columns>{}, cols, std::uint64_t{0}, rows, query, chunk, answer.data());
      r.seconds = seconds_since(launched);
      const io_totals io = s.io();
      r.bytes_read = io.bytes_read;
      r.io_commands = io.commands;
      r.cached = true;
      r.cache = s.cache().counters();
      r.launches = 1;
    } else if (p.at("method") == tiling) {
      const std::uint64_t tile = p.at("tile_rows");
      // Kernel memory: the kernel reads the tiles (on a GPU, host vectors it could not).
      std::vector<kernel_vector<std::uint64_t>> buffers(query + 1, kernel_vector<std::uint64_t>(tile));
      memory_columns cols;
      for (std::uint64_t first = 0; first < rows; first += tile) {
        const std::uint64_t n = std::min(tile, rows - first);
        // The host cannot know which cost rows the kernel will need: it loads them all.
        for (std::uint32_t c = 0; c <= query; ++c) {
          read_array(e.dir, l, taxi_column_names[c], first * 8, std::as_writable_bytes(std::span(buffers[c].data(), n)));
          cols.col[c] = buffers[c].data();
          r.bytes_read += n * 8;
        }
        cols.first = first;
        target.launch(grid, query_kernel<memory_columns>{}, cols, first, n, query, chunk, answer.data());
        ++r.launches;
        e.report(double(first + n) / rows);
      }
      r.seconds = seconds_since(start);
    } else {
      require_gpu_reaches_mapping(e, r.method);
      const auto before = process_io();
      mapped_file f(e.dir, l, false);
      memory_columns cols;
      for (std::uint32_t c = 0; c < taxi_columns; ++c) cols.col[c] = f.array<const std::uint64_t>(taxi_column_names[c]);
      target.launch(grid, query_kernel<memory_columns>{}, cols, std::uint64_t{0}, rows, query, chunk, answer.data());
      r.seconds = seconds_since(start);
      r.bytes_read = process_io_since(before).read;
      r.launches = 1;
    }
    query_answer a;
    a.trips = answer[0];
    for (std::uint32_t c = 0; c < taxi_columns; ++c) a.sums[c] = answer[1 + c];
    r.bytes_used = rows * 8 + a.trips * 8 * query;
    r.answer = describe(a, query);
    std::vector<std::uint64_t> result = {query, answer[0]};
    result.insert(result.end(), answer.begin() + 1, answer.end());
    write_result(e.dir, result);
    return r;
  }

  verify_report verify(const storage_env& e) override {
    const params data = read_meta(e.dir, name());
    const auto got = read_result<std::uint64_t>(e.dir, name());
    verify_report v;
    if (got.size() != 2 + taxi_columns || got[0] > 5) {
      v.detail = fmt::format("the result is not a query's answer ({} words)", got.size());
      return v;
    }
    const auto query = std::uint32_t(got[0]);
    const query_answer want = host_answer(e.dir, layout_of(data), data.at("rows"), query);
    if (got[1] != want.trips) {
      v.detail = fmt::format("Q{} found {} long trips; the host finds {}", query, got[1], want.trips);
      return v;
    }
    for (std::uint32_t c = 0; c <= query; ++c)
      if (got[2 + c] != want.sums[c]) {
        v.detail = fmt::format("Q{}: the sum of column {} is {}; the host's is {}", query, taxi_column_names[c],
                               got[2 + c], want.sums[c]);
        return v;
      }
    v.ok = true;
    v.checked = data.at("rows");
    v.detail = fmt::format("equal to the host's scan of all {} rows: {}", data.at("rows"), describe(want, query));
    return v;
  }

 private:
  void check_runtime(const params& p) const {
    check_runtime_parameters(p, methods().size());
    check_range(p, "query", 0, 5);
    check_range(p, "tile_rows", 1, std::uint64_t(1) << 30);
  }
};

}  // namespace

std::unique_ptr<storage_workload> make_bam_query() { return std::make_unique<query_workload>(); }

}  // namespace gpmx::apps::bam
