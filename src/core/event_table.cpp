// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/event_table.hpp>
#include <tracesweep/huge_pages.hpp>
#include <tracesweep/recent_keys.hpp>
#include <tracesweep/task_threads.hpp>

#include <algorithm>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracesweep {

std::int32_t event_table::begin_input(std::string path, std::string format) {
  auto& info = _inputs.emplace_back();
  info.path = std::move(path);
  info.format = std::move(format);
  _current_input_first_row = size();
  _current_input_first_memory = memory.size();
  _input_first_row.push_back(size());
  return static_cast<std::int32_t>(_inputs.size() - 1);
}

namespace {

/// The reason append does not keep an event with these times and bytes; empty when it does.
std::string_view rejection(std::int64_t start, std::int64_t end, std::int64_t bytes) noexcept {
  if (!time_in_range(start) || !time_in_range(end)) return skip_time_out_of_range;
  if (end < start) return skip_end_before_start;
  if (end - start >= time_limit_ns) return skip_duration_out_of_range;
  if (bytes < 0 || bytes >= bytes_limit) return skip_bytes_out_of_range;
  return {};
}

/// Appends every value of `from`.
template <class T>
void append_column(std::vector<T>& to, std::span<T const> from) {
  to.insert(to.end(), from.begin(), from.end());
}

/// Appends every value of `from`, or `n` copies of `constant` when `from` is empty.
template <class T>
void append_column(std::vector<T>& to, std::span<T const> from, T constant, std::size_t n) {
  if (from.empty())
    to.insert(to.end(), n, constant);
  else
    append_column(to, from);
}

/// Row i's value: from[i], or `constant` when `from` is empty.
template <class T>
T value_at(std::span<T const> from, T constant, std::size_t i) noexcept {
  return from.empty() ? constant : from[i];
}

/// Row i of `r` as one event.
event event_at(event_rows const& r, std::size_t i) noexcept {
  event e;
  e.start_ns = r.start[i], e.end_ns = r.end[i];
  e.kind = value_at(r.kinds, r.kind, i), e.subkind = r.subkind[i];
  e.rank = value_at(r.ranks, r.rank, i), e.device = r.device[i], e.stream = r.stream[i];
  e.name = r.name[i], e.category = value_at(r.categories, r.category, i);
  e.correlation = r.correlation[i], e.bytes = value_at(r.bytes, std::int64_t{0}, i);
  e.role = value_at(r.roles, r.role, i);
  return e;
}

}  // namespace

bool event_table::append(event const& e) {
  if (auto const why = rejection(e.start_ns, e.end_ns, e.bytes); !why.empty()) {
    skip(why);
    return false;
  }
  start_ns.push_back(e.start_ns);
  end_ns.push_back(e.end_ns);
  kind.push_back(e.kind);
  subkind.push_back(e.subkind);
  rank.push_back(e.rank);
  device.push_back(e.device);
  stream.push_back(e.stream);
  name.push_back(e.name);
  category.push_back(e.category);
  append_correlation(e.correlation, size() - 1);
  role.push_back(e.role);
  if (e.bytes != 0) byte_counts.row.push_back(size() - 1), byte_counts.values.push_back(e.bytes);
  count_appended(e.kind, 1);
  return true;
}

void event_table::append_rows(event_rows const& r, std::vector<std::uint8_t>& kept) {
  auto const n = r.size();
  if (mark_kept(r, kept) < n) {  // rows left out: the others one at a time
    for (std::size_t i = 0; i < n; ++i)
      if (kept[i] != 0) append(event_at(r, i));
    return;
  }
  auto const first = size();
  append_column(start_ns, r.start);
  append_column(end_ns, r.end);
  append_column(kind, r.kinds, r.kind, n);
  append_column(subkind, r.subkind);
  append_column(rank, r.ranks, r.rank, n);
  append_column(device, r.device);
  append_column(stream, r.stream);
  append_column(name, r.name);
  append_column(category, r.categories, r.category, n);
  append_column(role, r.roles, r.role, n);
  for (std::size_t i = 0; i < n; ++i) append_correlation(r.correlation[i], first + i);
  for (std::size_t i = 0; i < r.bytes.size(); ++i)
    if (r.bytes[i] != 0)
      byte_counts.row.push_back(first + i), byte_counts.values.push_back(r.bytes[i]);
  if (r.kinds.empty()) {
    count_appended(r.kind, static_cast<std::int64_t>(n));
    return;
  }
  for (auto const k : r.kinds) count_appended(k, 1);
}

std::size_t event_table::mark_kept(event_rows const& r, std::vector<std::uint8_t>& kept) {
  kept.assign(r.size(), 0);
  std::size_t taken = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (!r.dropped.empty() && r.dropped[i] != 0) continue;
    auto const why = rejection(r.start[i], r.end[i], value_at(r.bytes, std::int64_t{0}, i));
    if (!why.empty()) {
      skip(why);
      continue;
    }
    kept[i] = 1, ++taken;
  }
  return taken;
}

void event_table::count_appended(event_kind k, std::int64_t n) noexcept {
  _inputs.back().events += n;
  _inputs.back().events_by_kind[static_cast<std::size_t>(k)] += n;
}

void event_table::append_correlation(std::int64_t c, std::size_t row) {
  if (c > wide_correlation && c <= std::numeric_limits<std::int32_t>::max()) {
    correlation.push_back(static_cast<std::int32_t>(c));
    return;
  }
  correlation.push_back(wide_correlation);
  wide_correlations.row.push_back(row), wide_correlations.values.push_back(c);
}

std::int64_t event_table::wide_correlation_of(std::size_t row) const noexcept {
  return *wide_correlations.find(row);  // the column's marker says the row has an entry
}

bool event_table::append_memory(memory_event const& e) {
  auto bytes_in_range = [](std::int64_t b) { return b > -bytes_limit && b < bytes_limit; };
  if (!time_in_range(e.time_ns) || !bytes_in_range(e.bytes) || !bytes_in_range(e.allocated) ||
      !bytes_in_range(e.reserved)) {
    skip(skip_memory_out_of_range);
    return false;
  }
  auto& m = memory;
  m.time_ns.push_back(e.time_ns);
  m.input.push_back(static_cast<std::int32_t>(_inputs.size() - 1));
  m.rank.push_back(e.rank);
  m.device.push_back(e.device);
  m.thread.push_back(e.thread);
  m.bytes.push_back(e.bytes);
  m.pool.push_back(e.pool);
  m.allocated.push_back(e.allocated);
  m.reserved.push_back(e.reserved);
  return true;
}

void event_table::add_launch_metrics(double blocks_per_sm, double est_occupancy_pct,
                                     std::size_t row) {
  launch_metrics.row.push_back(row);
  launch_metrics.blocks_per_sm.push_back(blocks_per_sm);
  launch_metrics.est_occupancy_pct.push_back(est_occupancy_pct);
}

bool is_host_range(event_table const& t, std::size_t row) noexcept {
  return t.kind[row] == event_kind::user_range && t.device[row] < 0 &&
         t.subkind[row] != static_cast<std::uint8_t>(range_style::mark);
}

std::size_t event_table::details_hash::operator()(device_details const& d) const noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](std::int64_t v) { h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ULL; };
  mix(d.context), mix(d.green_context);
  for (auto v : d.grid) mix(v);
  for (auto v : d.block) mix(v);
  mix(d.registers_per_thread), mix(d.static_shared_bytes), mix(d.dynamic_shared_bytes);
  mix(d.src_kind), mix(d.dst_kind);
  return static_cast<std::size_t>(h ^ (h >> 32));
}

namespace {

/// Appends `row` to a side table whose values are kept once each in `t.distinct`: the id of
/// `value` (the last row's when it repeats, as launches come in runs; else found in `ids` by
/// `key`, or added).
template <class Table, class Ids, class Key, class Value>
void add_interned(Table& t, Ids& ids, Key const& key, Value const& value, std::size_t row) {
  std::uint32_t id = 0;
  if (!t.values.empty() && t.distinct[t.values.back()] == value) {
    id = t.values.back();
  } else {
    auto const [at, added] = ids.try_emplace(key, static_cast<std::uint32_t>(t.distinct.size()));
    if (added) t.distinct.push_back(value);
    id = at->second;
  }
  t.row.push_back(row);
  t.values.push_back(id);
}

}  // namespace

void event_table::add_device_details(device_details const& d, std::size_t row) {
  add_interned(launch_details, _launch_detail_ids, d, d, row);
}

void event_table::add_launch_shape(launch_shape const& s, std::size_t row) {
  std::array<std::int32_t, 6> const key{s.grid[0],  s.grid[1],  s.grid[2],
                                        s.block[0], s.block[1], s.block[2]};
  add_interned(launch_shapes, _launch_shape_ids, key, s, row);
}

void event_table::add_range_source(range_source const& s, std::size_t row) {
  range_sources.row.push_back(row);
  range_sources.values.push_back(s);
}

void event_table::add_collective_args(collective_args const& a, std::size_t row) {
  collectives.row.push_back(row);
  collectives.values.push_back(a);
}

void event_table::add_host_stream(std::int64_t stream, std::size_t row) {
  host_streams.row.push_back(row);
  host_streams.values.push_back(stream);
}

void event_table::add_sync_wait(sync_wait const& w, std::size_t row) {
  sync_waits.row.push_back(row);
  sync_waits.values.push_back(w);
}

void event_table::skip(std::string_view reason, std::int64_t n) {
  _inputs.back().skipped[std::string(reason)] += n;
}

/// Row chunks of the passes over one input's ranks: plain loops over one column.
constexpr std::size_t rank_pass_chunk = std::size_t{1} << 16;

void event_table::finish_input(unsigned threads) {
  // Few ranks, in long runs (Kineto) or interleaved (nsys tables in start order).
  _inputs.back().ranks = distinct_integers<std::int32_t>(
      _current_input_first_row, rank.size(), threads, [&](std::size_t i) { return rank[i]; });
}

template <class MakeRenumbered>
void event_table::renumber_input(std::size_t k, MakeRenumbered const& make, unsigned threads) {
  auto& info = _inputs[k];
  auto const [first, end] = input_rows(k);
  item_chunks const chunks(first, end, threads, rank_pass_chunk);
  run_workers(chunks.workers, [&](unsigned w) {
    auto renumbered = make();
    auto const [from, to] = chunks[w];
    for (auto i = from; i < to; ++i) rank[i] = renumbered(rank[i]);
  });
  auto renumbered = make();
  auto const of_k =
      std::equal_range(memory.input.begin(), memory.input.end(), static_cast<std::int32_t>(k));
  for (auto it = of_k.first; it != of_k.second; ++it) {
    auto const j = static_cast<std::size_t>(it - memory.input.begin());
    memory.rank[j] = renumbered(memory.rank[j]);
  }
  decltype(info.gpu_contexts) contexts;
  for (auto& [key, ids] : info.gpu_contexts)
    contexts[{renumbered(key.first), key.second}] = std::move(ids);
  info.gpu_contexts = std::move(contexts);
  for (auto& o : info.profiler_overhead) o.rank = renumbered(o.rank);
  decltype(info.process_ids) processes;
  for (auto const& [r, pid] : info.process_ids) processes[renumbered(r)] = pid;
  info.process_ids = std::move(processes);
  for (auto& r : info.ranks) r = renumbered(r);
  std::sort(info.ranks.begin(), info.ranks.end());
}

void event_table::renumber_input_ranks(std::int32_t first, unsigned threads) {
  auto const ranks = _inputs.back().ranks;  // a copy: the input's own list is renumbered too
  auto const make = [&ranks, first] {
    return [&ranks, first](std::int32_t r) {
      auto const at = std::lower_bound(ranks.begin(), ranks.end(), r);
      return first + static_cast<std::int32_t>(at - ranks.begin());
    };
  };
  renumber_input(_inputs.size() - 1, make, threads);
}

void event_table::renumber_input_ranks(std::span<std::pair<std::int32_t, std::int32_t> const> to,
                                       unsigned threads) {
  // Few ranks, in runs or interleaved: each chunk's memo answers most rows.
  auto const make = [to] {
    return [to, recent = recent_integers<std::int32_t, std::int32_t>()](std::int32_t r) mutable {
      if (auto const* known = recent.find(r)) return *known;
      auto const at =
          std::lower_bound(to.begin(), to.end(), r,
                           [](auto const& entry, std::int32_t key) { return entry.first < key; });
      if (at == to.end() || at->first != r)
        throw std::logic_error("renumber_input_ranks: rank " + std::to_string(r) + " not mapped");
      recent.put(r, at->second);
      return at->second;
    };
  };
  renumber_input(_inputs.size() - 1, make, threads);
}

void event_table::shift_input_ranks(std::size_t k, std::int32_t offset) {
  renumber_input(
      k, [offset] { return [offset](std::int32_t r) { return r + offset; }; }, 1);
}

namespace {

/// Cuts the entries of rows n and after.
template <class T>
void cut_side_table(row_side_table<T>& side, std::size_t n) {
  auto const keep = static_cast<std::size_t>(
      std::lower_bound(side.row.begin(), side.row.end(), std::uint64_t{n}) - side.row.begin());
  side.row.resize(keep), side.values.resize(keep);
}

}  // namespace

void event_table::abandon_input() {
  auto const n = _current_input_first_row;
  auto cut = [n](auto& column) { column.resize(n); };
  cut(start_ns), cut(end_ns), cut(kind), cut(subkind), cut(rank), cut(device);
  cut(stream), cut(name), cut(category), cut(correlation), cut(role);
  auto& m = launch_metrics;
  auto const keep = static_cast<std::size_t>(
      std::lower_bound(m.row.begin(), m.row.end(), std::uint64_t{n}) - m.row.begin());
  m.row.resize(keep), m.blocks_per_sm.resize(keep), m.est_occupancy_pct.resize(keep);
  cut_side_table(launch_details, n), cut_side_table(launch_shapes, n);
  cut_side_table(range_sources, n), cut_side_table(collectives, n);
  cut_side_table(sync_waits, n);
  cut_side_table(host_streams, n);
  cut_side_table(byte_counts, n), cut_side_table(wide_correlations, n);
  auto const mem = _current_input_first_memory;
  auto cut_memory = [mem](auto& column) { column.resize(mem); };
  auto& me = memory;
  cut_memory(me.time_ns), cut_memory(me.input), cut_memory(me.rank), cut_memory(me.device);
  cut_memory(me.thread), cut_memory(me.bytes), cut_memory(me.pool), cut_memory(me.allocated);
  cut_memory(me.reserved);
  _inputs.pop_back();
  _input_first_row.pop_back();
}

namespace {

/// Moves the entries i with keep[i] to the front, in order, and cuts the rest.
template <class Column>
void compact(Column& column, std::span<std::uint8_t const> keep) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < column.size(); ++i)
    if (keep[i]) column[out++] = column[i];
  column.resize(out);
}

/// Keeps the entries of kept rows, renumbered by `new_index`.
template <class T>
void keep_side_table(row_side_table<T>& side, std::span<std::uint8_t const> keep_row,
                     std::vector<std::uint64_t> const& new_index) {
  std::vector<std::uint8_t> keep(side.size());
  for (std::size_t k = 0; k < side.size(); ++k) {
    keep[k] = keep_row[side.row[k]];
    side.row[k] = new_index[side.row[k]];
  }
  compact(side.row, keep), compact(side.values, keep);
}

}  // namespace

void event_table::keep(std::span<std::uint8_t const> keep_row,
                       std::span<std::uint8_t const> keep_memory) {
  if (keep_row.size() != size() || keep_memory.size() != memory.size())
    throw std::invalid_argument("event_table::keep: spans do not match the table");
  // Launch metrics name rows: map each kept row to its new index first.
  auto& lm = launch_metrics;
  std::vector<std::uint8_t> keep_metric(lm.size());
  // new_index[i]: the rows kept before row i, the new index of a kept row; one past the end too.
  std::vector<std::uint64_t> new_index(size() + 1, 0);
  for (std::size_t i = 0; i < size(); ++i) new_index[i + 1] = new_index[i] + keep_row[i];
  for (std::size_t k = 0; k < lm.size(); ++k) {
    keep_metric[k] = keep_row[lm.row[k]];
    lm.row[k] = new_index[lm.row[k]];
  }
  compact(lm.row, keep_metric), compact(lm.blocks_per_sm, keep_metric);
  compact(lm.est_occupancy_pct, keep_metric);
  keep_side_table(launch_details, keep_row, new_index);
  keep_side_table(launch_shapes, keep_row, new_index);
  keep_side_table(range_sources, keep_row, new_index);
  keep_side_table(collectives, keep_row, new_index);
  keep_side_table(sync_waits, keep_row, new_index);
  keep_side_table(host_streams, keep_row, new_index);
  keep_side_table(byte_counts, keep_row, new_index);
  keep_side_table(wide_correlations, keep_row, new_index);
  for (auto& first : _input_first_row) first = new_index[first];
  auto rows = [&](auto& column) { compact(column, keep_row); };
  rows(start_ns), rows(end_ns), rows(kind), rows(subkind), rows(rank), rows(device);
  rows(stream), rows(name), rows(category), rows(correlation), rows(role);
  auto events = [&](auto& column) { compact(column, keep_memory); };
  auto& m = memory;
  events(m.time_ns), events(m.input), events(m.rank), events(m.device), events(m.thread);
  events(m.bytes), events(m.pool), events(m.allocated), events(m.reserved);
  std::vector<std::vector<std::int32_t>> ranks(_inputs.size());
  for (std::size_t i = 0; i < size(); ++i) {
    auto& r = ranks[static_cast<std::size_t>(input_of(i))];
    if (r.empty() || r.back() != rank[i]) r.push_back(rank[i]);
  }
  for (std::size_t k = 0; k < _inputs.size(); ++k) {
    std::sort(ranks[k].begin(), ranks[k].end());
    ranks[k].erase(std::unique(ranks[k].begin(), ranks[k].end()), ranks[k].end());
    _inputs[k].ranks = std::move(ranks[k]);
  }
  _current_input_first_row = size();
  _current_input_first_memory = memory.size();
}

void event_table::reserve(std::size_t rows) {
  // Room for the rows at once, marked for huge pages before a reader writes it (the command line
  // marks its whole heap; a library's caller, the Python module, does not).
  auto grow = [rows](auto& column) {
    column.reserve(rows);
    advise_huge_pages(column.data(), column.capacity() * sizeof(column[0]));
  };
  grow(start_ns), grow(end_ns), grow(kind), grow(subkind), grow(rank), grow(device);
  grow(stream), grow(name), grow(category), grow(correlation), grow(role);
}

namespace {

template <class... Columns>
std::size_t stored_bytes(Columns const&... columns) {
  return ((columns.size() * sizeof(typename Columns::value_type)) + ... + 0);
}

template <class T>
std::size_t side_table_bytes(row_side_table<T> const& side) {
  return stored_bytes(side.row, side.values);
}

}  // namespace

event_table::footprint event_table::memory_footprint() const noexcept {
  footprint f;
  f.row_columns = stored_bytes(start_ns, end_ns, kind, subkind, rank, device, stream, name,
                               category, correlation, role);
  auto const& lm = launch_metrics;
  f.side_tables = side_table_bytes(byte_counts) + side_table_bytes(wide_correlations) +
                  side_table_bytes(launch_details) + stored_bytes(launch_details.distinct) +
                  side_table_bytes(launch_shapes) + stored_bytes(launch_shapes.distinct) +
                  side_table_bytes(range_sources) + side_table_bytes(collectives) +
                  side_table_bytes(sync_waits) + side_table_bytes(host_streams) +
                  stored_bytes(lm.row, lm.blocks_per_sm, lm.est_occupancy_pct);
  auto const& m = memory;
  f.memory_events = stored_bytes(m.time_ns, m.input, m.rank, m.device, m.thread, m.bytes, m.pool,
                                 m.allocated, m.reserved);
  f.strings = _strings.memory_bytes();
  return f;
}

std::int64_t event_table::bytes_of(std::size_t row) const noexcept {
  auto const* bytes = byte_counts.find(row);
  return bytes != nullptr ? *bytes : 0;
}

}  // namespace tracesweep
