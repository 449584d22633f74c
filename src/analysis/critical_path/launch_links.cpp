// SPDX-License-Identifier: Apache-2.0
// The job's links for the critical-path graph: which call launched or awaited which GPU row, the
// queue length of each stream as HTA's trace counters define it, and the launches of each stream
// and of each thread's stream in time order.
#include <algorithm>
#include <array>
#include <string_view>
#include <tuple>

#include "analysis/critical_path/path_graph.hpp"

namespace tracesweep::critical_path_detail {

namespace {

/// `name` without nsys's version suffix ("cudaLaunchKernel_v7000" → "cudaLaunchKernel").
std::string_view base_name(std::string_view name) {
  auto const at = name.rfind("_v");
  if (at == std::string_view::npos || at + 2 == name.size()) return name;
  for (auto c : name.substr(at + 2))
    if (c < '0' || c > '9') return name;
  return name.substr(0, at);
}

bool is_one_of(std::string_view name, std::span<std::string_view const> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

constexpr std::array<std::string_view, 3> lock_names{"cudaHostAlloc", "cudaLaunchKernel",
                                                     "cudaMemcpyAsync"};
constexpr std::array<std::string_view, 12> launch_names{
    "cudaLaunchKernel",    "cudaLaunchKernelExC",
    "cuLaunchKernel",      "cuLaunchKernelEx",
    "cudaMemcpyAsync",     "cudaMemsetAsync",
    "hipLaunchKernel",     "hipExtModuleLaunchKernel",
    "hipMemsetAsync",      "hipMemcpyAsync",
    "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution"};
constexpr std::array<std::string_view, 6> blocking_names{"cudaDeviceSynchronize",
                                                         "cudaStreamSynchronize",
                                                         "cudaEventQuery",
                                                         "cudaEventSynchronize",
                                                         "cudaMemcpy",
                                                         "cudaMemcpyAsync"};

std::uint8_t class_of(std::string_view full_name) {
  auto const name = base_name(full_name);
  std::uint8_t c = 0;
  if (is_one_of(name, lock_names)) c |= lock_call;
  if (is_one_of(name, launch_names)) c |= launch_call;
  if (is_one_of(name, blocking_names)) c |= blocking_call;
  if (name == "cudaEventRecord") c |= record_call;
  if (name == "cudaStreamWaitEvent") c |= wait_call;
  if (full_name == "Event Sync" || full_name == "Stream Wait Event") c |= waits_on_event;
  // Kineto's cuda_sync names; nsys's sync types, as its exports' ENUM_CUPTI_SYNC_TYPE or our
  // reader's defaults name them (nsys records no cudaEventRecord behind an event sync).
  if (full_name == "Context Sync" || full_name == "Context sync" ||
      full_name == "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE")
    c |= context_sync;
  if (full_name == "Stream Sync" || full_name == "Stream sync" ||
      full_name == "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE")
    c |= stream_sync;
  return c;
}

correlation_key correlation_of(event_table const& t, std::size_t row) {
  return {t.input_of(row), t.rank[row], t.correlation_of(row)};
}

/// Synchronisation rows ↔ the calls of their correlation ids (the first call of each id), and
/// the cudaEventRecord calls by correlation id.
void link_sync_rows(event_table const& t, launch_links& l) {
  std::unordered_map<correlation_key, std::int64_t, correlation_key_hash> calls;
  for (std::size_t r = 0; r < t.size(); ++r)
    if (t.kind[r] == event_kind::synchronization && t.correlation_of(r) >= 0)
      calls.emplace(correlation_of(t, r), -1);
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (t.kind[r] != event_kind::api_call || t.correlation_of(r) < 0) continue;
    auto const key = correlation_of(t, r);
    if ((l.classes(t, r) & record_call) != 0) l.records.emplace(key, r);
    if (auto it = calls.find(key); it != calls.end() && it->second < 0)
      it->second = static_cast<std::int64_t>(r);
  }
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (t.kind[r] != event_kind::synchronization || t.correlation_of(r) < 0) continue;
    auto const call = calls.at(correlation_of(t, r));
    if (call < 0) continue;
    l.linked[r] = call;
    l.linked[static_cast<std::size_t>(call)] = static_cast<std::int64_t>(r);
  }
}

/// The queue length of every stream (HTA's trace counters): +1 when a launch call enqueues a GPU
/// operation, −1 when it starts; at equal times the enqueue first.
void count_queues(event_table const& t, std::span<std::size_t const> launched, launch_links& l) {
  struct change {
    std::int64_t ts;
    int delta;
    std::size_t row;
  };
  std::unordered_map<stream_key, std::vector<change>, stream_key_hash> by_stream;
  for (auto const r : launched) {
    auto const call = static_cast<std::size_t>(l.linked[r]);
    auto& changes = by_stream[{t.input_of(r), t.rank[r], t.device[r], t.stream[r]}];
    changes.push_back({t.start_ns[call], +1, r});
    changes.push_back({t.start_ns[r], -1, r});
  }
  for (auto& [key, changes] : by_stream) {
    std::sort(changes.begin(), changes.end(), [](change const& a, change const& b) {
      return std::tuple(a.ts, -a.delta, a.row) < std::tuple(b.ts, -b.delta, b.row);
    });
    std::int32_t length = 0;
    for (auto const& c : changes) {
      length += c.delta;
      (c.delta > 0 ? l.queue_at_call : l.queue_at_start)[c.row] = length;
    }
  }
}

}  // namespace

launch_links link_launches(trace_model const& model) {
  auto const& t = model.table();
  launch_links l;
  l.name_classes.resize(t.strings().size());
  for (std::size_t id = 0; id < l.name_classes.size(); ++id)
    l.name_classes[id] = class_of(t.strings().at(static_cast<string_id>(id)));
  l.linked.assign(t.size(), -1);
  l.queue_at_call.assign(t.size(), -1);
  l.queue_at_start.assign(t.size(), -1);
  std::vector<std::size_t> launched;  // GPU operations on a stream that a launch call enqueued
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (!is_device_activity(t.kind[r])) continue;
    auto const call = model.launcher(r);
    if (call < 0) continue;
    l.linked[r] = call;
    l.linked[static_cast<std::size_t>(call)] = static_cast<std::int64_t>(r);
    if (t.stream[r] >= 0 && (l.classes(t, static_cast<std::size_t>(call)) & launch_call) != 0)
      launched.push_back(r);
  }
  link_sync_rows(t, l);
  count_queues(t, launched, l);
  for (auto const r : launched) {
    auto const call = static_cast<std::size_t>(l.linked[r]);
    launch const at{t.start_ns[call], call};
    l.by_stream[{t.input_of(r), t.rank[r], t.device[r], t.stream[r]}].push_back(at);
    l.by_thread_stream[{t.input_of(r), t.rank[r], t.stream[call], t.stream[r]}].push_back(at);
  }
  auto by_time = [](launch const& a, launch const& b) {
    return std::tie(a.start, a.call) < std::tie(b.start, b.call);
  };
  for (auto& [key, launches] : l.by_stream) std::sort(launches.begin(), launches.end(), by_time);
  for (auto& [key, launches] : l.by_thread_stream)
    std::sort(launches.begin(), launches.end(), by_time);
  return l;
}

}  // namespace tracesweep::critical_path_detail
