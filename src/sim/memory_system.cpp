#include "gpmx/sim/memory_system.hpp"

#include <algorithm>
#include <bit>
#include <functional>

#include <fmt/format.h>

#include "gpmx/sim/shared_memory.hpp"

namespace gpmx::sim {

namespace {

constexpr unsigned space_global = 0, space_pm = 1;

double per_cycle_rate(std::uint32_t bytes_per_cycle, std::uint32_t mhz) {
  return double(bytes_per_cycle) * double(mhz) * 1e6;
}

}  // namespace

memory_system::memory_system(const sim_config& c) : cfg_(c) {
  validate(cfg_);
  const std::uint32_t mhz = cfg_.clock.core_mhz;
  cycle_ = cycles(1);
  l1_latency_ = cycles(cfg_.l1.latency);
  icnt_latency_ = cycles(cfg_.icnt.latency);
  host_latency_ = ns_to_picos(cfg_.host.llc_latency_ns);
  line_shift_ = unsigned(std::countr_zero(cfg_.l1.line));
  partitions_per_channel_ = cfg_.l2.partitions / cfg_.gddr.channels;

  const picos bucket = std::max<picos>(1, ns_to_picos(cfg_.stats.bucket_ns));
  stats_.icnt_bw = time_series(bucket);
  stats_.gddr_bw = time_series(bucket);
  stats_.nvm_bw = time_series(bucket);
  stats_.pcie_to_gpu_bw = time_series(bucket);
  stats_.pcie_to_host_bw = time_series(bucket);

  sms_.reserve(cfg_.sm.count);
  for (std::uint32_t i = 0; i < cfg_.sm.count; ++i) {
    sms_.push_back(sm_state{sectored_cache(cfg_.l1.size, cfg_.l1.line, cfg_.l1.sector,
                                           effective_ways(cfg_.l1.size, cfg_.l1.line, cfg_.l1.ways)), 0, 0,
                            bandwidth_server(per_cycle_rate(cfg_.icnt.port_bytes_per_cycle, mhz), icnt_latency_),
                            {}});
    sms_.back().port.attach(&stats_.icnt_bw);
    sms_.back().mshr_heap.reserve(cfg_.l1.mshrs + 1);
  }
  const std::uint64_t part_size = cfg_.l2.size / cfg_.l2.partitions;
  parts_.reserve(cfg_.l2.partitions);
  for (std::uint32_t i = 0; i < cfg_.l2.partitions; ++i)
    parts_.push_back(partition_state{sectored_cache(part_size, cfg_.l2.line, cfg_.l2.sector,
                                                    effective_ways(part_size, cfg_.l2.line, cfg_.l2.ways)),
                                     bandwidth_server(per_cycle_rate(cfg_.l2.bank_bytes_per_cycle, mhz),
                                                      cycles(cfg_.l2.latency))});
  for (std::uint32_t i = 0; i < cfg_.gddr.channels; ++i) {
    gddr_.emplace_back(cfg_.gddr.bandwidth_gbs * 1e9 / cfg_.gddr.channels, ns_to_picos(cfg_.gddr.latency_ns));
    gddr_.back().attach(&stats_.gddr_bw);
  }
  nvm_ = bandwidth_server(cfg_.nvm.read_gbs * 1e9, ns_to_picos(cfg_.nvm.latency_ns));
  nvm_.attach(&stats_.nvm_bw);
  nvm_write_ticks_ = bandwidth_server::ticks_per_byte(cfg_.nvm.write_gbs * 1e9);
  pcie_to_host_ = bandwidth_server(cfg_.pcie.bandwidth_gbs * 1e9, ns_to_picos(cfg_.pcie.latency_ns));
  pcie_to_host_.attach(&stats_.pcie_to_host_bw);
  pcie_to_gpu_ = bandwidth_server(cfg_.pcie.bandwidth_gbs * 1e9, ns_to_picos(cfg_.pcie.latency_ns));
  pcie_to_gpu_.attach(&stats_.pcie_to_gpu_bw);
  // The acknowledgement comes back from where the write became durable:
  // across PCIe from the host when that is where (PM-far, unless durable
  // at the GPU's partition already).
  const bool from_host = cfg_.pm.location == pm_location::far && cfg_.persist.domain != durable_point::partition;
  ack_return_ = icnt_latency_ + (from_host ? ns_to_picos(cfg_.pcie.latency_ns) : 0);
}

// Lines rotate through the partitions: each run of `partitions` consecutive
// lines covers every partition once (a stream spreads evenly over the
// banks and channels), and each run starts at a hashed offset so that
// strides of a multiple of the partition count do not pile onto one.
std::uint32_t memory_system::partition_of(std::uint64_t line_addr) const {
  const std::uint64_t idx = line_addr >> line_shift_, n = cfg_.l2.partitions;
  return std::uint32_t((idx + mix64(idx / n)) % n);
}

std::uint32_t memory_system::channel_of(std::uint64_t line_addr) const {
  return partition_of(line_addr) / partitions_per_channel_;
}

std::uint32_t memory_system::bytes_of(std::uint32_t mask) const {
  return std::uint32_t(std::popcount(mask)) * cfg_.l1.sector;
}

void memory_system::reset_stats() {
  auto keep = [](time_series& ts) { ts.clear(); };
  memory_stats fresh;
  fresh.icnt_bw = std::move(stats_.icnt_bw);
  fresh.gddr_bw = std::move(stats_.gddr_bw);
  fresh.nvm_bw = std::move(stats_.nvm_bw);
  fresh.pcie_to_gpu_bw = std::move(stats_.pcie_to_gpu_bw);
  fresh.pcie_to_host_bw = std::move(stats_.pcie_to_host_bw);
  keep(fresh.icnt_bw);
  keep(fresh.gddr_bw);
  keep(fresh.nvm_bw);
  keep(fresh.pcie_to_gpu_bw);
  keep(fresh.pcie_to_host_bw);
  stats_ = std::move(fresh);  // the same object: the servers' series pointers stay valid
  for (auto& s : sms_) s.port.reset_counts();
  for (auto& p : parts_) p.bank.reset_counts();
  for (auto& g : gddr_) g.reset_counts();
  nvm_.reset_counts();
  pcie_to_host_.reset_counts();
  pcie_to_gpu_.reset_counts();
}

// ---- shared memory ----

request_timing memory_system::access_shared(const warp_request& r, picos issue) {
  sm_state& s = sms_[r.sm];
  const std::uint32_t degree = bank_conflict_degree(r.active, r.lanes.data(), cfg_.shared.banks,
                                                    cfg_.shared.bank_bytes, r.atomic && r.read_modify_write);
  const std::uint32_t passes = std::max<std::uint32_t>(degree, 1);
  const picos start = std::max(issue, s.shared_next_free);
  s.shared_next_free = start + cycles(passes);
  ++stats_.shared_accesses;
  stats_.shared_conflict_cycles += passes - 1;
  return request_timing{start + cycles(shared_access_cycles(cfg_.shared.latency, degree)), 0, 0};
}

// ---- the SM side ----

picos memory_system::l1_pipeline(sm_state& s, picos t) {
  const picos start = std::max(t, s.l1_next_free);
  s.l1_next_free = start + cycle_;
  return start + l1_latency_;
}

picos memory_system::mshr_acquire(sm_state& s, picos t) {
  auto& h = s.mshr_heap;
  const auto later = std::greater<picos>{};
  while (!h.empty() && h.front() <= t) {
    std::pop_heap(h.begin(), h.end(), later);
    h.pop_back();
  }
  if (h.size() >= cfg_.l1.mshrs) {
    // All busy: wait for the earliest to free.
    const picos free_at = h.front();
    std::pop_heap(h.begin(), h.end(), later);
    h.pop_back();
    stats_.mshr_wait += free_at - t;
    ++stats_.mshr_waits;
    t = free_at;
  }
  return t;
}

void memory_system::mshr_release_at(sm_state& s, picos done) {
  s.mshr_heap.push_back(done);
  std::push_heap(s.mshr_heap.begin(), s.mshr_heap.end(), std::greater<picos>{});
}

// ---- devices ----

picos memory_system::device_read(unsigned space, std::uint32_t partition, std::uint32_t bytes, picos t) {
  if (space == space_global) {
    stats_.gddr_read_bytes += bytes;
    return gddr_[partition / partitions_per_channel_].serve(t, bytes);
  }
  stats_.nvm_read_bytes += bytes;
  if (cfg_.pm.location == pm_location::near) return nvm_.serve(t, bytes);
  // Far: the read request crosses PCIe to the host (its size is not
  // charged, but it queues behind writes), the NVM reads, the data crosses
  // back.
  const picos at_host = pcie_to_host_.serve(t, 0);
  const picos read = nvm_.serve(at_host, bytes);
  stats_.pcie_to_gpu_bytes += bytes;
  return pcie_to_gpu_.serve(read, bytes);
}

picos memory_system::device_write(unsigned space, std::uint32_t partition, std::uint32_t bytes, picos t) {
  if (space == space_global) {
    stats_.gddr_write_bytes += bytes;
    auto& ch = gddr_[partition / partitions_per_channel_];
    ch.serve(t, bytes);
    return ch.last_wait();
  }
  stats_.nvm_write_bytes += bytes;
  picos wait = 0;
  if (cfg_.pm.location == pm_location::far) {
    stats_.pcie_to_host_bytes += bytes;
    t = pcie_to_host_.serve(t, bytes);
    wait += pcie_to_host_.last_wait();
  }
  nvm_.serve_at(t, bytes, nvm_write_ticks_);
  return wait + nvm_.last_wait();
}

picos memory_system::host_pm_write(std::uint64_t bytes, picos t) {
  if (bytes == 0) return t;
  stats_.nvm_write_bytes += bytes;
  stats_.host_pm_write_bytes += bytes;
  const bool far = cfg_.pm.location == pm_location::far;
  picos durable = t;
  // Line by line, as the host's write-backs reach the NVM's queue.
  for (std::uint64_t done = 0; done < bytes; done += cfg_.l1.line) {
    const auto piece = std::uint32_t(std::min<std::uint64_t>(cfg_.l1.line, bytes - done));
    picos at_device = t + host_latency_;
    if (!far) {
      stats_.pcie_to_gpu_bytes += piece;
      at_device = pcie_to_gpu_.serve(t, piece) + host_latency_;
    }
    const picos written = nvm_.serve_at(at_device, piece, nvm_write_ticks_);
    durable = std::max(durable, cfg_.persist.domain == durable_point::queue ? nvm_.last_start() : written);
  }
  return far && cfg_.persist.eadr ? t : durable;
}

picos memory_system::pm_write(std::uint32_t bytes, picos t, picos& wait) {
  stats_.nvm_write_bytes += bytes;
  ++stats_.pm_line_writes;
  const bool far = cfg_.pm.location == pm_location::far;
  picos at_device = t;
  wait = 0;
  if (far) {
    // Across PCIe, then through the host's uncore to its memory controller.
    stats_.pcie_to_host_bytes += bytes;
    at_device = pcie_to_host_.serve(t, bytes) + host_latency_;
    wait = pcie_to_host_.last_wait();
  }
  const picos written = nvm_.serve_at(at_device, bytes, nvm_write_ticks_);
  wait += nvm_.last_wait();
  // eADR: the host's caches are in the persistence domain; the NVM write
  // still takes its bandwidth, off the critical path.
  if (cfg_.persist.domain == durable_point::partition) return t;
  if (far && cfg_.persist.eadr) return at_device;
  return cfg_.persist.domain == durable_point::queue ? nvm_.last_start() : written;
}

// ---- the L2 ----

picos memory_system::l2_allocate(partition_state& p, std::uint32_t partition, std::uint64_t line, std::uint32_t mask,
                                 unsigned space, bool dirty, picos t, picos ready) {
  evicted_line victim;
  const bool was_present = p.l2.find(line) != nullptr;
  cache_line& l = dirty ? p.l2.store(line, mask, std::uint8_t(space), victim)
                        : p.l2.fill(line, mask, std::uint8_t(space), victim);
  l.ready = was_present ? std::max(l.ready, ready) : ready;
  if (!victim.valid || !victim.dirty_mask) return 0;
  ++stats_.l2_writebacks;
  return device_write(victim.tag, partition, bytes_of(victim.dirty_mask), t);
}

// Looks the sectors `mask` of a line up in `cache` as of `at`, counts the
// sector hits and misses and, when nothing is missing, the hit (or the
// pending hit, merged with a fill still on its way). Returns the missing
// sectors; `ready` is when the present ones are there (at least `at`).
static std::uint32_t counted_lookup(sectored_cache& cache, std::uint64_t line, std::uint32_t mask,
                                    cache_counters& c, picos at, picos& ready) {
  const cache_line* l = cache.find(line);
  const std::uint32_t hit = cache.lookup(line, mask);
  const std::uint32_t miss = mask & ~hit;
  c.sector_hits += unsigned(std::popcount(hit));
  c.sector_misses += unsigned(std::popcount(miss));
  ready = hit ? std::max(at, l->ready) : at;
  if (!miss) {
    if (l->ready > at) ++c.pending_hits;
    else ++c.hits;
  }
  return miss;
}

picos memory_system::read_from_l2(sm_state& s, std::uint64_t line, std::uint32_t mask, unsigned space, op_class op,
                                  picos t) {
  const std::uint32_t bytes = bytes_of(mask);
  const picos at_l2 = s.port.serve(t, bytes);  // the response's bytes, reserved as the request leaves
  const std::uint32_t pi = partition_of(line);
  partition_state& p = parts_[pi];
  const picos looked_up = p.bank.serve(at_l2, bytes);
  stats_.l2_to_l1_bytes += bytes;
  cache_counters& c = stats_.l2[space][unsigned(op)];
  picos data = looked_up;
  const std::uint32_t miss = counted_lookup(p.l2, line, mask, c, looked_up, data);
  if (!miss) return data + icnt_latency_;
  ++c.misses;
  const picos fetched = device_read(space, pi, bytes_of(miss), looked_up);
  data = std::max(data, fetched);
  l2_allocate(p, pi, line, miss, space, false, looked_up, fetched);  // a load does not wait for the write-back
  return data + icnt_latency_;
}

memory_system::write_result memory_system::write_to_l2(sm_state& s, std::uint64_t line, std::uint32_t mask,
                                                       unsigned space, op_class op, picos t) {
  const std::uint32_t bytes = bytes_of(mask);
  write_result w;
  const picos at_l2 = s.port.serve(t, bytes);
  w.queued += s.port.last_wait();
  const std::uint32_t pi = partition_of(line);
  partition_state& p = parts_[pi];
  const picos written = p.bank.serve(at_l2, bytes);
  w.queued += p.bank.last_wait();
  stats_.l1_to_l2_bytes += bytes;
  cache_counters& c = stats_.l2[space][unsigned(op)];
  const std::uint32_t present = p.l2.lookup(line, mask);
  if (p.l2.find(line)) ++c.hits;
  else ++c.misses;
  c.sector_hits += unsigned(std::popcount(present));
  c.sector_misses += unsigned(std::popcount(mask & ~present));
  // Write-validate: the stored sectors need no fetch. PM writes through.
  const bool pm = space == space_pm;
  w.victim_wait = l2_allocate(p, pi, line, mask, space, !pm, written, written);
  w.ack = written + icnt_latency_;
  if (pm) {
    // The L2 passes the write on; the writer meets the queueing on the way
    // to the persistence domain, as it would a dirty L2 victim's.
    picos wait = 0;
    const picos durable = pm_write(bytes, written, wait);
    if (listener_) listener_->pm_written(std::uint32_t(&s - sms_.data()), line, mask, durable, false);
    w.durable_ack = durable + ack_return_;
    w.victim_wait += wait;
    s.pm_durable = std::max(s.pm_durable, w.durable_ack);
  }
  return w;
}

memory_system::write_result memory_system::write_victim(sm_state& s, const evicted_line& victim, picos t,
                                                        picos& held) {
  ++stats_.l1_writebacks;
  const auto sm = std::uint32_t(&s - sms_.data());
  const bool guarded = guard_ && victim.tag == space_pm;
  const picos start = guarded ? std::max(t, guard_->evicting(sm, victim.line_addr, t)) : t;
  held = start - t;
  const write_result w = write_to_l2(s, victim.line_addr, victim.dirty_mask, victim.tag, op_class::store, start);
  if (guarded) guard_->evicted(sm, victim.line_addr, start, w.durable_ack);
  return w;
}

// ---- line requests ----

picos memory_system::load_line(sm_state& s, const line_request& lr, unsigned space, picos t) {
  const picos t1 = l1_pipeline(s, t);
  cache_counters& c = stats_.l1[space][unsigned(op_class::load)];
  const bool was_present = s.l1.find(lr.line_addr) != nullptr;
  picos done = t1;
  const std::uint32_t miss = counted_lookup(s.l1, lr.line_addr, lr.sector_mask, c, t1, done);
  if (!miss) return done;  // a hit, or merged with the miss in flight
  ++c.misses;
  const picos start = mshr_acquire(s, t1);
  const picos back = read_from_l2(s, lr.line_addr, miss, space, op_class::load, start);
  mshr_release_at(s, back);
  done = std::max(done, back);
  evicted_line victim;
  cache_line& filled = s.l1.fill(lr.line_addr, miss, std::uint8_t(space), victim);
  filled.ready = was_present ? std::max(filled.ready, back) : back;
  if (victim.valid && victim.dirty_mask) {
    picos held = 0;
    write_victim(s, victim, t1, held);  // posted, unless the persistency hardware holds it
    done += held;
  }
  return done;
}

picos memory_system::store_line(sm_state& s, const line_request& lr, unsigned space, picos t) {
  const picos t1 = l1_pipeline(s, t);
  cache_counters& c = stats_.l1[space][unsigned(op_class::store)];
  const bool present = s.l1.find(lr.line_addr) != nullptr;
  const std::uint32_t had = s.l1.lookup(lr.line_addr, lr.sector_mask);
  if (present) ++c.hits;
  else ++c.misses;
  c.sector_hits += unsigned(std::popcount(had));
  c.sector_misses += unsigned(std::popcount(lr.sector_mask & ~had));

  const bool write_back = cfg_.l1.write == write_policy::back;
  const bool keep = present || cfg_.l1.allocate_on_store;
  picos done = t1;
  if (keep) {
    evicted_line victim;
    cache_line& l = write_back ? s.l1.store(lr.line_addr, lr.sector_mask, std::uint8_t(space), victim)
                               : s.l1.fill(lr.line_addr, lr.sector_mask, std::uint8_t(space), victim);
    if (!present) l.ready = t1;
    if (victim.valid && victim.dirty_mask) {
      // The writer is held for the queueing its write-back meets: sustained
      // stores run at the slowest resource on the way.
      picos held = 0;
      const write_result w = write_victim(s, victim, t1, held);
      done += held + w.queued + w.victim_wait;
    }
  }
  if (!write_back || !keep) {
    // Write-through, or a write-back miss without allocation: the L2
    // acknowledges.
    const write_result w = write_to_l2(s, lr.line_addr, lr.sector_mask, space, op_class::store, t1);
    done = std::max(done, w.ack + w.victim_wait);
  }
  return done;
}

picos memory_system::atomic_line(sm_state& s, const line_request& lr, unsigned space, bool at_host,
                                 std::uint32_t passes, picos t) {
  // Atomics pass the L1 stage without using it.
  const picos t1 = l1_pipeline(s, t);
  const std::uint32_t bytes = bytes_of(lr.sector_mask);
  const picos at_l2 = s.port.serve(t1, bytes);
  stats_.l1_to_l2_bytes += bytes;
  stats_.l2_to_l1_bytes += bytes;
  if (at_host) {
    // System scope on host memory: across PCIe, executed at the host, back.
    ++stats_.host_atomics;
    stats_.pcie_to_host_bytes += bytes;
    stats_.pcie_to_gpu_bytes += bytes;
    const picos at_host_done = pcie_to_host_.serve(at_l2, bytes) + host_latency_;
    if (listener_ && space == space_pm)
      listener_->pm_written(std::uint32_t(&s - sms_.data()), lr.line_addr, lr.sector_mask, at_host_done, true);
    return pcie_to_gpu_.serve(at_host_done, bytes) + icnt_latency_;
  }
  const std::uint32_t pi = partition_of(lr.line_addr);
  partition_state& p = parts_[pi];
  // The bank is held for the transfer and each pass of the atomic unit, so
  // atomics to one line (and to one bank) are serialized.
  const picos executed = p.bank.occupy(at_l2, bytes, p.bank.transfer_picos(bytes) + cycles(std::uint64_t(passes) * cfg_.l2.atomic_cycles));
  cache_counters& c = stats_.l2[space][unsigned(op_class::atomic)];
  picos data = executed;
  const std::uint32_t miss = counted_lookup(p.l2, lr.line_addr, lr.sector_mask, c, executed, data);
  if (miss) {
    ++c.misses;
    data = std::max(data, device_read(space, pi, bytes_of(miss), executed));
  }
  // The result is stored: the sectors are dirty in the L2, or for PM
  // written through to the persistence domain.
  const bool pm = space == space_pm;
  const picos wait = l2_allocate(p, pi, lr.line_addr, lr.sector_mask, space, !pm, executed, data);
  picos pm_wait = 0;
  if (pm) {
    const picos durable = pm_write(bytes, data, pm_wait);
    if (listener_) listener_->pm_written(std::uint32_t(&s - sms_.data()), lr.line_addr, lr.sector_mask, durable, true);
    s.pm_durable = std::max(s.pm_durable, durable + ack_return_);
  }
  return data + wait + pm_wait + icnt_latency_;
}

// ---- the warp instruction ----

request_timing memory_system::access(const warp_request& r, picos issue) {
  if (r.sm >= sms_.size())
    throw gpmx::error(error_code::usage, fmt::format("memory_system::access: SM {} of {}", r.sm, sms_.size()));
  ++stats_.warp_requests;
  if (r.space == gpmx::mem_space::shared) return access_shared(r, issue);
  sm_state& s = sms_[r.sm];
  const unsigned space = r.space == gpmx::mem_space::pm ? space_pm : space_global;
  const unsigned n = coalesce(r.active, r.lanes.data(), cfg_.l1.line, cfg_.l1.sector, lines_.data());
  request_timing out{issue, 0, n};
  stats_.line_requests += n;

  if (r.atomic) {
    // Passes per line: the most lanes that hit one address of it (one for
    // an atomic load or store).
    std::array<std::uint8_t, max_line_requests> passes{};
    const std::uint64_t line_mask = ~std::uint64_t(cfg_.l1.line - 1);
    for (std::uint32_t m = r.active; m != 0; m &= m - 1) {
      const unsigned lane = unsigned(std::countr_zero(m));
      const lane_access& a = r.lanes[lane];
      if (a.bytes == 0) continue;
      std::uint8_t same = 1;
      for (std::uint32_t e = r.read_modify_write ? r.active & ((1u << lane) - 1) : 0; e != 0; e &= e - 1) {
        const lane_access& b = r.lanes[std::countr_zero(e)];
        same += b.bytes != 0 && b.addr == a.addr;
      }
      for (unsigned i = 0; i < n; ++i)
        if (lines_[i].line_addr == (a.addr & line_mask)) {
          passes[i] = std::max(passes[i], same);
          break;
        }
    }
    const bool at_host =
        r.atomic_scope == gpmx::scope::system && space == space_pm && cfg_.pm.location == pm_location::far;
    for (unsigned i = 0; i < n; ++i) {
      out.sectors += unsigned(std::popcount(lines_[i].sector_mask));
      out.done = std::max(out.done, atomic_line(s, lines_[i], space, at_host, std::max<std::uint32_t>(passes[i], 1),
                                                issue));
    }
  } else if (r.kind == gpmx::access_kind::load) {
    for (unsigned i = 0; i < n; ++i) {
      out.sectors += unsigned(std::popcount(lines_[i].sector_mask));
      out.done = std::max(out.done, load_line(s, lines_[i], space, issue));
    }
  } else {
    for (unsigned i = 0; i < n; ++i) {
      out.sectors += unsigned(std::popcount(lines_[i].sector_mask));
      out.done = std::max(out.done, store_line(s, lines_[i], space, issue));
    }
  }
  stats_.sectors_requested += out.sectors;
  return out;
}

// ---- flushes ----

picos memory_system::flush_l1(std::uint32_t sm, picos now, flush_scope which) {
  sm_state& s = sms_.at(sm);
  picos last = now;
  auto chosen = [which](const cache_line& l) {
    return which == flush_scope::all || (which == flush_scope::pm) == (l.tag == space_pm);
  };
  s.l1.flush_dirty_if(chosen, [&](const evicted_line& e) {
    ++stats_.l1_writebacks;
    const write_result w = write_to_l2(s, e.line_addr, e.dirty_mask, e.tag, op_class::store, now);
    last = std::max(last, e.tag == space_pm ? w.durable_ack : w.ack + w.victim_wait);
  });
  return last;
}

picos memory_system::write_back_line(std::uint32_t sm, std::uint64_t line, std::uint32_t sectors, picos now) {
  sm_state& s = sms_.at(sm);
  cache_line* l = s.l1.find(line);
  std::uint8_t tag = space_pm;
  if (l) {
    if (sectors == 0) sectors = l->dirty;
    tag = l->tag;
    l->dirty &= ~sectors;
  }
  if (sectors == 0) return now;
  ++stats_.l1_writebacks;
  const write_result w = write_to_l2(s, line, sectors, tag, op_class::store, now);
  return tag == space_pm ? w.durable_ack : w.ack + w.victim_wait;
}

picos memory_system::drain(picos now) {
  picos last = now;
  for (std::uint32_t i = 0; i < sms_.size(); ++i) last = std::max(last, flush_l1(i, now));
  return last;
}

std::size_t memory_system::invalidate_l1(std::uint32_t sm) {
  const std::size_t n = sms_.at(sm).l1.invalidate_all();
  stats_.l1_invalidations += n;
  return n;
}

std::size_t memory_system::invalidate_l1_pm(std::uint32_t sm) {
  const std::size_t n =
      sms_.at(sm).l1.invalidate_if([](const cache_line& l) { return l.tag == space_pm && l.dirty == 0; });
  stats_.l1_invalidations += n;
  return n;
}

}  // namespace gpmx::sim
