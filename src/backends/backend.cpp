// SPDX-License-Identifier: Apache-2.0
// The public backend calls: each checks its arguments once, then runs the backend's
// implementation. Also the host composition of device_activity from the other primitives.
#include <tracesweep/backend.hpp>
#include <tracesweep/stream_lanes.hpp>
#include <tracesweep/task_threads.hpp>
#include <tracesweep/uninitialized_vector.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "backends/activity_classes.hpp"

namespace tracesweep {

namespace {

using namespace activity_classes;

void check_union(interval_union const& u, char const* call) {
  if (u.group.size() != u.size() || u.end.size() != u.size())
    throw std::invalid_argument(std::string(call) + ": union columns differ in size");
}

/// Start and end columns of one size, one value per taken row, and every row inside them.
void check_rows(std::span<std::int64_t const> start, std::span<std::int64_t const> end,
                std::span<std::size_t const> rows, std::size_t per_row, char const* call) {
  if (end.size() != start.size() || per_row != rows.size())
    throw std::invalid_argument(std::string(call) +
                                ": start and end, or the rows and their values, differ in size");
  for (auto const row : rows)
    if (row >= start.size())
      throw std::invalid_argument(std::string(call) + ": row " + std::to_string(row) +
                                  " past the columns' end");
}

/// The first item i of `chunks` for which bad(i), or the end of the items when none: each chunk
/// searched on its own thread.
template <class Bad>
std::size_t first_bad_item(item_chunks const& chunks, Bad const& bad) {
  auto const end = chunks.first + chunks.n;
  std::vector<std::size_t> found(chunks.workers, end);
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    for (auto i = b; i < e; ++i)
      if (bad(i)) {
        found[w] = i;
        return;
      }
  });
  return *std::min_element(found.begin(), found.end());
}

/// `r.order` holds every device activity row once, by (device, start).
void check_order(activity_request const& r, unsigned threads) {
  item_chunks const rows(0, r.kind.size(), threads);
  std::vector<std::size_t> counts(rows.workers, 0);
  run_workers(rows.workers, [&](unsigned w) {
    auto const [b, e] = rows[w];
    for (auto i = b; i < e; ++i) counts[w] += is_device_activity(r.kind[i]) ? 1 : 0;
  });
  std::size_t device_rows = 0;
  for (auto const c : counts) device_rows += c;
  auto const out_of_order = [&](std::size_t k) {
    auto const i = r.order[k];
    if (i >= r.kind.size() || !is_device_activity(r.kind[i])) return true;
    if (k == 0) return false;
    auto const p = r.order[k - 1];
    return std::pair(r.device_group[p], r.start[p]) > std::pair(r.device_group[i], r.start[i]);
  };
  item_chunks const order(0, r.order.size(), threads);
  if (r.order.size() != device_rows || first_bad_item(order, out_of_order) < r.order.size())
    throw std::invalid_argument(
        "device_activity: order is not every device row once by (device, start)");
}

}  // namespace

void backend::sort_pairs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                         int end_bit) {
  if (keys.size() != values.size())
    throw std::invalid_argument("sort_pairs: keys and values differ in size");
  do_sort_pairs(keys, values, end_bit);
}

interval_union backend::union_by_group(interval_view in) {
  if (in.end.size() != in.size() || in.group.size() != in.size())
    throw std::invalid_argument("union_by_group: start, end and group differ in size");
  return do_union_by_group(in);
}

interval_union backend::union_of_rows(row_intervals const& in) {
  check_rows(in.start, in.end, in.rows, in.group.size(), "union_of_rows");
  return do_union_of_rows(in);
}

interval_union backend::do_union_of_rows(row_intervals const& in) {
  std::vector<std::int64_t> start(in.rows.size()), end(in.rows.size());
  for (std::size_t k = 0; k < in.rows.size(); ++k)
    start[k] = in.start[in.rows[k]], end[k] = in.end[in.rows[k]];
  return do_union_by_group({start, end, in.group});
}

interval_union backend::union_of_row_groups(row_groups const& in) {
  if (in.end.size() != in.start.size() || in.group.size() != in.start.size())
    throw std::invalid_argument("union_of_row_groups: start, end and group differ in size");
  for (std::size_t i = 0; i < in.group.size(); ++i)
    if (in.group[i] != row_groups::no_group && in.group[i] >= in.groups)
      throw std::invalid_argument("union_of_row_groups: row " + std::to_string(i) + "'s group " +
                                  std::to_string(in.group[i]) + " is not below " +
                                  std::to_string(in.groups));
  return do_union_of_row_groups(in);
}

interval_union backend::do_union_of_row_groups(row_groups const& in) {
  std::vector<std::size_t> rows;
  std::vector<group_id> group;
  for (std::size_t i = 0; i < in.group.size(); ++i)
    if (in.group[i] != row_groups::no_group) rows.push_back(i), group.push_back(in.group[i]);
  return do_union_of_rows({in.start, in.end, rows, group});
}

std::vector<gap> backend::gap_scan(interval_union const& u, group_windows windows,
                                   std::int64_t min_gap, std::size_t top_per_group) {
  if (windows.end.size() != windows.start.size())
    throw std::invalid_argument("gap_scan: window start and end differ in size");
  check_union(u, "gap_scan");
  for (std::size_t i = 0; i < u.size(); ++i)
    if (u.group[i] >= windows.start.size() || (i > 0 && u.group[i] < u.group[i - 1]))
      throw std::invalid_argument(
          "gap_scan: union not sorted by group, or a group has no window (group " +
          std::to_string(u.group[i]) + ")");
  return do_gap_scan(u, windows, min_gap, top_per_group);
}

std::vector<exact_stats> backend::segmented_stats(std::span<std::uint32_t const> keys,
                                                  std::span<std::int64_t const> values,
                                                  std::span<double const> quantiles) {
  if (values.size() != keys.size())
    throw std::invalid_argument("segmented_stats: keys and values differ in size");
  for (double const q : quantiles)
    if (!(q >= 0.0 && q <= 1.0))
      throw std::invalid_argument("segmented_stats: quantile outside [0, 1]");
  return do_segmented_stats(keys, values, quantiles);
}

std::vector<exact_stats> backend::duration_stats(row_durations const& in,
                                                 std::span<double const> quantiles) {
  if (in.every_row) {
    if (!in.rows.empty() || in.end.size() != in.start.size() || in.keys.size() != in.start.size())
      throw std::invalid_argument(
          "duration_stats: every row takes no rows and a key for each row of the columns");
  } else {
    check_rows(in.start, in.end, in.rows, in.keys.size(), "duration_stats");
  }
  for (double const q : quantiles)
    if (!(q >= 0.0 && q <= 1.0))
      throw std::invalid_argument("duration_stats: quantile outside [0, 1]");
  return do_duration_stats(in, quantiles);
}

std::vector<exact_stats> backend::do_duration_stats(row_durations const& in,
                                                    std::span<double const> quantiles) {
  std::vector<std::int64_t> durations(in.keys.size());
  for (std::size_t k = 0; k < in.keys.size(); ++k)
    durations[k] = in.end[in.row(k)] - in.start[in.row(k)];
  return do_segmented_stats(in.keys, durations, quantiles);
}

std::vector<std::int64_t> backend::intersection_by_group(interval_union const& a,
                                                         interval_union const& b,
                                                         std::size_t group_count) {
  for (auto const* u : {&a, &b}) {
    check_union(*u, "intersection_by_group");
    for (group_id const g : u->group)
      if (g >= group_count)
        throw std::invalid_argument("intersection_by_group: group " + std::to_string(g) +
                                    " >= group_count");
  }
  return do_intersection_by_group(a, b, group_count);
}

activity_result backend::device_activity(activity_request const& r) {
  std::size_t const n = r.start.size();
  if (r.end.size() != n || r.kind.size() != n || r.device_group.size() != n || r.name.size() != n ||
      (!r.stream.empty() && r.stream.size() != n))
    throw std::invalid_argument(
        "device_activity: start, end, kind, device_group, name and stream differ in size");
  auto const no_device = [&](std::size_t i) {
    return is_device_activity(r.kind[i]) && r.device_group[i] >= r.device_count;
  };
  if (auto const i = first_bad_item(item_chunks(0, n, host_threads()), no_device); i < n)
    throw std::invalid_argument("device_activity: row " + std::to_string(i) +
                                " is device activity without a device id below " +
                                std::to_string(r.device_count));
  if (!r.order.empty()) check_order(r, host_threads());
  return do_device_activity(r);
}

activity_result backend::do_device_activity(activity_request const& r) {
  return compose_device_activity(*this, r);
}

namespace {

/// Rows of the request's columns taken for a union, each with its group: 12 bytes a row where
/// gathering the intervals themselves took 20.
using taken_rows = rows_in_runs;

/// Every device row in its (device × class) group, in row order; the windows in `rows`.
taken_rows classed_rows(activity_request const& r, std::vector<device_activity_row>& rows) {
  std::size_t n = 0;
  for (auto const k : r.kind) n += is_device_activity(k) ? 1 : 0;
  taken_rows out;
  out.rows.reserve(n), out.group.reserve(n);
  for (std::size_t i = 0; i < r.start.size(); ++i) {
    if (!is_device_activity(r.kind[i])) continue;
    out.rows.push_back(i), out.group.push_back(classed_group(r, i));
    widen_window(r, i, rows);
  }
  return out;
}

/// Whether classed_rows_by_stream's counters stay small beside the rows.
bool few_stream_runs(activity_request const& r) {
  return !r.stream.empty() &&
         r.device_count <= (std::size_t{1} << 20) / (class_count * stream_lanes::per_group);
}

/// One chunk of rows as classed_rows_by_stream sees it: its devices' streams numbered as they
/// first come (lanes of its own), each row's run under that numbering, and the rows per run and
/// the devices' windows of the chunk.
struct stream_chunk {
  std::size_t first = 0, end = 0;
  std::vector<std::vector<std::int64_t>> streams;  ///< per device, in the order they came
  uninitialized_vector<group_id> run;              ///< per device row of the chunk, in row order
  std::vector<std::size_t> count;                  ///< rows per run
  std::vector<device_activity_row> windows;
  bool overflow = false;  ///< a device showed more streams than the lanes (some share the last)
};

void scan_stream_chunk(activity_request const& r, stream_chunk& c, std::size_t runs) {
  stream_lanes lanes(r.device_count);
  c.streams.resize(r.device_count), c.count.assign(runs, 0), c.windows.resize(r.device_count);
  std::size_t n = 0;
  for (auto i = c.first; i < c.end; ++i) n += is_device_activity(r.kind[i]) ? 1 : 0;
  c.run.resize(n);
  for (std::size_t i = c.first, k = 0; i < c.end; ++i) {
    if (!is_device_activity(r.kind[i])) continue;
    auto const g = r.device_group[i];
    auto const lane = lanes.lane(g, r.stream[i]);
    if (lane == stream_lanes::shared_lane) c.overflow = true;
    if (lane == c.streams[g].size()) c.streams[g].push_back(r.stream[i]);
    c.run[k] = classed_group(r, i) * stream_lanes::per_group + lane;
    ++c.count[c.run[k++]];
    widen_window(r, i, c.windows);
  }
}

/// The same rows as classed_rows, listed by (group, stream) and in row order within a stream (a
/// stable counting sort, as list_by_run, without a list of the device rows first): where each
/// stream's rows come in start order, the keys of a union over them come as one ascending run per
/// stream of a group, which the union merges. Made on `workers` contiguous chunks of the rows in
/// parallel: each chunk's lanes are mapped to those one pass in row order gives (each device's
/// streams numbered as they first come, chunk after chunk), and each chunk places its rows after
/// the earlier chunks' rows of the same run. One chunk is that one pass. nullopt when a chunk
/// past the first sees more streams of a device than there are lanes (which of them share the
/// last lane is the one pass's to say).
std::optional<taken_rows> classed_rows_by_stream(activity_request const& r,
                                                 std::vector<device_activity_row>& rows,
                                                 unsigned workers) {
  auto const runs = r.device_count * class_count * stream_lanes::per_group;
  auto const bounds = item_chunks::exactly(0, r.kind.size(), workers);
  std::vector<stream_chunk> chunks(workers);
  run_workers(workers, [&](unsigned w) {
    std::tie(chunks[w].first, chunks[w].end) = bounds[w];
    scan_stream_chunk(r, chunks[w], runs);
  });
  // Each chunk's lanes as the one pass numbers them; the runs' places, chunk after chunk.
  stream_lanes lanes(r.device_count);
  std::vector<std::vector<group_id>> lane_of(workers);  // chunk lane of device g at g × per_group
  for (unsigned w = 0; w < workers; ++w) {
    if (w > 0 && chunks[w].overflow) return std::nullopt;
    lane_of[w].assign(r.device_count * stream_lanes::per_group, 0);
    for (std::size_t g = 0; g < r.device_count; ++g)
      for (std::size_t l = 0; l < chunks[w].streams[g].size(); ++l)
        lane_of[w][g * stream_lanes::per_group + l] =
            lanes.lane(static_cast<group_id>(g), chunks[w].streams[g][l]);
  }
  // A chunk's run (device × class, its lane) as the one pass numbers it.
  auto const run_of = [&](unsigned w, group_id local) {
    auto const group = local / stream_lanes::per_group;
    auto const device = group / class_count;
    return group * stream_lanes::per_group +
           lane_of[w][device * stream_lanes::per_group + local % stream_lanes::per_group];
  };
  std::vector<std::size_t> next(runs * workers, 0);  // (run, chunk) → its first place
  for (unsigned w = 0; w < workers; ++w)
    for (group_id local = 0; local < runs; ++local)
      next[std::size_t{run_of(w, local)} * workers + w] += chunks[w].count[local];
  std::size_t total = 0;
  for (auto& at : next) total += std::exchange(at, total);
  taken_rows out;
  out.rows.resize(total), out.group.resize(total);
  run_workers(workers, [&](unsigned w) {
    auto const& c = chunks[w];
    for (std::size_t i = c.first, k = 0; i < c.end; ++i) {
      if (!is_device_activity(r.kind[i])) continue;
      auto const run = run_of(w, c.run[k++]);
      auto const at = next[std::size_t{run} * workers + w]++;
      out.rows[at] = i, out.group[at] = run / stream_lanes::per_group;
    }
  });
  for (auto const& c : chunks) widen_windows(rows, c.windows);
  return out;
}

/// The rows by (device × class, stream): in chunks on the backend's host threads where there are
/// enough rows, else (or when the chunks cannot say) in one pass.
taken_rows classed_by_stream(activity_request const& r, std::vector<device_activity_row>& rows,
                             unsigned threads) {
  auto const workers = item_chunks(0, r.kind.size(), threads).workers;
  if (workers > 1)
    if (auto chunked = classed_rows_by_stream(r, rows, workers)) return std::move(*chunked);
  return *classed_rows_by_stream(r, rows, 1);
}

/// Per name id, 1 where kernels bear it, when the kernels' statistics may be taken over every
/// row of the columns, each under its name, the other rows' names dropped afterwards: no other
/// row bears a kernel's name and the other rows are few beside the kernels (their durations are
/// sorted too). Empty otherwise.
std::vector<std::uint8_t> names_of_kernels_alone(activity_request const& r, std::size_t kernels) {
  if (r.start.size() - kernels > kernels / 8) return {};
  std::uint32_t most = 0;
  for (auto const id : r.name) most = std::max(most, id);
  std::vector<std::uint8_t> used(std::size_t{most} + 1, 0);  // 1: a kernel's, 2: another row's
  for (std::size_t i = 0; i < r.name.size(); ++i)
    used[r.name[i]] |= r.kind[i] == event_kind::kernel ? 1 : 2;
  if (std::find(used.begin(), used.end(), std::uint8_t{3}) != used.end()) return {};
  return used;
}

/// The kernels of each chunk of rows, counted on the threads; each device's added to its
/// kernel_count.
std::vector<std::size_t> count_kernels(activity_request const& r, item_chunks const& chunks,
                                       std::vector<device_activity_row>& rows) {
  std::vector<std::size_t> per_chunk(chunks.workers, 0);
  std::vector<std::vector<std::int64_t>> per_device(chunks.workers);
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    auto& of_device = per_device[w];
    of_device.assign(r.device_count, 0);
    for (auto i = b; i < e; ++i)
      if (r.kind[i] == event_kind::kernel) ++per_chunk[w], ++of_device[r.device_group[i]];
  });
  for (auto const& of_device : per_device)
    for (std::size_t d = 0; d < r.device_count; ++d) rows[d].kernel_count += of_device[d];
  return per_chunk;
}

/// Segmented statistics of the kernels' durations by name id; `per_chunk` the kernels of each
/// of `chunks` (count_kernels).
std::vector<exact_stats> kernel_stats(backend& be, activity_request const& r,
                                      item_chunks const& chunks,
                                      std::vector<std::size_t> const& per_chunk) {
  std::size_t kernels = 0;
  for (auto const c : per_chunk) kernels += c;
  if (auto const used = names_of_kernels_alone(r, kernels); !used.empty()) {
    // No list of the kernels (12 bytes a kernel).
    auto all = be.duration_stats({r.start, r.end, {}, r.name, true}, {});
    std::erase_if(all, [&](exact_stats const& s) { return used[s.key] != 1; });
    return all;
  }
  // Listed in row order, each chunk from its first place on its own thread.
  uninitialized_vector<std::uint32_t> names(kernels);
  uninitialized_vector<std::int64_t> durations(kernels);
  std::vector<std::size_t> place(chunks.workers, 0);
  for (unsigned w = 1; w < chunks.workers; ++w) place[w] = place[w - 1] + per_chunk[w - 1];
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    for (auto i = b, at = place[w]; i < e; ++i)
      if (r.kind[i] == event_kind::kernel)
        names[at] = r.name[i], durations[at] = r.end[i] - r.start[i], ++at;
  });
  return be.segmented_stats(names, durations, {});
}

/// The same rows sorted by (group, start), from `r.order` (by device, start) by a stable
/// counting pass over the classes: a union over them has nothing left to sort.
taken_rows classed_rows_in_order(activity_request const& r,
                                 std::vector<device_activity_row>& rows) {
  std::vector<std::size_t> next(r.device_count * class_count + 1, 0);
  // Counted in row order (the order holds the same rows): sequential reads, not the order's.
  for (std::size_t i = 0; i < r.kind.size(); ++i)
    if (is_device_activity(r.kind[i])) ++next[classed_group(r, i) + 1];
  for (std::size_t g = 1; g < next.size(); ++g) next[g] += next[g - 1];
  taken_rows out;
  out.rows.resize(r.order.size()), out.group.resize(r.order.size());
  for (auto const i : r.order) {
    auto const g = classed_group(r, i);
    auto const at = next[g]++;
    out.rows[at] = i, out.group[at] = g;
    widen_window(r, i, rows);
  }
  return out;
}

}  // namespace

activity_result compose_device_activity(backend& be, activity_request const& r) {
  std::size_t const devices = r.device_count;
  activity_result out;
  out.devices.resize(devices);
  auto& rows = out.devices;

  // Kernel durations by name first, so that their columns (if any) are gone before the unions'.
  // Columns are sized once: growing by doubling copied each and faulted its pages in twice.
  item_chunks const chunks(0, r.kind.size(), be.host_threads());
  out.kernels = kernel_stats(be, r, chunks, count_kernels(r, chunks, rows));

  // One union per device × class; the classes are disjoint, so every other union is a linear
  // merge of theirs: kernels = communication ∪ computation, activity = kernels ∪ copies. Each
  // union is let go as soon as nothing needs it (unless the caller keeps them): at most two
  // unions of every row are held at once. Where each group's rows come in start order (nsys
  // tables), one pass over the columns on the threads makes them, whether or not the caller
  // gave the device order (gathering by it is one pass on one thread, in an order the memory
  // does not prefetch); else the rows are listed by group (the windows on the way) for the
  // backend's union to sort or merge.
  auto by_class = unions_in_row_order(r, rows, be.host_threads());
  if (!by_class) {
    taken_rows const classed = !r.order.empty()     ? classed_rows_in_order(r, rows)
                               : few_stream_runs(r) ? classed_by_stream(r, rows, be.host_threads())
                                                    : classed_rows(r, rows);
    by_class = be.union_of_rows({r.start, r.end, classed.rows, classed.group});
  }
  auto const class_busy = busy_per_group(*by_class, devices * class_count);
  auto comm_union = union_class(*by_class, class_count, comm_class);
  auto comp_union = union_class(*by_class, class_count, comp_class);
  auto copies = merge_unions(union_class(*by_class, class_count, copy_class),
                             union_class(*by_class, class_count, set_class));
  by_class.reset();
  auto const overlap = be.intersection_by_group(comm_union, comp_union, devices);
  bool const keep_computation = r.keep_unions || r.keep_computation_union;
  auto kernel_union = keep_computation ? merge_unions(comm_union, comp_union)
                                       : merge_unions(std::move(comm_union), std::move(comp_union));
  auto const kernel_busy = busy_per_group(kernel_union, devices);
  auto activity_union = r.keep_unions ? merge_unions(kernel_union, copies)
                                      : merge_unions(std::move(kernel_union), std::move(copies));
  copies = {};
  auto const busy = busy_per_group(activity_union, devices);
  for (std::size_t g = 0; g < devices; ++g) {
    auto const of = [&](activity_class c) { return class_busy[g * class_count + c]; };
    rows[g].busy = busy[g];
    rows[g].kernel_busy = kernel_busy[g];
    rows[g].memcpy_busy = of(copy_class);
    rows[g].memset_busy = of(set_class);
    rows[g].communication = of(comm_class);
    rows[g].computation = of(comp_class);
    rows[g].overlap = overlap[g];
  }

  // Idle gaps of the activity union inside each device's window.
  std::vector<std::int64_t> window_start(devices), window_end(devices);
  for (std::size_t g = 0; g < devices; ++g) {
    window_start[g] = rows[g].window_start;
    window_end[g] = rows[g].window_end;
  }
  out.gaps = be.gap_scan(activity_union, group_windows{window_start, window_end}, r.min_gap,
                         r.top_per_group);
  if (r.keep_unions) {  // no longer needed here: moved, not copied
    out.activity_union = std::move(activity_union);
    out.kernel_union = std::move(kernel_union);
    out.communication_union = std::move(comm_union);
  }
  if (keep_computation) out.computation_union = std::move(comp_union);
  out.computation_union_kept = keep_computation;
  return out;
}

}  // namespace tracesweep
