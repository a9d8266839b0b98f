#pragma once
// What the native-persistence workloads (reduction, scan, prefix-sum) share:
// their shape (elements cut into blocks of `threads` threads, each thread
// owning `per_thread` consecutive elements) and the set-up of their input.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "native/values.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::apps::native {

struct chunked_shape {
  std::uint64_t elements = 0;
  std::uint32_t threads = 0;     // per block; a power of two
  std::uint32_t per_thread = 0;  // consecutive elements a thread owns
  std::uint64_t seed = 0;
  std::uint64_t span() const { return std::uint64_t(threads) * per_thread; }  // elements per block
  std::uint32_t blocks() const { return std::uint32_t(elements / span()); }
};

// The parameters every native workload takes, with its defaults.
std::vector<param_spec> chunked_parameters(std::uint64_t elements, std::uint32_t threads, std::uint32_t per_thread);
// Reads and checks elements/threads/per_thread/seed; throws config_error
// naming the workload and the bad parameter.
chunked_shape chunked_shape_of(std::string_view workload, const params& p);

// Creates region `name` of shape.elements words, fills it with the input and
// persists it (set-up: plain host writes).
pm::region create_input(pm::pool& pool, const char* name, const chunked_shape& s);
// Bytes a pool needs for regions of these sizes, the meta region and the
// namespace table.
std::uint64_t pool_bytes(std::initializer_list<std::uint64_t> region_bytes);

// A workload's job (its pool and regions), its recorded meta and its shape,
// opened from e.dir. Job::open(std::unique_ptr<pm::pool>, shape) builds the job.
template <class Job>
struct opened {
  Job job;
  run_meta meta;
  chunked_shape shape;
};
template <class Job>
opened<Job> open_job(const env& e, const char* pool_file, const workload& w) {
  require_file(e.dir, pool_file, w.name());
  auto pool = std::make_unique<pm::pool>(pm::pool::open(e.dir / pool_file, e.mode));
  run_meta m = read_meta(*pool, w);
  const chunked_shape s = check_recorded(*pool, [&] { return chunked_shape_of(w.name(), m.p); });
  return {Job::open(std::move(pool), s), std::move(m), s};
}

using clock_type = std::chrono::steady_clock;

// The run of a native workload: fresh files, the job created and recorded,
// then compute(job) timed; the report counts the elements.
template <class Job, class Compute>
run_report run_job(const env& e, const params& p, style st, std::string_view workload, std::uint64_t launches,
                   Compute&& compute) {
  const chunked_shape s = chunked_shape_of(workload, p);
  fresh_directory(e.dir);
  auto job = Job::create(e.dir, s, e.mode);
  write_meta(job.pool(), workload, st, p);
  run_report r;
  r.unit = "elements";
  const std::uint64_t before = job.bytes_persisted();
  const auto start = clock_type::now();
  compute(job);
  r.seconds = seconds_since(start);
  r.operations = s.elements;
  r.batches = launches;
  r.bytes_persisted = job.bytes_persisted() - before;
  return r;
}

}  // namespace gpmx::apps::native
