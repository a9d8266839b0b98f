#pragma once
// Truncation while kernels run (host code): an agent beside a launch whose
// log streams are rings (log_geometry::wraps). Each step it reads the
// records each writer has published as durable (tx_log::durable_end), applies
// the unbroken run after applied_upto to the home image, makes the home
// lines durable, then applied_upto, then moves each ring's durable start
// past its applied records, and only then lets the writers reuse those
// slots (tx_log::reclaimed). So the paper's invariants hold while kernels
// run: a record reaches the home image only when every smaller one is
// durable, and a log entry is given up only after the home image and
// applied_upto that cover it are durable. A crash anywhere leaves what
// tx_heap::checkpoint (recovery) repairs.
//
// The slots a step reclaims are given back at the start of the next step,
// not at the end of the step that persisted the new starts: in the timed
// mode a step's persists complete later in virtual time than the step, and
// the schedule steps the agent again only once they have (elsewhere the
// next step follows at once).
//
// Room and progress: a committer's ring holds its own records in sequence
// order, so the smallest unapplied record is never stuck behind a full
// ring. A helper warp's ring receives records in the order of the block's
// persistence buffer, where a record may come after records with larger
// sequence numbers; those all lie within one buffer's capacity of it, so a
// block ring of at least the buffer's capacity plus one drain (32 entries)
// always has room for it (tx_shape checks that).
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpmx/exec/agent.hpp"
#include "gpmx/stm/log_layout.hpp"
#include "gpmx/stm/log_scan.hpp"
#include "gpmx/stm/tx_heap.hpp"

namespace gpmx::stm {

class log_truncator final : public agent {
 public:
  // log: the launch's view, with reclaimed and durable_end (all zero at the
  // start of an epoch), which must stay valid while the agent is attached.
  // truncate_first is a seeded bug (`--bug truncate-before-home`): each
  // step moves applied_upto and the starts on, and gives the slots back,
  // before the home lines it wrote are durable.
  log_truncator(tx_heap& heap, const tx_log& log, bool truncate_first = false);
  step_result step() override;
  std::string_view name() const override { return "tx-log-truncator"; }

  std::uint64_t applied() const { return applied_; }        // records applied while the launch ran
  std::uint64_t truncations() const { return truncations_; }  // steps that gave entries back

 private:
  // A record read but not applied. The slots form a window over sequence
  // numbers from the first unapplied one (slot seq % size), grown when a
  // number lands past it; a slot's writes keep their capacity when it is
  // emptied, so a steady run allocates nothing per record.
  struct pending_record {
    bool present = false;
    std::uint32_t seq = 0;
    std::uint32_t stream = 0;
    std::vector<word_write> writes;
  };
  // seq's slot, growing the window when seq lies past it; applied: applied_upto.
  pending_record& pending_slot(std::uint32_t seq, std::uint64_t applied);
  struct placed {
    std::uint32_t seq;
    std::uint64_t end;  // the position after the record in its stream
  };
  bool read_published();
  bool apply_run();
  bool reclaim();
  bool give_back();  // publishes the last step's reclaimed starts

  tx_heap& heap_;
  tx_log log_;
  bool truncate_first_;
  std::string where_;  // the log, as errors name it
  std::vector<std::uint64_t> cursor_;              // per stream: read up to
  std::vector<std::deque<placed>> unreclaimed_;    // per stream, in stream order
  std::vector<pending_record> pending_;             // the window; its size a power of two
  std::uint64_t pending_count_ = 0;
  std::vector<std::uint32_t> touched_;             // home words written by the last apply
  std::vector<std::uint32_t> applied_streams_;     // streams whose records the last apply took
  log_scan got_;                                    // reading buffers, reused
  std::vector<std::uint64_t> ends_;
  std::vector<std::uint32_t> moved_;               // streams whose start moved
  std::vector<std::uint64_t> moved_to_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> to_give_back_;  // (stream, start)
  std::uint64_t applied_ = 0, truncations_ = 0;
};

}  // namespace gpmx::stm
