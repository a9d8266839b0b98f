// gpmx: the command line. Subcommands register themselves (commands.hpp);
// every error reaches the user as one message and an exit status that says
// what kind of failure it was.
#include <exception>
#include <fmt/format.h>

#include "commands.hpp"
#include "gpmx/support/error.hpp"

namespace {

// A value the user gave that cannot be used is a usage error; any other
// fault means the work could not be done.
int exit_status_for(gpmx::error_code code) {
  return code == gpmx::error_code::config ? gpmx::cli::exit_usage : gpmx::cli::exit_failure;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpmx::cli;
  CLI::App app{"gpmx: GPU programs whose data survives crashes, on the CPU and on CUDA"};
  app.require_subcommand(1);
  register_workload_commands(app);
  register_list(app);
  register_trace(app);
  register_check(app);
  register_demo(app);
  register_bench(app);
  register_litmus(app);
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
