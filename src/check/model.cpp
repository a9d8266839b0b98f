// Model names.
#include "gpmx/check/model.hpp"

namespace gpmx::check {

const char* to_string(persist_model m) {
  switch (m) {
    case persist_model::strict: return "strict";
    case persist_model::epoch: return "epoch";
    case persist_model::sbrp: return "sbrp";
    case persist_model::sbrp_promoted: return "sbrp-promoted";
  }
  return "?";
}

persist_model parse_model(std::string_view name) {
  for (persist_model m : {persist_model::strict, persist_model::epoch, persist_model::sbrp,
                          persist_model::sbrp_promoted})
    if (name == to_string(m)) return m;
  throw check_error("unknown persistency model '" + std::string(name) +
                    "' (expected strict, epoch, sbrp or sbrp-promoted)",
                    error_code::config);
}

}  // namespace gpmx::check
