#include "gpmx/storage/storage_error.hpp"

#include <fmt/format.h>

#include "gpmx/storage/nvme.hpp"

namespace gpmx::storage {

const char* status_name(std::uint16_t status_code) {
  switch (nvme_status(status_code)) {
    case nvme_status::success: return "success";
    case nvme_status::invalid_opcode: return "invalid command opcode";
    case nvme_status::invalid_field: return "invalid field in command";
    case nvme_status::data_transfer_error: return "data transfer error";
    case nvme_status::internal_error: return "internal error";
    case nvme_status::lba_out_of_range: return "LBA out of range";
  }
  return "unknown status";
}

namespace {
const char* opcode_name(std::uint8_t op) {
  switch (nvme_opcode(op)) {
    case nvme_opcode::read: return "READ";
    case nvme_opcode::write: return "WRITE";
    case nvme_opcode::flush: return "FLUSH";
  }
  return "unknown command";
}
}  // namespace

std::string describe_command_failure(const char* device, std::uint8_t opcode, std::uint64_t slba,
                                     std::uint32_t blocks, std::uint16_t status_code) {
  return fmt::format("storage device '{}': {} of {} block(s) at block {} failed with status {:#04x} ({})", device,
                     opcode_name(opcode), blocks, slba, status_code, status_name(status_code));
}

void throw_command_failed(const char* device, std::uint8_t opcode, std::uint64_t slba, std::uint32_t blocks,
                          std::uint16_t status_code) {
  throw storage_error(error_code::io, describe_command_failure(device, opcode, slba, blocks, status_code));
}

}  // namespace gpmx::storage
