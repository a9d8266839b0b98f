#include "journal_program.hpp"

#include <string>

#include <gpmx/exec/cpu/executor.hpp>
#include <gpmx/pm/pool.hpp>
#include <gpmx/trace/recorder.hpp>

#include "journal_kernel.hpp"

namespace journal {

void run(const gpmx::launch_target& target, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / pool_file);
  gpmx::pm::pool pool = gpmx::pm::pool::create(dir / pool_file, 64 << 10);
  const gpmx::pm::region records = pool.create_region("records", slots * sizeof(record));
  const gpmx::pm::region commits = pool.create_region("commits", slots * sizeof(std::uint64_t));
  target.launch({gpmx::dim3(blocks), gpmx::dim3(threads_per_block), 0, "append"}, append_kernel{},
                records.span<record>(), commits.span<std::uint64_t>());
}

verdict recover_and_check(const std::filesystem::path& dir) {
  gpmx::pm::pool pool = gpmx::pm::pool::open(dir / pool_file);
  const gpmx::pm::region records_region = pool.find("records");
  const auto records = records_region.as<record>();
  const auto commits = pool.find("commits").as<std::uint64_t>();
  verdict v;
  for (std::uint64_t slot = 0; slot < slots; ++slot) {
    if (commits[slot] != 1) {
      // Not committed: whatever reached PM of it is discarded.
      records[slot] = record{};
      records_region.persist(slot * sizeof(record), sizeof(record));
      continue;
    }
    const record& r = records[slot];
    if (r.key != slot + 1 || r.value != value_of(r.key) || r.check != check_of(r.key, r.value)) {
      v.problem = "slot " + std::to_string(slot) + " is committed but its record is not intact (key " +
                  std::to_string(r.key) + ", value " + std::to_string(r.value) + ")";
      return v;
    }
    ++v.committed;
  }
  v.ok = true;
  return v;
}

gpmx::check::check_report check_crashes(const std::filesystem::path& scratch, gpmx::check::persist_model model) {
  const std::filesystem::path traced = scratch / "traced";
  gpmx::trace::recorder recorder;
  {
    gpmx::cpu::executor ex({.policy = gpmx::cpu::schedule::deterministic, .seed = 1, .observer = &recorder});
    run(ex, traced);
  }
  gpmx::check::check_options options;
  options.model = model;
  options.root = traced;
  options.work_dir = scratch / "images";
  options.jobs = 2;
  const auto target = [](const std::filesystem::path& image) -> gpmx::check::image_verdict {
    const verdict v = recover_and_check(image);
    return {v.ok, v.problem};
  };
  return gpmx::check::check_trace(recorder.take(), target, options);
}

}  // namespace journal
