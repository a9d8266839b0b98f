#include "cli_args.hpp"

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::cli {

pm::durability parse_durability(const std::string& s) {
  if (s == "pmem" || s == "msync" || s == "flush" || s == "none") return pm::durability_from_string(s);
  throw config_error(fmt::format("unknown durability '{}': use pmem, msync, flush or none", s));
}

void add_backend_option(CLI::App* sub, std::string& backend, const std::string& help) {
  sub->add_option("--backend", backend, help)->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
}

std::unique_ptr<gpu_session> open_backend(const std::string& backend, const char* label) {
  if (backend != "cuda") return nullptr;
  auto session = gpu_session::open();
  if (label) fmt::print(stderr, "{}: kernels on {}\n", label, session->description());
  return session;
}

}  // namespace gpmx::cli
