#pragma once
// Option values shared by several subcommands.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::cli {

inline constexpr const char* durability_help =
    "how persists reach the file: pmem (libpmem decides), msync, flush (cache-line flushes: PM, or "
    "DRAM-emulated PM on tmpfs) or none";
// Throws config_error (a usage error) naming the value when it is not one.
pm::durability parse_durability(const std::string& s);

// --backend cpu|cuda (default cpu), values checked by CLI11.
void add_backend_option(CLI::App* sub, std::string& backend, const std::string& help);
// The GPU session `backend` asks for, null for cpu; throws gpu_unavailable
// (exit 3) naming what is missing. With a label, says on stderr
// "LABEL: kernels on <GPU>".
std::unique_ptr<gpu_session> open_backend(const std::string& backend, const char* label = nullptr);

}  // namespace gpmx::cli
