// SPDX-License-Identifier: Apache-2.0
#include "stats/stats_columns.hpp"

#include <fmt/format.h>

namespace tracesweep::stats {

std::vector<column> columns_of(stats_report r) {
  if (r == stats_report::cuda_gpu_mem_size_sum)
    return {{"Total (MB)", field::total, cell::megabytes},
            {"Count", field::count, cell::integer},
            {"Avg (MB)", field::avg, cell::megabytes},
            {"Med (MB)", field::median, cell::megabytes},
            {"Min (MB)", field::min, cell::megabytes},
            {"Max (MB)", field::max, cell::megabytes},
            {"StdDev (MB)", field::stddev, cell::megabytes},
            {"Operation", field::name, cell::text}};
  std::string_view count = "Instances";
  if (r == stats_report::cuda_api_sum || r == stats_report::osrt_sum) count = "Num Calls";
  if (r == stats_report::cuda_gpu_mem_time_sum) count = "Count";
  std::vector<column> cols{{"Time (%)", field::time_percent, cell::decimal1},
                           {"Total Time (ns)", field::total, cell::integer},
                           {count, field::count, cell::integer},
                           {"Avg (ns)", field::avg, cell::decimal1},
                           {"Med (ns)", field::median, cell::decimal1},
                           {"Min (ns)", field::min, cell::integer},
                           {"Max (ns)", field::max, cell::integer},
                           {"StdDev (ns)", field::stddev, cell::decimal1}};
  if (r == stats_report::nvtx_sum) {
    cols.push_back({"Style", field::style, cell::text});
    cols.push_back({"Range", field::name, cell::text});
  } else {
    cols.push_back(
        {r == stats_report::cuda_gpu_mem_time_sum ? "Operation" : "Name", field::name, cell::text});
  }
  return cols;
}

namespace {

double number(stats_row const& row, field f) {
  switch (f) {
    case field::time_percent:
      return row.time_percent;
    case field::total:
      return static_cast<double>(row.total);
    case field::count:
      return static_cast<double>(row.count);
    case field::avg:
      return row.avg;
    case field::median:
      return row.median;
    case field::min:
      return static_cast<double>(row.min);
    case field::max:
      return static_cast<double>(row.max);
    case field::stddev:
      return row.stddev;
    default:
      return 0;
  }
}

std::int64_t integer(stats_row const& row, field f) {
  switch (f) {
    case field::total:
      return row.total;
    case field::count:
      return row.count;
    case field::min:
      return row.min;
    case field::max:
      return row.max;
    default:
      return 0;
  }
}

/// Inserts "," every three digits of the integer part.
std::string group_thousands(std::string const& s) {
  auto const dot = s.find('.');
  std::size_t const end = dot == std::string::npos ? s.size() : dot;
  std::size_t const first = (!s.empty() && s[0] == '-') ? 1 : 0;
  std::string out = s.substr(0, first);
  for (std::size_t i = first; i < end; ++i) {
    if (i > first && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(end);
}

}  // namespace

std::string format_cell(stats_row const& row, column const& c, bool thousands) {
  std::string s;
  switch (c.format) {
    case cell::text:
      return c.source == field::style ? row.style : row.name;
    case cell::integer:
      s = fmt::format("{}", integer(row, c.source));
      break;
    case cell::decimal1:
      s = fmt::format("{:.1f}", number(row, c.source));
      break;
    case cell::megabytes:
      s = fmt::format("{:.3f}", number(row, c.source) / 1e6);
      break;
  }
  return thousands ? group_thousands(s) : s;
}

}  // namespace tracesweep::stats
