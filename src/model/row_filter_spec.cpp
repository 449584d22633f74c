// SPDX-License-Identifier: Apache-2.0
// The texts of the row filters (--time-range, --filter-nvtx, --ranks, --steps)
// into row_filter parts; every defect is one usage_error naming the option and the text.
#include <tracesweep/error.hpp>
#include <tracesweep/model/row_filter.hpp>

#include <charconv>
#include <limits>

namespace tracesweep {

namespace {

[[noreturn]] void refuse(std::string_view option, std::string_view text, std::string_view why) {
  std::string line(option);
  line.append(" ").append(text).append(": ").append(why);
  throw usage_error(line);
}

/// A whole decimal integer ≥ 0, or nullopt.
std::optional<std::int64_t> whole_number(std::string_view s) {
  std::int64_t v = 0;
  auto const [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

/// "[+]N[unit]" (empty: open) in ns.
std::optional<time_bound> parse_bound(std::string_view s, std::string_view option,
                                      std::string_view text) {
  if (s.empty()) return std::nullopt;
  time_bound b;
  if (s.front() == '+') b.relative = true, s.remove_prefix(1);
  std::int64_t scale = 1;
  constexpr std::pair<std::string_view, std::int64_t> units[] = {
      {"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}};
  for (auto const& [suffix, factor] : units)
    if (s.ends_with(suffix)) {
      s.remove_suffix(suffix.size());
      scale = factor;
      break;
    }
  auto const n = whole_number(s);
  if (!n) refuse(option, text, "expected [+]N[ns|us|ms|s]:[+]N[ns|us|ms|s] (N a whole number)");
  if (__builtin_mul_overflow(*n, scale, &b.ns) || !time_in_range(b.ns))
    refuse(option, text, "a time outside the accepted range (|t| < 2^62 ns)");
  return b;
}

}  // namespace

time_range_filter parse_time_range(std::string_view text, std::string_view option) {
  auto const colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    refuse(option, text, "expected START:END (either may be empty)");
  time_range_filter f{parse_bound(text.substr(0, colon), option, text),
                      parse_bound(text.substr(colon + 1), option, text)};
  // "+0:200ms" means the first 200 ms: an end after a relative start counts from the trace
  // start too (an absolute end there would almost always fall before the trace).
  if (f.start && f.start->relative && f.end) f.end->relative = true;
  if (f.start && f.end && f.start->relative == f.end->relative && f.end->ns < f.start->ns)
    refuse(option, text, "END is before START");
  return f;
}

nvtx_filter parse_nvtx_filter(std::string_view text, std::string_view option) {
  nvtx_filter f;
  auto rest = text;
  // "/N" at the end is the instance; a '/' followed by anything else belongs to the name.
  if (auto const slash = rest.rfind('/'); slash != std::string_view::npos) {
    if (auto const n = whole_number(rest.substr(slash + 1))) {
      f.instance = *n;
      rest = rest.substr(0, slash);
    }
  }
  if (auto const at = rest.rfind('@'); at != std::string_view::npos) {
    f.domain = std::string(rest.substr(at + 1));
    if (f.domain->empty()) refuse(option, text, "empty domain after @");
    rest = rest.substr(0, at);
  }
  if (rest.empty()) refuse(option, text, "expected NAME[@DOMAIN][/INSTANCE]");
  f.name = std::string(rest);
  return f;
}

std::vector<std::int32_t> parse_rank_list(std::string_view text, std::string_view option) {
  std::vector<std::int32_t> out;
  constexpr std::int64_t most = std::numeric_limits<std::int32_t>::max();
  std::size_t from = 0;
  while (from <= text.size()) {
    auto const comma = std::min(text.find(',', from), text.size());
    auto const item = text.substr(from, comma - from);
    auto const dash = item.find('-');
    auto const lo = whole_number(item.substr(0, dash));
    auto const hi = dash == std::string_view::npos ? lo : whole_number(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi > most)
      refuse(option, text, "expected ranks like 0,2,5-7 (whole numbers, ranges low-high)");
    if (*hi - *lo > 1'000'000) refuse(option, text, "a rank range of more than a million ranks");
    for (auto r = *lo; r <= *hi; ++r) out.push_back(static_cast<std::int32_t>(r));
    from = comma + 1;
  }
  return out;
}

step_filter parse_step_range(std::string_view text, std::string_view option) {
  auto const colon = text.find(':');
  auto const first = whole_number(text.substr(0, colon));
  auto const last = colon == std::string_view::npos ? first : whole_number(text.substr(colon + 1));
  if (!first || !last) refuse(option, text, "expected A:B or A (step indices from 0)");
  if (*last < *first) refuse(option, text, "B is before A");
  return {*first, *last};
}

}  // namespace tracesweep
