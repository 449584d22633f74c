// SPDX-License-Identifier: Apache-2.0
// Row filters: narrow a job's event table once, before its trace model is built, so that every
// analysis and both backends see only the selected rows. By name (kernels and operators), by a
// time window, by an NVTX range or user annotation, by rank and by profiler steps; memory events
// follow the rank and time conditions. The filters combine: a row is kept when it passes each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/event_table.hpp>

namespace tracesweep {

/// One end of --time-range: ns, absolute or relative to the trace start (the earliest row).
struct time_bound {
  std::int64_t ns = 0;
  bool relative = false;
};

/// [start, end): either end open when absent.
struct time_range_filter {
  std::optional<time_bound> start, end;
};

/// NAME[@DOMAIN][/INSTANCE]: host user ranges (NVTX ranges, user annotations) named NAME, with
/// nsys's "DOMAIN:NAME" naming for a domain; instance (from 0, per rank in start order) or all.
/// The text splits at its last '@' and at a last '/' followed by digits only.
struct nvtx_filter {
  std::string name;
  std::optional<std::string> domain;
  std::optional<std::int64_t> instance;
  /// The name a row carries: "DOMAIN:NAME", or NAME.
  [[nodiscard]] std::string row_name() const;
};

/// Profiler steps first..last (indices among each rank's steps, from 0, both included).
struct step_filter {
  std::int64_t first = 0, last = 0;
};

struct row_filter {
  std::string name_pattern;  ///< RE2, searched (case-sensitive) in kernel and operator names
  std::optional<time_range_filter> time_range;
  std::optional<nvtx_filter> nvtx;
  std::vector<std::int32_t> ranks;  ///< empty: every rank
  std::optional<step_filter> steps;
  [[nodiscard]] bool empty() const noexcept {
    return name_pattern.empty() && !time_range && !nvtx && ranks.empty() && !steps;
  }
  /// Whether a time range is relative to the trace start (the earliest row of any kind).
  [[nodiscard]] bool relative_time() const noexcept {
    return time_range && ((time_range->start && time_range->start->relative) ||
                          (time_range->end && time_range->end->relative));
  }
};

/// The parsers of the filters' texts; each throws usage_error naming `option` and the text.
/// "[+]N[unit]:[+]N[unit]" with unit ns (default), us, ms or s; either side may be empty. After a
/// relative start ("+N") the end is relative too, with or without its '+'.
[[nodiscard]] time_range_filter parse_time_range(std::string_view text, std::string_view option);
[[nodiscard]] nvtx_filter parse_nvtx_filter(std::string_view text, std::string_view option);
/// "0,2,5-7".
[[nodiscard]] std::vector<std::int32_t> parse_rank_list(std::string_view text,
                                                        std::string_view option);
/// "A:B", or "A" for one step.
[[nodiscard]] step_filter parse_step_range(std::string_view text, std::string_view option);

/// Keeps the rows (and memory events) of `table` that pass every filter of `f`, in order:
///  - ranks: the row's rank is listed (no listed rank in the table: input_error);
///  - name: kernel rows and host operator rows (cpu_op; nsys NVTX ranges are not filtered) whose
///    name the pattern finds; every other kind of row is kept;
///  - time range, steps, NVTX: each gives windows per rank; a row is kept when it overlaps one
///    of its rank's windows [S, E) as nsys's filtered views do: it starts before E and ends at
///    or after S (rows are not clipped); a memory event when S ≤ t < E. A step filter that no
///    rank has steps for, or an NVTX filter no range matches, is an input_error.
/// Each input's ranks are recomputed from the rows kept.
void apply_row_filter(event_table& table, row_filter const& f);

}  // namespace tracesweep
