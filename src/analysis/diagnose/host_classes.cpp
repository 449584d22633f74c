// SPDX-License-Identifier: Apache-2.0
// What each host row means for an idle device: synchronising calls and ops, memcpy calls,
// communication, data loading, launching or not (the classes of diagnose_parts.hpp).
#include <algorithm>
#include <array>
#include <string_view>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// Whether `name` is `stem` or `stem` followed by a version suffix ("cudaStreamSynchronize_v3020").
bool named(std::string_view name, std::string_view stem) {
  return name.starts_with(stem) && (name.size() == stem.size() || name[stem.size()] == '_');
}

bool is_sync_name(std::string_view name) {
  constexpr std::array<std::string_view, 8> calls{"cudaDeviceSynchronize",
                                                  "cudaStreamSynchronize",
                                                  "cudaEventSynchronize",
                                                  "cuCtxSynchronize",
                                                  "cuStreamSynchronize",
                                                  "cuEventSynchronize",
                                                  "aten::item",
                                                  "aten::_local_scalar_dense"};
  return std::any_of(calls.begin(), calls.end(), [&](auto s) { return named(name, s); });
}

bool is_memcpy_name(std::string_view name) {
  return name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy");
}

}  // namespace

host_classifier::host_classifier(trace_model const& model, diagnose_options const& options)
    : _model(model) {
  name_regex const loader(options.data_loader_pattern);
  auto const& t = model.table();
  auto const& pool = t.strings();
  // Only names host rows carry are looked at.
  std::vector<std::uint8_t> seen(pool.size(), 0);
  _flags.assign(pool.size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.device[i] >= 0 || seen[t.name[i]]) continue;
    seen[t.name[i]] = 1;
    auto const name = pool.at(t.name[i]);
    std::uint8_t f = 0;
    if (is_sync_name(name)) f |= sync_name;
    if (is_memcpy_name(name)) f |= memcpy_name;
    if (model.is_communication(name, communication_policy::host_rows_by_pattern)) f |= comm_name;
    if (loader.matches(name)) f |= loader_name;
    if (model.is_step_name(t.name[i])) f |= step_name;
    _flags[t.name[i]] = f;
  }
}

host_class host_classifier::classify(std::size_t row, bool launches) const {
  auto const& t = _model.table();
  auto const kind = t.kind[row];
  auto const f = _flags[t.name[row]];
  if (kind == event_kind::profiler_step || (kind == event_kind::user_range && (f & step_name)))
    return host_class::step;
  if (f & sync_name) return host_class::sync;
  if (kind == event_kind::api_call && (f & memcpy_name)) return host_class::memcpy;
  if (t.role[row].communication_range() || (f & comm_name)) return host_class::communication;
  if (kind == event_kind::data_loader || (f & loader_name)) return host_class::data_loading;
  if (kind == event_kind::api_call || launches) return host_class::launching;
  return host_class::compute;
}

bool host_classifier::is_sync_call(std::size_t row) const {
  auto const& t = _model.table();
  return t.kind[row] == event_kind::api_call && (_flags[t.name[row]] & sync_name);
}

bool host_classifier::is_sync(std::size_t row) const {
  return classify(row, false) == host_class::sync;
}

std::optional<host_index::key> launching_thread(trace_model const& model, std::int64_t row) {
  if (row < 0) return std::nullopt;
  auto const call = model.launcher(static_cast<std::size_t>(row));
  if (call < 0) return std::nullopt;
  auto const& t = model.table();
  auto const c = static_cast<std::size_t>(call);
  return host_index::key{t.input_of(c), t.stream[c]};
}

std::string launching_op_name(trace_model const& model, host_index const& index, std::size_t row) {
  auto const call = model.launcher(row);
  if (call < 0) return {};
  auto const op = enclosing_op(model, index, static_cast<std::size_t>(call), false);
  auto const& t = model.table();
  return op < 0 ? std::string() : std::string(t.strings().at(t.name[static_cast<std::size_t>(op)]));
}

std::vector<context_event> launching_thread_rows(trace_model const& model, host_index const& index,
                                                 std::size_t row, std::int64_t start,
                                                 std::int64_t end, std::size_t count) {
  std::vector<context_event> out;
  auto const k = launching_thread(model, static_cast<std::int64_t>(row));
  if (!k) return out;
  auto const w = attribute(model, index, std::span(&*k, 1), start, end);
  for (std::size_t h = 0; h < w.rows.size() && h < count; ++h)
    out.push_back(describe(model.table(), w.rows[h].second));
  return out;
}

context_event describe(event_table const& t, std::size_t row) {
  return {std::string(t.strings().at(t.name[row])), t.kind[row], t.stream[row], t.start_ns[row],
          t.end_ns[row]};
}

device_key key_of(trace_model const& model, std::size_t device) {
  auto const& d = model.devices()[device];
  return {d.input, d.rank, d.device};
}

}  // namespace tracesweep::diagnose_detail

namespace tracesweep {

std::span<std::size_t const> diagnosis::host_of(gap_finding const& g) const {
  return std::span(gap_host_rows).subspan(g.host_from, g.host_to - g.host_from);
}

std::optional<context_event> diagnosis::describe(std::int64_t row) const {
  if (row < 0 || events == nullptr) return std::nullopt;
  return diagnose_detail::describe(*events, static_cast<std::size_t>(row));
}

}  // namespace tracesweep
