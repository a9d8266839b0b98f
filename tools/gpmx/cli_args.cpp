#include "cli_args.hpp"

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::cli {

pm::durability parse_durability(const std::string& s) {
  if (s == "pmem" || s == "msync" || s == "flush" || s == "none") return pm::durability_from_string(s);
  throw config_error(fmt::format("unknown durability '{}': use pmem, msync, flush or none", s));
}

}  // namespace gpmx::cli
