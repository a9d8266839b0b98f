// gpmx: the command line. Subcommands register themselves (commands.hpp);
// every error reaches the user as one message and a non-zero exit status.
#include <exception>
#include <fmt/format.h>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gpmx: GPU programs whose data survives crashes, on the CPU and on CUDA"};
  app.require_subcommand(1);
  gpmx::cli::register_demo(app);
  gpmx::cli::register_bench(app);
  gpmx::cli::register_litmus(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpmx: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
