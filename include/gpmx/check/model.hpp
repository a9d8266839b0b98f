#pragma once
// The persistency models of docs/persistency-models.md, and the checker's
// error type (the library reports problems by throwing, never by exiting).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpmx::check {

enum class persist_model : std::uint8_t { strict, epoch, sbrp, sbrp_promoted };

// "strict", "epoch", "sbrp", "sbrp-promoted".
const char* to_string(persist_model m);
// The inverse of to_string; throws check_error naming the unknown model.
persist_model parse_model(std::string_view name);

class check_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpmx::check
