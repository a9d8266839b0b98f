#pragma once
// What the storage layer throws: an I/O command that failed (naming the
// device, the command, the block address and the NVMe status), a cache or
// queue set up wrongly, a device that cannot be opened.
#include <cstdint>
#include <string>

#include "gpmx/exec/portability.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::storage {

class storage_error : public gpmx::error {
 public:
  using gpmx::error::error;
};

// Thrown in the kernel thread that saw a command fail, so the launch fails
// with this message; no data of a failed read is ever handed to a kernel.
[[noreturn]] void throw_command_failed(const char* device, std::uint8_t opcode, std::uint64_t slba,
                                       std::uint32_t blocks, std::uint16_t status_code);
// That error's message.
std::string describe_command_failure(const char* device, std::uint8_t opcode, std::uint64_t slba,
                                     std::uint32_t blocks, std::uint16_t status_code);

}  // namespace gpmx::storage
