// SPDX-License-Identifier: Apache-2.0
// Sync and copy costs: host time in synchronising calls per thread (share of the rank's
// denominator), memcpy time and bytes per device and direction (share of the device window), and
// steps with many small host↔device copies.
#include <algorithm>
#include <map>
#include <tuple>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/memcpy_labels.hpp>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

void find_sync(job_session const& session, host_classifier const& classifier, diagnosis& out) {
  auto const& model = session.model();
  auto const& t = model.table();
  using key = std::tuple<std::int32_t, std::int32_t, std::int64_t>;  // rank, input, thread
  std::map<key, sync_row> calls, records;
  for (std::size_t i = 0; i < t.size(); ++i) {
    bool const call = t.device[i] < 0 && classifier.is_sync_call(i);
    bool const record = t.kind[i] == event_kind::synchronization && t.device[i] >= 0;
    if (!call && !record) continue;
    auto& row = (call ? calls : records)[{t.rank[i], t.input_of(i), call ? t.stream[i] : -1}];
    row.input = t.input_of(i);
    row.rank = t.rank[i];
    row.thread = call ? t.stream[i] : -1;
    ++row.calls;
    row.total_ns =
        checked_add(row.total_ns, t.end_ns[i] - t.start_ns[i], "the sync time of a thread");
  }
  // Device-side sync records (Kineto cuda_sync) count only for ranks without sync calls.
  for (auto const& [k, row] : records) {
    auto const rank = std::get<0>(k);
    bool const has_calls = std::any_of(calls.begin(), calls.end(),
                                       [&](auto const& c) { return std::get<0>(c.first) == rank; });
    if (!has_calls) calls.emplace(k, row);
  }
  for (auto& [k, row] : calls) {
    auto const r = model.rank_index(row.rank);
    row.share = share(row.total_ns, session.rank_denominator(r).total_ns);
    out.sync.push_back(row);
  }
}

void find_memcpy(trace_model const& model, activity_result const& activity, diagnosis& out) {
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::map<std::pair<group_id, std::uint8_t>, memcpy_row> rows;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (groups[i] == no_device || t.kind[i] != event_kind::memcpy) continue;
    auto& m = rows[{groups[i], t.subkind[i]}];
    ++m.calls;
    m.total_ns = checked_add(m.total_ns, t.end_ns[i] - t.start_ns[i], "the copy time of a device");
    m.bytes = checked_add(m.bytes, t.bytes_of(i), "the bytes copied by a device");
  }
  for (auto& [k, m] : rows) {
    m.where = key_of(model, k.first);
    m.direction = std::string(memcpy_label(k.second));
    auto const& a = activity.devices[k.first];
    m.share = share(m.total_ns, a.window_end - a.window_start);
    out.memcpy.push_back(std::move(m));
  }
}

void find_small_copies(trace_model const& model, diagnosis& out) {
  auto const& t = model.table();
  auto const& o = out.options;
  auto const groups = model.device_group();
  constexpr auto h2d = static_cast<std::uint8_t>(copy_kind::host_to_device);
  constexpr auto d2h = static_cast<std::uint8_t>(copy_kind::device_to_host);
  std::map<std::tuple<group_id, std::int64_t, std::uint8_t>, small_copy_finding> per_step;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (groups[i] == no_device || t.kind[i] != event_kind::memcpy) continue;
    if ((t.subkind[i] != h2d && t.subkind[i] != d2h) || t.bytes_of(i) > o.small_copy_bytes)
      continue;
    auto const r = model.rank_index(t.rank[i]);
    if (r >= model.ranks().size()) continue;
    // The step the copy was issued in: its launch call's, else its own start.
    auto const call = model.launcher(i);
    auto const at = call >= 0 ? t.start_ns[static_cast<std::size_t>(call)] : t.start_ns[i];
    auto const s = step_at(model.step_windows(r), at);
    if (s < 0) continue;
    auto& f = per_step[{groups[i], s, t.subkind[i]}];
    ++f.copies;
    f.bytes = checked_add(f.bytes, t.bytes_of(i), "the bytes copied in a step");
    f.total_ns = checked_add(f.total_ns, t.end_ns[i] - t.start_ns[i], "the copy time of a step");
  }
  std::vector<small_copy_finding> found;
  for (auto& [k, f] : per_step) {
    if (f.copies < static_cast<std::int64_t>(o.small_copy_count)) continue;
    auto const [g, s, dir] = k;
    f.where = key_of(model, g);
    f.step = static_cast<std::int32_t>(s);
    auto const r = model.rank_index(f.where.rank);
    f.step_name =
        std::string(t.strings().at(model.step_windows(r)[static_cast<std::size_t>(s)].name));
    f.direction = std::string(memcpy_label(dir));
    found.push_back(std::move(f));
  }
  std::stable_sort(
      found.begin(), found.end(),
      [](small_copy_finding const& a, small_copy_finding const& b) { return a.copies > b.copies; });
  out.small_copies_total = static_cast<std::int64_t>(found.size());
  if (o.top != 0 && found.size() > o.top) found.resize(o.top);
  out.small_copies = std::move(found);
}

}  // namespace

void find_sync_and_copies(job_session const& session, host_classifier const& classifier,
                          activity_result const& activity, diagnosis& out) {
  auto const& model = session.model();
  find_sync(session, classifier, out);
  find_memcpy(model, activity, out);
  find_small_copies(model, out);
}

}  // namespace tracesweep::diagnose_detail
