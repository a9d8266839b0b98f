#pragma once
// The litmus program after parsing: locations, threads compiled to a flat
// instruction list (bounded loops and branches become jumps), the final
// condition and the expected verdicts the file states.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpmx/exec/memory_scope.hpp"

namespace gpmx::litmus {

// Memory cells and registers hold 64-bit two's complement values.
using value = std::int64_t;

struct src_pos {
  int line = 0;
  int col = 0;
};

// Memory-access labels of DRF0/DRF1/DRFrlx.
enum class access_label { data, paired, unpaired, commutative, non_ordering, speculative, quantum };
enum class access_kind { load, store, rmw };
enum class rmw_op { add, sub, inc, dec, bit_and, bit_or, min, max, exchange, compare_exchange };

// Accesses carry a gpmx::scope: a litmus file's "local" (HRF's scope of the
// threads on one compute unit) is scope::block, its "global" scope::device.

const char* to_string(access_label l);
const char* to_string(access_kind k);
const char* to_string(rmw_op op);
bool is_atomic(access_label l);

enum class expr_kind { constant, reg, loc, unary, binary };

struct expr {
  expr_kind kind = expr_kind::constant;
  value constant = 0;       // constant
  int thread = -1;          // reg in a final condition: which thread
  int reg = -1;             // reg: register index in its thread
  int loc = -1;             // loc (final condition only): location index
  std::string op;           // unary/binary operator spelling
  std::vector<expr> kids;   // unary: 1, binary: 2, loc: 0 or 1 (index)
  src_pos pos;
};

struct location {
  std::string name;
  int base = 0;  // first flat address
  int size = 1;  // 1 for a scalar
  std::vector<value> init;
};

enum class instr_op { assign, branch_false, jump, access, halt_bound };

struct instr {
  instr_op op = instr_op::assign;
  int dst = -1;      // assign, access (-1: value discarded)
  expr e;            // assign value / branch_false condition
  int target = 0;    // branch_false, jump
  // access
  access_kind kind = access_kind::load;
  rmw_op rmw = rmw_op::add;
  access_label label = access_label::data;
  gpmx::scope scope = gpmx::scope::device;
  int loc = -1;
  std::optional<expr> index;
  std::vector<expr> operands;     // store: value; rmw: 0..2 operands
  std::optional<expr> await_cond; // the access happens only when this holds
  src_pos pos;
};

struct thread {
  std::string name;
  int cu = 0;
  std::vector<std::string> regs;
  std::vector<instr> code;
};

struct expectation {
  std::string key;       // drf0, drf1, drfrlx, hrf-direct, hrf-indirect, sc, system, theorem
  std::string expected;  // as written, normalised to lower case
  src_pos pos;
};

enum class condition_kind { none, exists, forall };

struct program {
  std::string name;
  std::string file;
  std::vector<location> locs;
  int mem_size = 0;
  std::vector<value> domain;  // explicit quantum domain (empty: derived)
  std::vector<thread> threads;
  condition_kind cond_kind = condition_kind::none;
  expr cond;
  std::vector<expectation> expects;

  bool has_label(access_label l) const;
  std::string addr_name(int addr) const;
  std::vector<value> initial_memory() const;
};

}  // namespace gpmx::litmus
