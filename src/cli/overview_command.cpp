// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the owning work item.
#include "cli/cli_context.hpp"
namespace tracesweep::cli {
void add_overview_command(CLI::App&, context&) {}
}
