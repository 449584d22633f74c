// SPDX-License-Identifier: Apache-2.0
// validate_numbers: the whole-range number check on every numeric option left without one.
#include "cli/number_options.hpp"

#include <cstdint>

namespace tracesweep::cli {

namespace {

bool has_number_validator(CLI::Option* opt) {
  try {
    (void)opt->get_validator(number_validator_name);
    return true;
  } catch (CLI::OptionNotFound const&) {
    return false;
  }
}

/// The type CLI11 reads the option as, before any validator's description ("UINT:in [0, 1]").
std::string base_type(CLI::Option const* opt) {
  auto const full = opt->get_type_name();
  return full.substr(0, full.find(':'));
}

void validate_option(CLI::Option* opt) {
  if (has_number_validator(opt)) return;
  auto const type = base_type(opt);
  if (type == "UINT") opt->transform(number_from<std::uint64_t>(0));
  if (type == "INT") opt->transform(number_from(std::numeric_limits<std::int64_t>::lowest()));
  if (type == "FLOAT") opt->transform(number_from(std::numeric_limits<double>::lowest()));
}

}  // namespace

void validate_numbers(CLI::App& app) {
  for (auto* opt : app.get_options()) validate_option(opt);
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; })) validate_numbers(*sub);
}

}  // namespace tracesweep::cli
