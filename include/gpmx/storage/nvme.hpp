#pragma once
// NVMe submission and completion entries as the specification lays them out
// (64-byte commands, 16-byte completions), and the three commands gpmx's
// storage layer issues: READ, WRITE and FLUSH. Kernel threads build them in
// GPU (or, on the cpu executor, host) memory; the emulated controller
// (controller.hpp) fetches and executes them.
//
// One departure from real hardware: PRP1 holds the buffer's virtual address
// in this process, not a physical one, because the controller is software
// in the same process (docs/bam.md). The buffer is one contiguous cache line.
#include <cstdint>

#include "gpmx/exec/portability.hpp"

namespace gpmx::storage {

enum class nvme_opcode : std::uint8_t { flush = 0x00, write = 0x01, read = 0x02 };

// Status codes (generic command status, status code type 0) that gpmx's
// controller reports. 0 is success.
enum class nvme_status : std::uint16_t {
  success = 0x00,
  invalid_opcode = 0x01,
  invalid_field = 0x02,
  data_transfer_error = 0x04,
  internal_error = 0x06,
  lba_out_of_range = 0x80,
};

struct nvme_command {
  std::uint8_t opcode = 0;
  std::uint8_t flags = 0;
  std::uint16_t cid = 0;  // command identifier, unique among a queue's commands in flight
  std::uint32_t nsid = 1;
  std::uint64_t reserved = 0;
  std::uint64_t metadata = 0;
  std::uint64_t prp1 = 0;  // the buffer (see above)
  std::uint64_t prp2 = 0;
  std::uint32_t cdw10 = 0;  // starting LBA, low half
  std::uint32_t cdw11 = 0;  // starting LBA, high half
  std::uint32_t cdw12 = 0;  // number of logical blocks minus one (bits 15:0)
  std::uint32_t cdw13 = 0;
  std::uint32_t cdw14 = 0;
  std::uint32_t cdw15 = 0;

  GPMX_HD std::uint64_t slba() const { return std::uint64_t(cdw11) << 32 | cdw10; }
  GPMX_HD std::uint32_t blocks() const { return (cdw12 & 0xffffu) + 1; }
};
static_assert(sizeof(nvme_command) == 64, "an NVMe submission queue entry is 64 bytes");

struct nvme_completion {
  std::uint32_t dw0 = 0;
  std::uint32_t dw1 = 0;
  std::uint16_t sqhd = 0;  // the submission queue's head as the controller saw it when posting
  std::uint16_t sqid = 0;
  std::uint16_t cid = 0;
  std::uint16_t status = 0;  // bit 0: phase tag; bits 15:1: status field

  GPMX_HD bool phase() const { return (status & 1u) != 0; }
  GPMX_HD std::uint16_t status_code() const { return std::uint16_t(status >> 1); }
};
static_assert(sizeof(nvme_completion) == 16, "an NVMe completion queue entry is 16 bytes");

// Builds a READ or WRITE of `blocks` logical blocks (1 to 65536) at `slba`.
GPMX_HD inline nvme_command make_io_command(nvme_opcode op, std::uint64_t slba, std::uint32_t blocks,
                                            const void* buffer) {
  nvme_command c;
  c.opcode = std::uint8_t(op);
  c.prp1 = std::uint64_t(reinterpret_cast<std::uintptr_t>(buffer));
  c.cdw10 = std::uint32_t(slba);
  c.cdw11 = std::uint32_t(slba >> 32);
  c.cdw12 = (blocks - 1) & 0xffffu;
  return c;
}

GPMX_HD inline nvme_command make_flush_command() {
  nvme_command c;
  c.opcode = std::uint8_t(nvme_opcode::flush);
  return c;
}

const char* status_name(std::uint16_t status_code);

}  // namespace gpmx::storage
