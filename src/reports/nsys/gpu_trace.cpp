// SPDX-License-Identifier: Apache-2.0
// cuda_gpu_trace rows: the device activity rows of the table, by start, and each with its details.
#include <tracesweep/reports/nsys/gpu_trace.hpp>

#include <algorithm>
#include <string>

namespace tracesweep {

namespace {

std::string device_label(input_info const& info, std::int32_t device) {
  auto const id = std::to_string(device);
  auto const named = info.device_names.find(device);
  if (named == info.device_names.end()) return id;
  std::string out = named->second;
  return out.append(" (").append(id).append(")");
}

}  // namespace

gpu_trace_row gpu_trace_row_of(event_table const& t, std::size_t i) {
  gpu_trace_row r;
  r.start_ns = t.start_ns[i];
  r.duration_ns = t.end_ns[i] - t.start_ns[i];
  r.correlation = t.correlation_of(i);
  r.kind = t.kind[i];
  if (auto const* d = t.launch_details.details_of(i)) r.details = *d;
  r.bytes = t.bytes_of(i);
  r.device = t.device[i];
  r.stream = t.stream[i];
  r.device_label = device_label(t.inputs()[static_cast<std::size_t>(t.input_of(i))], t.device[i]);
  r.name = std::string(t.strings().at(t.name[i]));
  return r;
}

gpu_trace compute_gpu_trace(trace_model const& model, bool merge) {
  auto const& t = model.table();
  gpu_trace out{&t, std::vector<gpu_trace_table>(merge ? 1 : t.inputs().size())};
  auto& tables = out.tables;
  if (merge) tables[0].source = "all inputs";
  for (std::size_t i = 0; !merge && i < tables.size(); ++i) tables[i].source = t.inputs()[i].path;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_device_activity(t.kind[i]) && t.device[i] >= 0)
      tables[merge ? 0 : static_cast<std::size_t>(t.input_of(i))].rows.push_back(i);
  for (auto& g : tables)
    std::stable_sort(g.rows.begin(), g.rows.end(),
                     [&](std::size_t a, std::size_t b) { return t.start_ns[a] < t.start_ns[b]; });
  return out;
}

std::string_view memory_kind_label(std::int16_t kind) noexcept {
  switch (kind) {
    case 0:
      return "Pageable";
    case 1:
      return "Pinned";
    case 2:
      return "Device";
    case 3:
      return "Array";
    case 4:
      return "Managed";
    case 5:
      return "Device Static";
    case 6:
      return "Managed Static";
    case 7:
      return "Unknown";
    default:
      return "";
  }
}

}  // namespace tracesweep
