// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/error.hpp>
#include <tracesweep/model/comm_classifier.hpp>

#include <re2/re2.h>

namespace tracesweep {

comm_classifier::comm_classifier(std::string const& pattern) {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  _re = std::make_unique<RE2>(pattern, options);
  if (!_re->ok()) throw pattern_error(pattern, _re->error());
}

comm_classifier::~comm_classifier() = default;
comm_classifier::comm_classifier(comm_classifier&&) noexcept = default;
comm_classifier& comm_classifier::operator=(comm_classifier&&) noexcept = default;

bool comm_classifier::matches(std::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *_re);
}

}  // namespace tracesweep
