// SPDX-License-Identifier: Apache-2.0
// Text in the HTML page: escaped (markup characters as references, bytes that are not valid UTF-8
// as U+FFFD), measured in code points, cut to a readable length; column headers with their unit.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::output::html_page {

/// `s` as HTML text or attribute value; bytes that are not valid UTF-8 as U+FFFD.
[[nodiscard]] std::string escape(std::string_view s);
/// Code points in `s` (an invalid byte counts as one).
[[nodiscard]] std::size_t length(std::string_view s);
/// `s` escaped, cut to `max` code points when longer: its start, "…" and its end (kernel names
/// differ in their template arguments, near the end).
[[nodiscard]] std::string short_text(std::string_view s, std::size_t max);
/// A column's header: its label (or name), with the unit text shows its cells in when the header
/// does not already name it.
[[nodiscard]] std::string header(column const& c);

}  // namespace tracesweep::output::html_page
