// gpmx: the command line. Subcommands register themselves (commands.hpp);
// every error reaches the user as one message and an exit status that says
// what kind of failure it was.
#include <exception>
#include <fmt/format.h>

#include "commands.hpp"
#include "eager_binding.hpp"
#include "option_checks.hpp"
#include "gpmx/support/error.hpp"
#include "gpmx/support/interrupt_cleanup.hpp"
#include "gpmx/version.hpp"

namespace {

// A value the user gave that cannot be used is a usage error; any other
// fault means the work could not be done.
int exit_status_for(gpmx::error_code code) {
  return code == gpmx::error_code::config ? gpmx::cli::exit_usage : gpmx::cli::exit_failure;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpmx::cli;
  bind_symbols_eagerly_for_checks(argc, argv);
  // First: a SIGINT, SIGTERM or SIGHUP kills this process's children and
  // removes its scratch directories before it ends.
  gpmx::interrupt_cleanup::install();
  CLI::App app{"gpmx: GPU programs whose data survives crashes, on the CPU and on CUDA"};
  app.require_subcommand(1);
  register_workload_commands(app);
  register_list(app);
  register_trace(app);
  register_check(app);
  register_sim(app);
  register_demo(app);
  register_bench(app);
  register_litmus(app);
  register_report(app);
  app.set_version_flag("--version", std::string("gpmx ") + gpmx::version_string);
  refuse_negative_and_overflowing_numbers(app);
  if (const std::string unknown = unknown_subcommand(app, argc, argv); !unknown.empty()) {
    fmt::print(stderr, "gpmx: error: {}\n", unknown);
    return exit_usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? exit_ok : exit_usage;
  } catch (const exit_request& r) {
    return r.status;
  } catch (const gpmx::error& e) {
    fmt::print(stderr, "gpmx: error: {}\n", e.what());
    return exit_status_for(e.code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpmx: error: {}\n", e.what());
    return exit_failure;
  }
  return exit_ok;
}
