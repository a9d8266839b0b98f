#pragma once
// The persistency models of docs/persistency-models.md, and the checker's
// error type (the library reports problems by throwing, never by exiting).
#include <cstdint>
#include <string>
#include <string_view>

#include "gpmx/support/error.hpp"

namespace gpmx::check {

enum class persist_model : std::uint8_t { strict, epoch, sbrp, sbrp_promoted };

// "strict", "epoch", "sbrp", "sbrp-promoted".
const char* to_string(persist_model m);
// The inverse of to_string; throws check_error (config) naming the unknown model.
persist_model parse_model(std::string_view name);

// What the checker cannot check: a trace or options it cannot use. Code
// check, or config for a name the user gave that means nothing (a model or
// an image strategy), which the command line reports as a usage error.
class check_error : public error {
 public:
  explicit check_error(const std::string& what, error_code code = error_code::check) : error(code, what) {}
};

}  // namespace gpmx::check
