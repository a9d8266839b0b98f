#include "gpmx/pm/gpm_checkpoint.hpp"

#include <fmt/format.h>
#include <limits>
#include <new>
#include <string>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/checkpoint.hpp"

struct gpmcp {
  gpmx::pm::checkpoint cp;
};

namespace {
using gpmx::pm::errc;

thread_local std::string last_error;
thread_local errc last_code = errc::bad_argument;

void remember(errc code, std::string what) {
  last_code = code;
  last_error = std::move(what);
}

// Where copies run: the GPU of the open session, as GPM's copy kernel does,
// else the default executor.
gpmx::launch_target here() { return {gpmx::cpu::default_executor(), gpmx::gpu_session::current()}; }

// Runs f, turning any exception into a remembered error; returns whether f succeeded.
template <class F>
bool guarded(F&& f) {
  try {
    f();
    return true;
  } catch (const gpmx::pm::pm_error& e) {
    remember(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    remember(errc::io, "out of memory");
  } catch (const std::exception& e) {
    remember(errc::io, e.what());
  }
  return false;
}

// The native API counts groups and elements in 32 bits.
bool narrow(std::size_t v, const char* what, std::uint32_t& out) {
  if (v > std::numeric_limits<std::uint32_t>::max()) {
    remember(errc::bad_argument, fmt::format("{} {} is out of range", what, v));
    return false;
  }
  out = std::uint32_t(v);
  return true;
}

bool present(const void* p, const char* fn) {
  if (p) return true;
  remember(errc::bad_argument, fmt::format("{}: the checkpoint (or path) is null", fn));
  return false;
}

}  // namespace

gpmcp* gpmcp_create(const char* path, std::size_t size, std::size_t elements, std::size_t groups) {
  std::uint32_t e = 0, g = 0;
  if (!present(path, "gpmcp_create") || !narrow(elements, "elements", e) || !narrow(groups, "groups", g))
    return nullptr;
  gpmcp* out = nullptr;
  guarded([&] { out = new gpmcp{gpmx::pm::checkpoint::create(path, size, e, g)}; });
  return out;
}

gpmcp* gpmcp_open(const char* path) {
  if (!present(path, "gpmcp_open")) return nullptr;
  gpmcp* out = nullptr;
  guarded([&] { out = new gpmcp{gpmx::pm::checkpoint::open(path)}; });
  return out;
}

void gpmcp_close(gpmcp* cp) { delete cp; }

int gpmcp_register(gpmcp* cp, void* addr, std::size_t size, std::size_t group) {
  std::uint32_t g = 0;
  if (!present(cp, "gpmcp_register") || !narrow(group, "group", g)) return -1;
  return guarded([&] { cp->cp.register_buffer(g, addr, size); }) ? 0 : -1;
}

int gpmcp_checkpoint(gpmcp* cp, std::size_t group) {
  std::uint32_t g = 0;
  if (!present(cp, "gpmcp_checkpoint") || !narrow(group, "group", g)) return -1;
  return guarded([&] { cp->cp.save(g, here()); }) ? 0 : -1;
}

int gpmcp_restore(gpmcp* cp, std::size_t group) {
  std::uint32_t g = 0;
  if (!present(cp, "gpmcp_restore") || !narrow(group, "group", g)) return -1;
  return guarded([&] { cp->cp.restore(g, here()); }) ? 0 : -1;
}

const char* gpmcp_last_error() { return last_error.c_str(); }
errc gpmcp_last_errc() { return last_code; }
