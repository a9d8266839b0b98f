#pragma once
// The litmus program after parsing: locations, threads compiled to a flat
// instruction list (bounded loops and branches become jumps), the final
// condition and the expected verdicts the file states.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpmx::litmus {

using Value = std::int64_t;

struct SrcPos {
  int line = 0;
  int col = 0;
};

// Memory-access labels of DRF0/DRF1/DRFrlx.
enum class Label { Data, Paired, Unpaired, Commutative, NonOrdering, Speculative, Quantum };
enum class Scope { Global, Local };
enum class AccessKind { Load, Store, Rmw };
enum class RmwOp { Add, Sub, Inc, Dec, And, Or, Min, Max, Exchange, CompareExchange };

const char* to_string(Label l);
const char* to_string(Scope s);
const char* to_string(AccessKind k);
const char* to_string(RmwOp op);
bool is_atomic(Label l);

struct Expr {
  enum class Kind { Const, Reg, Loc, Unary, Binary };
  Kind kind = Kind::Const;
  Value value = 0;          // Const
  int thread = -1;          // Reg in a final condition: which thread
  int reg = -1;             // Reg: register index in its thread
  int loc = -1;             // Loc (final condition only): location index
  std::string op;           // Unary/Binary operator spelling
  std::vector<Expr> kids;   // Unary: 1, Binary: 2, Loc: 0 or 1 (index)
  SrcPos pos;
};

struct Location {
  std::string name;
  int base = 0;  // first flat address
  int size = 1;  // 1 for a scalar
  std::vector<Value> init;
};

struct Instr {
  enum class Op { Assign, BranchFalse, Jump, Access, HaltBound };
  Op op = Op::Assign;
  int dst = -1;      // Assign, Access (-1: value discarded)
  Expr e;            // Assign value / BranchFalse condition
  int target = 0;    // BranchFalse, Jump
  // Access
  AccessKind kind = AccessKind::Load;
  RmwOp rmw = RmwOp::Add;
  Label label = Label::Data;
  Scope scope = Scope::Global;
  int loc = -1;
  std::optional<Expr> index;
  std::vector<Expr> operands;     // Store: value; Rmw: 0..2 operands
  std::optional<Expr> await_cond; // the access happens only when this holds
  SrcPos pos;
};

struct Thread {
  std::string name;
  int cu = 0;
  std::vector<std::string> regs;
  std::vector<Instr> code;
};

struct Expectation {
  std::string key;    // drf0, drf1, drfrlx, hrf-direct, hrf-indirect, sc, system, theorem
  std::string value;  // as written, normalised to lower case
  SrcPos pos;
};

struct Program {
  std::string name;
  std::string file;
  std::vector<Location> locs;
  int mem_size = 0;
  std::vector<Value> domain;  // explicit quantum domain (empty: derived)
  std::vector<Thread> threads;
  enum class Cond { None, Exists, Forall };
  Cond cond_kind = Cond::None;
  Expr cond;
  std::vector<Expectation> expects;

  bool has_label(Label l) const;
  std::string addr_name(int addr) const;
  std::vector<Value> initial_memory() const;
};

}  // namespace gpmx::litmus
