// gpmx bench exec: the executor benchmarks, as a table or JSON.
#include <fmt/format.h>

#include <fstream>

#include "commands.hpp"
#include "gpmx/bench/exec_bench.hpp"

namespace gpmx::cli {

void register_bench(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "Run benchmarks");
  bench->require_subcommand(1);
  auto* exec = bench->add_subcommand("exec", "Benchmark the cpu executor (kernels vs loops, barriers, shuffles)");
  struct args {
    bench::exec_bench_options o;
    bool json = false;
    std::string out;
  };
  auto a = std::make_shared<args>();
  exec->add_option("--repeat", a->o.repeat, "measured runs per benchmark (median reported)")->capture_default_str();
  exec->add_option("--fill-threads", a->o.fill_threads, "threads of the barrier-free kernel")->capture_default_str();
  exec->add_option("--reduce-elements", a->o.reduce_elements, "elements of the block reduction")->capture_default_str();
  exec->add_option("--shuffle-threads", a->o.shuffle_threads, "threads of the warp shuffle reduction")->capture_default_str();
  exec->add_option("--max-workers", a->o.max_workers, "largest worker count measured (powers of two from 1)")->capture_default_str();
  exec->add_flag("--json", a->json, "print JSON instead of a table");
  exec->add_option("--out", a->out, "also write the JSON to this file");
  exec->callback([a] {
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    const auto results = bench::run_exec_benchmarks(a->o);
    const auto json = bench::to_json(results);
    if (a->json) fmt::print("{}\n", json.dump(2));
    else fmt::print("{}", bench::to_table(results));
    if (!a->out.empty()) {
      std::ofstream f(a->out);
      if (!(f << json.dump(2) << "\n")) throw std::runtime_error("cannot write " + a->out);
    }
  });
}

}  // namespace gpmx::cli
