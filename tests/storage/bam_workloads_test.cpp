// The BaM workloads end to end (apps/bam): every method of every workload
// computes what the host computes, the methods agree with each other, data
// striped over two devices is read and written right, the analytics query
// reads less through the cache than the tiled baseline, and wrong results,
// missing data and bad parameters are reported by name. Under the parallel
// schedule and the deterministic one with several seeds.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "bam/run_files.hpp"
#include "bam/storage_workload.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/config.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/storage/storage_error.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;
using namespace gpmx::apps::bam;

storage_workload& workload(std::string_view name) {
  storage_workload* w = find_storage_workload(name);
  if (w == nullptr) throw std::runtime_error(std::string("no storage workload ") + std::string(name));
  return *w;
}

params with(params p, std::initializer_list<std::pair<const std::string, std::uint64_t>> changes) {
  for (const auto& [k, v] : changes) p[k] = v;
  return p;
}

std::vector<std::byte> result_of(const std::filesystem::path& dir, std::string_view name) {
  return read_result_bytes(dir, name);
}

TEST(BamWorkloads, EveryMethodOfEveryWorkloadVerifies) {
  for (const auto& w : storage_workloads()) {
    scratch_dir dir;
    cpu::executor ex({.workers = 2});
    const storage_env e{ex, dir / "w"};
    const params p = resolve_storage_params(*w, w->small_params());
    w->prepare(e, p);
    std::vector<std::byte> first;
    for (std::uint64_t m = 0; m < w->methods().size(); ++m) {
      SCOPED_TRACE(std::string(w->name()) + " method " + w->methods()[m]);
      const storage_run_report r = w->execute(e, with(p, {{"method", m}}));
      EXPECT_GT(r.operations, 0u);
      EXPECT_FALSE(r.answer.empty());
      const verify_report v = w->verify(e);
      EXPECT_TRUE(v.ok) << v.detail;
      EXPECT_GT(v.checked, 0u);
      // Every method computes the same result from the same data.
      if (m == 0) first = result_of(e.dir, w->name());
      else EXPECT_EQ(result_of(e.dir, w->name()), first);
    }
  }
}

TEST(BamWorkloads, CachedMethodsUnderTheDeterministicScheduleWithSeveralSeeds) {
  for (const char* name : {"bam-bfs", "bam-cc", "bam-query", "bam-vectoradd"}) {
    storage_workload& w = workload(name);
    for (std::uint64_t seed : {1, 2, 3}) {
      SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
      scratch_dir dir;
      cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
      const storage_env e{ex, dir / "w", true, seed};
      // A smaller input: the deterministic schedule runs one thread at a time.
      params p = resolve_storage_params(w, w.small_params());
      if (p.contains("nodes")) p["nodes"] = 1024;
      if (p.contains("rows")) p["rows"] = 1u << 12;
      if (p.contains("elements")) p["elements"] = 1u << 12;
      w.run(e, p);
      const verify_report v = w.verify(e);
      EXPECT_TRUE(v.ok) << v.detail;
    }
  }
}

TEST(BamWorkloads, QueueMethodsRunInTheTimedModeAndTheOthersAreRefused) {
  for (const char* name : {"bam-bfs", "bam-query", "bam-vectoradd"}) {
    storage_workload& w = workload(name);
    SCOPED_TRACE(name);
    scratch_dir dir;
    sim::gpu_model gpu(sim::named_config("sbrp-table1"));
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    const storage_env e{ex, dir / "w", false, 1, {}, storage::device_timing::named("nand-ssd")};
    params p = resolve_storage_params(w, w.small_params());
    if (p.contains("nodes")) p["nodes"] = 512;
    if (p.contains("rows")) p["rows"] = 1u << 12;
    if (p.contains("elements")) p["elements"] = 1u << 12;
    const vtime before = ex.virtual_time();
    const storage_run_report r = w.run(e, p);
    // Every command waited its turn on the device model: at least one latency passed.
    EXPECT_GE(ex.virtual_time() - before, vtime(324'000'000)) << r.answer;
    cpu::executor check({.workers = 2});
    const verify_report v = w.verify({check, e.dir});
    EXPECT_TRUE(v.ok) << v.detail;
    const std::uint64_t host_method = std::string(name) == "bam-bfs" ? 4 : 1;  // mmap, tiling
    EXPECT_THROW(w.execute(e, with(p, {{"method", host_method}})), config_error);
  }
}

// A thread whose first sweep finds every line pinned or busy retries off
// its fiber in the timed mode; a later try may take a dirty victim, whose
// write-back (a command and a wait for its completion) must then run on
// the fiber, after the condition (it once failed the launch: "a spin_wait
// condition waited").
TEST(BamWorkloads, ATimedRunWritesBackVictimsFoundAfterFailedSweeps) {
  storage_workload& w = workload("bam-vectoradd");
  scratch_dir dir;
  sim::gpu_model gpu(sim::named_config("sbrp-table1"));
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  const storage_env e{ex, dir / "w", false, 1, {}, storage::device_timing::named("optane-p5800x")};
  // 1.5 MiB of vectors through 80 lines, 1,024 threads: sweeps fail often.
  const params p = with(resolve_storage_params(w, w.small_params()),
                        {{"elements", 65536}, {"cache_kib", 320}, {"threads", 1024}});
  const storage_run_report r = w.run(e, p);
  EXPECT_GT(r.cache.full_sweeps, 0u);
  EXPECT_GT(r.cache.write_backs, 0u);
  cpu::executor check({.workers = 2});
  const verify_report v = w.verify({check, e.dir});
  EXPECT_TRUE(v.ok) << v.detail;
}

TEST(BamWorkloads, ATimedRunTakesTheSameCyclesWhereverTheHeapPutsThings) {
  storage_workload& w = workload("bam-bfs");
  const params p = with(resolve_storage_params(w, w.small_params()), {{"nodes", 512}});
  std::vector<vtime> took;
  std::vector<std::unique_ptr<char[]>> junk;
  for (std::size_t k = 0; k < 2; ++k) {
    junk.push_back(std::make_unique<char[]>(1000 + 777 * k));  // later host allocations move
    scratch_dir dir;
    const sim::canonical_kernel_memory placement;
    sim::gpu_model gpu(sim::named_config("sbrp-table1"));
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    const storage_env e{ex, dir / "w", false, 1, {}, storage::device_timing::named("optane-p5800x")};
    const vtime before = ex.virtual_time();
    w.run(e, p);
    took.push_back(ex.virtual_time() - before);
  }
  EXPECT_EQ(took[0], took[1]);
}

TEST(BamWorkloads, DataStripedOverTwoDevicesIsReadAndWrittenRight) {
  for (const char* name : {"bam-bfs", "bam-vectoradd"}) {
    storage_workload& w = workload(name);
    scratch_dir dir;
    cpu::executor ex({.workers = 2});
    const storage_env e{ex, dir / "w"};
    const params p = with(resolve_storage_params(w, w.small_params()), {{"devices", 2}});
    const storage_run_report r = w.run(e, p);
    EXPECT_TRUE(std::filesystem::exists(e.dir / "device1"));
    const verify_report v = w.verify(e);
    EXPECT_TRUE(v.ok) << name << ": " << v.detail;
    EXPECT_GT(r.io_commands, 0u);
  }
}

// Two controllers per device, each serving one of its two queue pairs on a
// thread of its own (and stepped in turn under the deterministic schedule):
// every command is served, the results verify. More controllers than queue
// pairs, or several in the timed mode, are refused by name.
TEST(BamWorkloads, SeveralControllersShareADevicesQueuePairs) {
  for (const char* name : {"bam-bfs", "bam-vectoradd"}) {
    storage_workload& w = workload(name);
    SCOPED_TRACE(name);
    const params p = with(resolve_storage_params(w, w.small_params()), {{"queues", 2}, {"controllers", 2}});
    for (const bool deterministic : {false, true}) {
      scratch_dir dir;
      cpu::executor ex(deterministic ? cpu::executor_options{.policy = cpu::schedule::deterministic, .seed = 3}
                                     : cpu::executor_options{.workers = 2});
      const storage_env e{ex, dir / "w", deterministic, 3};
      const storage_run_report r = w.run(e, p);
      EXPECT_GT(r.io_commands, 0u);
      cpu::executor check({.workers = 2});
      const verify_report v = w.verify({check, e.dir});
      EXPECT_TRUE(v.ok) << v.detail;
    }
  }
  storage_workload& w = workload("bam-vectoradd");
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  const storage_env e{ex, dir / "w"};
  const params p = resolve_storage_params(w, w.small_params());
  w.prepare(e, p);
  try {
    w.execute(e, with(p, {{"queues", 2}, {"controllers", 3}}));
    FAIL() << "three controllers for two queue pairs";
  } catch (const config_error& x) {
    EXPECT_NE(std::string(x.what()).find("controllers=3"), std::string::npos) << x.what();
  }
  sim::gpu_model gpu(sim::named_config("sbrp-table1"));
  cpu::executor timed({.policy = cpu::schedule::timed, .timing = &gpu});
  const storage_env te{timed, dir / "t", false, 1, {}, storage::device_timing::named("nand-ssd")};
  try {
    w.run(te, with(p, {{"elements", 1u << 12}, {"controllers", 2}}));
    FAIL() << "two controllers in the timed mode";
  } catch (const config_error& x) {
    EXPECT_NE(std::string(x.what()).find("controllers=2"), std::string::npos) << x.what();
  }
}

TEST(BamWorkloads, TheQueryReadsLessThroughTheCacheThanTheTiledBaseline) {
  storage_workload& w = workload("bam-query");
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  const storage_env e{ex, dir / "w"};
  const params p = with(resolve_storage_params(w, w.small_params()), {{"rows", 1u << 16}, {"line", 512}});
  w.prepare(e, p);
  const storage_run_report q0 = w.execute(e, with(p, {{"query", 0}}));
  const storage_run_report bam = w.execute(e, with(p, {{"query", 5}}));
  const storage_run_report tiled = w.execute(e, with(p, {{"query", 5}, {"method", 1}}));
  // Tiling loads all six columns; the cache reads the distance column and
  // only the lines of the other five that hold a long trip.
  EXPECT_EQ(tiled.bytes_read, 6u * 8 * p.at("rows"));
  EXPECT_GE(bam.bytes_read, q0.bytes_read);
  EXPECT_LT(bam.bytes_read, 2 * q0.bytes_read);
  EXPECT_EQ(q0.bytes_read, 8u * p.at("rows"));
  EXPECT_EQ(bam.answer.substr(0, 3), "Q5:");
}

TEST(BamWorkloads, AWrongResultIsReportedNamingTheNode) {
  storage_workload& w = workload("bam-bfs");
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  const storage_env e{ex, dir / "w"};
  w.run(e, resolve_storage_params(w, w.small_params()));
  auto levels = read_result<std::uint32_t>(e.dir, "bam-bfs");
  levels[17] += 1;
  write_result(e.dir, levels);
  const verify_report v = w.verify(e);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("node 17"), std::string::npos) << v.detail;
}

TEST(BamWorkloads, AWrongElementOnStorageIsReportedByIndex) {
  storage_workload& w = workload("bam-vectoradd");
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  const storage_env e{ex, dir / "w"};
  const params p = resolve_storage_params(w, w.small_params());
  w.run(e, p);
  // c is the third array: element 5 of it in device0 (one device, whole lines).
  const std::uint64_t c_offset = 2 * ((p.at("elements") * 8 + 4095) / 4096 * 4096) + 5 * 8;
  std::fstream f(e.dir / "device0", std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(std::streamoff(c_offset));
  const std::uint64_t junk = 42;
  f.write(reinterpret_cast<const char*>(&junk), 8);
  f.close();
  const verify_report v = w.verify(e);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("c[5]"), std::string::npos) << v.detail;
}

// vectorAdd's c written whole, line by line (-p overwrite=1, the default):
// only a and b are read; reading each line of c first (-p overwrite=0, BaM's
// write path) reads all three. Both leave c = a + b, over a c that held
// other values (the first run's data, then junk).
TEST(BamWorkloads, VectorAddOverwritesLinesOfCWithoutReadingThem) {
  storage_workload& w = workload("bam-vectoradd");
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  const storage_env e{ex, dir / "w"};
  const params p = with(resolve_storage_params(w, w.small_params()), {{"elements", 4096 * 8 + 100}});
  w.prepare(e, p);
  const std::uint64_t vector_bytes = (p.at("elements") * 8 + 4095) / 4096 * 4096;  // whole lines
  for (std::uint64_t overwrite : {0, 1}) {
    SCOPED_TRACE("overwrite " + std::to_string(overwrite));
    {
      std::fstream f(e.dir / "device0", std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(std::streamoff(2 * vector_bytes));
      const std::vector<char> junk(vector_bytes, char(0x5a));
      f.write(junk.data(), std::streamsize(junk.size()));
    }
    const storage_run_report r = w.execute(e, with(p, {{"method", 0}, {"overwrite", overwrite}}));
    EXPECT_EQ(r.bytes_read, (overwrite ? 2 : 3) * vector_bytes);
    EXPECT_EQ(r.bytes_written, vector_bytes);
    EXPECT_EQ(r.cache.overwrites, overwrite ? vector_bytes / 4096 : 0u);
    const verify_report v = w.verify(e);
    EXPECT_TRUE(v.ok) << v.detail;
  }
  EXPECT_THROW(w.execute(e, with(p, {{"method", 0}, {"overwrite", 2}})), config_error);
}

TEST(BamWorkloads, MissingDataAndBadParametersAreNamed) {
  storage_workload& w = workload("bam-cc");
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  const storage_env e{ex, dir / "w"};
  try {
    w.verify(e);
    FAIL() << "verify without data";
  } catch (const gpmx::error& x) {
    EXPECT_EQ(x.code(), error_code::not_found);
    EXPECT_NE(std::string(x.what()).find("gpmx run bam-cc"), std::string::npos) << x.what();
  }
  EXPECT_THROW(resolve_storage_params(w, {{"colour", 1}}), config_error);
  const params p = resolve_storage_params(w, w.small_params());
  EXPECT_THROW(w.prepare(e, with(p, {{"line", 1000}})), config_error);
  EXPECT_THROW(w.prepare(e, with(p, {{"method", 9}})), config_error);
  // The page-fault baseline maps one file.
  w.prepare(e, with(p, {{"devices", 2}}));
  try {
    w.execute(e, with(p, {{"method", 4}}));
    FAIL() << "mmap over two devices";
  } catch (const config_error& x) {
    EXPECT_NE(std::string(x.what()).find("devices=1"), std::string::npos) << x.what();
  }
}

TEST(BamWorkloads, ACacheTooSmallForThePinnedPagesIsReportedByName) {
  storage_workload& w = workload("bam-vectoradd");
  scratch_dir dir;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1});
  const storage_env e{ex, dir / "w", true, 1};
  // A thread keeps its lines of a and b pinned while it takes one of c: a
  // one-line cache can never give it one.
  const params p =
      with(resolve_storage_params(w, w.small_params()), {{"elements", 4096}, {"cache_kib", 4}, {"threads", 64}});
  try {
    w.run(e, p);
    FAIL() << "a one-line cache served threads pinning three lines each";
  } catch (const storage::storage_error& x) {
    EXPECT_EQ(x.code(), error_code::capacity);
    EXPECT_NE(std::string(x.what()).find("cache 'bam' (1 lines of 4096 bytes)"), std::string::npos) << x.what();
  }
}

}  // namespace
