// SPDX-License-Identifier: Apache-2.0
#include "reports/nsys/stats_columns.hpp"

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
  } else if (r == stats_report::cuda_gpu_kern_gb_sum) {
    cols.push_back({"GridXYZ", field::grid, cell::text});
    cols.push_back({"BlockXYZ", field::block, cell::text});
    cols.push_back({"Name", field::name, cell::text});
  } else if (r == stats_report::cuda_gpu_sum || r == stats_report::cuda_api_gpu_sum) {
    cols.push_back({"Category", field::style, cell::text});
    cols.push_back({"Operation", field::name, cell::text});
  } else {
    cols.push_back(
        {r == stats_report::cuda_gpu_mem_time_sum ? "Operation" : "Name", field::name, cell::text});
  }
  return cols;
}

}  // namespace tracesweep::stats
