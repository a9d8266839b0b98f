#pragma once
// The explanation rules of explain_image, one function each, and what they
// share (explain.cpp runs them in order; see explain.hpp).
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "gpmx/check/explain.hpp"

namespace gpmx::check::rules {

// Appending piece by piece: GCC 12 warns (-Wrestrict) on some chains of operator+.
std::string concat(std::initializer_list<std::string_view> parts);
// "block 1 warp 0 lane 3" (of the launch), "the host", or "agent 'name'
// beside launch 2".
std::string thread_name(const trace::trace& t, const trace::event& e);

// A multi-granule store the image kept part of: it tore.
void torn_stores(const trace::trace& t, const persist_order& order, const store_set& image, std::uint64_t position,
                 std::size_t most, std::vector<missing_order>& out);
// A host store never persisted before a launch whose stores persisted.
void unpersisted_host_stores(const trace::trace& t, const persist_order& order, const store_set& image,
                             std::uint64_t position, std::size_t most, std::vector<missing_order>& out);
// A thread's store lost while another thread, after a hand-off from it
// (barrier, atomic, prel), made a store that persisted.
void cross_thread_handoffs(const trace::trace& t, const persist_order& order, const store_set& image,
                           std::uint64_t position, std::size_t most, std::vector<missing_order>& out);

}  // namespace gpmx::check::rules
