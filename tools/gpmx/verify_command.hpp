#pragma once
// gpmx check --trace ... --verify CMD: the outside command as the checker's
// image target, and the same command with its reads tracked.
#include <cstdint>
#include <string>

#include "gpmx/check/image_jobs.hpp"

namespace gpmx::cli {

// The command runs through the shell with GPMX_IMAGE_DIR naming the
// image's directory; exit status 0 means recovered and consistent. Its
// stderr goes to a file beside the image's directory; the verdict of a
// failing image quotes the last few lines.
check::image_target command_target(const std::string& cmd);

// The same, with libgpmx_read_preload.so preloaded, so that what every
// process of the command reads of the image's files comes back with the
// verdict. Empty when the library is not found (a sanitizer build, another
// architecture).
check::image_target command_traced_target(const std::string& cmd, std::uint32_t granularity);

}  // namespace gpmx::cli
