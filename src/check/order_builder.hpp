#pragma once
// Builds a persist_order in one pass over the trace (see order_builder.cpp).
#include "gpmx/check/persist_order.hpp"

namespace gpmx::check {

void build_persist_order(persist_order& order, const trace::trace& t);

}  // namespace gpmx::check
