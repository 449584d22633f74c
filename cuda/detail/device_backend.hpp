// SPDX-License-Identifier: Apache-2.0
// The backend interface on top of the device algorithms, for any Context (the CUDA one, or
// the host twin the CPU-compiled tests use). device_activity runs device-resident
// (activity.cuh) when its working set fits the memory budget; otherwise it is composed from the
// primitives, which split work that does not fit into chunks, run each on the device and stitch
// the results on the host (planning.hpp). Arguments were checked by the public backend calls.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <thrust/system_error.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/error.hpp>

#include "cuda/detail/activity.cuh"
#include "cuda/detail/held_columns.hpp"
#include "cuda/detail/planning.hpp"
#include "cuda/detail/primitives.cuh"

namespace tracesweep::cuda_detail {

/// Upper bounds of the device bytes each primitive allocates per input row: buffers of the
/// algorithms in primitives.cuh plus a margin for the per-row part of the temporary storage of
/// the radix sort (about 1 byte a row, radix_sort_temp_bytes) and of Thrust's scans, selections
/// and reductions (tile states, well under 1 byte a row). The fixed part of that temporary
/// storage is the context's temporary_reserve, kept out of the row budget.
struct bytes_per_row {
  static constexpr std::size_t sort = 24 + 16;
  static constexpr std::size_t union_ = 20 + 4 + 16 + 16 + 8 + 4 + 20 + 8 + 1 + 20 + 8 + 32;
  static constexpr std::size_t gaps = 20 + 4 + 28 + 24 + 8 + 4 + 20 + 8 + 20 + 32;
  /// inputs 12, order 4, sorted key/value 12, reduce-by-key output 4 + 48, margin 16; then
  /// per group (at most one per row) 16 bytes for each of the 4 + 2q order-statistic ranks.
  static constexpr std::size_t stats(std::size_t quantiles) {
    return 96 + 16 * (4 + 2 * quantiles);
  }
  static constexpr std::size_t intersection = 20 + 20 + 16 + 8 + 12 + 32;
  /// union_of_rows on held columns: the row indices (8) besides a union of the gathered rows.
  static constexpr std::size_t rows_union = union_ + 8;
};

/// Chunks never exceed what the device algorithms' int item counts (and 32-bit row indices)
/// can address: 2^31 − 1 rows.
inline constexpr std::size_t max_chunk_rows = (std::size_t{1} << 31) - 1;

template <class Context>
class device_backend final : public backend {
 public:
  /// `memory_limit` bytes of device memory per call, temporary storage included (0 = no
  /// limit); at most `max_rows` rows per device pass (lowered by tests to cross chunk
  /// boundaries on small inputs).
  device_backend(Context ctx, std::size_t memory_limit, std::string name,
                 std::size_t max_rows = max_chunk_rows)
      : _ctx(std::move(ctx)),
        _limit(memory_limit),
        _name(std::move(name)),
        _max_rows(std::clamp<std::size_t>(max_rows, 1, max_chunk_rows)),
        _held(held_share(memory_limit)) {}

  [[nodiscard]] std::string_view name() const noexcept override { return _name; }
  [[nodiscard]] Context& context() noexcept { return _ctx; }
  [[nodiscard]] Context const& context() const noexcept { return _ctx; }
  /// Device passes run so far (one per chunk, one per device-resident device_activity); tests
  /// use it to check that chunking happened.
  [[nodiscard]] std::size_t chunks_run() const noexcept { return _chunks; }
  /// Whether device_activity(r) runs device-resident: its working set fits the budget.
  [[nodiscard]] bool activity_fits(activity_request const& r) const noexcept {
    return r.start.size() <= _max_rows &&
           (_limit == 0 || resident_activity_bytes(r.start.size(), r.communication.size(),
                                                   r.device_count) <= row_budget());
  }

 private:
  // The backend boundary: what the device throws leaves as device_error (guarded).
  void do_sort_pairs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                     int end_bit) override {
    guarded([&] { sort_pairs_impl(keys, values, end_bit); });
  }
  interval_union do_union_by_group(interval_view in) override {
    return guarded([&] { return union_impl(in); });
  }
  interval_union do_union_of_rows(row_intervals const& in) override {
    return guarded([&] { return rows_union_impl(in); });
  }
  std::vector<exact_stats> do_duration_stats(row_durations const& in,
                                             std::span<double const> quantiles) override {
    return guarded([&] { return duration_stats_impl(in, quantiles); });
  }
  void do_hold(std::span<std::byte const> column) override { _held.hold(column); }
  void do_release(std::span<std::byte const> column) noexcept override { _held.release(column); }
  std::vector<gap> do_gap_scan(interval_union const& u, group_windows windows, std::int64_t min_gap,
                               std::size_t top_per_group) override {
    return guarded([&] { return gap_scan_impl(u, windows, min_gap, top_per_group); });
  }
  std::vector<exact_stats> do_segmented_stats(std::span<std::uint32_t const> keys,
                                              std::span<std::int64_t const> values,
                                              std::span<double const> quantiles) override {
    return guarded([&] { return stats_impl(keys, values, quantiles); });
  }
  std::vector<std::int64_t> do_intersection_by_group(interval_union const& a,
                                                     interval_union const& b,
                                                     std::size_t group_count) override {
    return guarded([&] { return intersection_impl(a, b, group_count); });
  }
  activity_result do_device_activity(activity_request const& r) override {
    return guarded([&] { return activity_impl(r); });
  }

  void sort_pairs_impl(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                       int end_bit) {
    auto const s = _ctx.stream();
    std::size_t const n = keys.size();
    if (n == 0) return;
    end_bit = std::clamp(end_bit, 1, 64);
    auto const runs = split_rows(n, chunk_rows(bytes_per_row::sort, n));
    for (auto const& r : runs) {
      ++_chunks;
      auto k = _ctx.template alloc<std::uint64_t>(r.size(), s);
      auto v = _ctx.template alloc<std::uint32_t>(r.size(), s);
      _ctx.upload(k.data(), keys.data() + r.begin, r.size(), s);
      _ctx.upload(v.data(), values.data() + r.begin, r.size(), s);
      _ctx.sort_pairs(k, v, end_bit, s);
      _ctx.download(keys.data() + r.begin, k.data(), r.size(), s);
      _ctx.download(values.data() + r.begin, v.data(), r.size(), s);
    }
    merge_sorted_runs(keys, values, runs);
  }

  interval_union union_impl(interval_view in) {
    std::size_t const n = in.size();
    auto const runs = split_rows(n, chunk_rows(bytes_per_row::union_, n));
    std::vector<interval_union> parts;
    for (auto const& r : runs) {
      ++_chunks;
      parts.push_back(union_on_device(_ctx, slice(in, r), _ctx.stream()));
    }
    if (parts.empty()) return {};
    return stitch_unions(parts);
  }

  /// On the held copies of the start and end columns when there are: the rows and their groups
  /// go up, the device gathers the intervals (chunks of rows stitched on the host). Otherwise
  /// the rows are gathered on the host (backend's default).
  interval_union rows_union_impl(row_intervals const& in) {
    auto const s = _ctx.stream();
    auto const start = _held.find(_ctx, in.start, s);
    auto const end = start ? _held.find(_ctx, in.end, s) : std::nullopt;
    if (!start || !end) return backend::do_union_of_rows(in);
    std::size_t const n = in.rows.size();
    std::vector<interval_union> parts;
    for (auto const& r : split_rows(n, chunk_rows(bytes_per_row::rows_union, n))) {
      ++_chunks;
      parts.push_back(union_of_device_rows(_ctx, s, *start, *end,
                                           in.rows.subspan(r.begin, r.size()),
                                           in.group.subspan(r.begin, r.size())));
    }
    if (parts.empty()) return {};
    return stitch_unions(parts);
  }

  /// On the held copies of the start and end columns when there are and the rows fit one
  /// pass: the rows and keys go up, the durations are computed on the device. Otherwise the
  /// durations are computed on the host (backend's default, chunked by whole keys).
  std::vector<exact_stats> duration_stats_impl(row_durations const& in,
                                               std::span<double const> quantiles) {
    auto const s = _ctx.stream();
    std::size_t const n = in.keys.size();
    auto const start = _held.find(_ctx, in.start, s);
    auto const end = start ? _held.find(_ctx, in.end, s) : std::nullopt;
    // (The budget left for rows is known once the held copies are made.)
    bool const one_pass = n <= chunk_rows(bytes_per_row::stats(quantiles.size()) + 8, n);
    if (!start || !end || !one_pass) return backend::do_duration_stats(in, quantiles);
    ++_chunks;
    return duration_stats_on_device(_ctx, s, *start, *end, in.rows, in.keys, quantiles);
  }

  std::vector<gap> gap_scan_impl(interval_union const& u, group_windows windows,
                                 std::int64_t min_gap, std::size_t top_per_group) {
    std::vector<gap> all = trailing_gaps(u, windows, min_gap);
    auto const view = u.view();
    for (auto const& r : split_rows(u.size(), chunk_rows(bytes_per_row::gaps, u.size()))) {
      ++_chunks;
      // Each chunk also takes the member before it, for the previous end.
      std::size_t const from = r.begin > 0 ? r.begin - 1 : 0;
      auto part = gaps_on_device(_ctx, _ctx.stream(), slice(view, row_range{from, r.end}),
                                 r.begin - from, windows, min_gap, top_per_group);
      all.insert(all.end(), part.begin(), part.end());
    }
    return select_top_gaps(std::move(all), top_per_group);
  }

  std::vector<exact_stats> stats_impl(std::span<std::uint32_t const> keys,
                                      std::span<std::int64_t const> values,
                                      std::span<double const> quantiles) {
    std::size_t const n = keys.size();
    std::size_t const cap = chunk_rows(bytes_per_row::stats(quantiles.size()), n);
    if (n <= cap) {
      ++_chunks;
      return stats_on_device(_ctx, _ctx.stream(), keys, values, quantiles);
    }
    // Whole keys per chunk: scatter the rows by chunk (a stable counting sort on the host).
    auto const plan = plan_key_chunks(keys, cap);
    std::vector<std::size_t> offset(plan.size() + 1, 0);
    for (std::size_t c = 0; c < plan.size(); ++c) offset[c + 1] = offset[c] + plan[c].rows;
    std::vector<std::uint32_t> k(n);
    std::vector<std::int64_t> v(n);
    {
      std::vector<std::size_t> next(offset.begin(), offset.end() - 1);
      for (std::size_t i = 0; i < n; ++i) {
        auto const it = std::upper_bound(
            plan.begin(), plan.end(), keys[i],
            [](std::uint32_t key, key_chunk const& c) { return key < c.first_key; });
        std::size_t const c = static_cast<std::size_t>(it - plan.begin()) - 1;
        k[next[c]] = keys[i];
        v[next[c]] = values[i];
        ++next[c];
      }
    }
    std::vector<exact_stats> out;
    for (std::size_t c = 0; c < plan.size(); ++c) {
      std::span<std::uint32_t const> const ck(k.data() + offset[c], plan[c].rows);
      std::span<std::int64_t const> const cv(v.data() + offset[c], plan[c].rows);
      if (plan[c].rows <= cap) {
        ++_chunks;
        auto part = stats_on_device(_ctx, _ctx.stream(), ck, cv, quantiles);
        out.insert(out.end(), std::make_move_iterator(part.begin()),
                   std::make_move_iterator(part.end()));
      } else {
        out.push_back(oversized_group_stats(plan[c].first_key, cv, quantiles));
      }
    }
    return out;
  }

  std::vector<std::int64_t> intersection_impl(interval_union const& a, interval_union const& b,
                                              std::size_t group_count) {
    std::vector<std::int64_t> out(group_count, 0);
    if (a.size() == 0 || b.size() == 0) return out;
    std::size_t const cap = chunk_rows(bytes_per_row::intersection, a.size() + b.size());
    // Half the budget for a slice of a, half for the matching part of b.
    std::size_t const half = std::max<std::size_t>(cap / 2, 1);
    auto const av = a.view();
    auto const bv = b.view();
    for (auto const& r : split_rows(a.size(), a.size() + b.size() <= cap ? a.size() : half)) {
      auto const need = overlapping_rows(b, a.group[r.begin], a.start[r.begin], a.group[r.end - 1],
                                         a.end[r.end - 1]);
      std::size_t const b_cap = a.size() + b.size() <= cap ? b.size() : half;
      for (auto const& br : split_rows(need.size(), b_cap)) {
        ++_chunks;
        intersection_on_device(_ctx, _ctx.stream(), slice(av, r),
                               slice(bv, row_range{need.begin + br.begin, need.begin + br.end}),
                               out);
      }
    }
    return out;
  }

  /// Device-resident when the working set fits the budget, else the chunked primitives.
  activity_result activity_impl(activity_request const& r) {
    if (!activity_fits(r)) return compose_device_activity(*this, r);
    ++_chunks;
    return activity_on_device(_ctx, _ctx.stream(), r, &_held);
  }

  /// Runs `f`. When it throws, the context abandons the downloads it staged (their host
  /// destinations are gone) and the errors Thrust raises (thrust::system_error from a failed
  /// launch or copy, std::bad_alloc from a failed temporary allocation) become device_error;
  /// device_error itself (cuda_error, the twin's injected failures) and the analysis' own
  /// errors pass through.
  template <class F>
  auto guarded(F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (...) {
      _ctx.abandon(_ctx.stream());
      rethrow_as_device_error();
    }
  }

  [[noreturn]] static void rethrow_as_device_error() {
    try {
      throw;
    } catch (device_error const&) {
      throw;
    } catch (thrust::system_error const& e) {
      bool const oom = std::string_view(e.what()).find("out of memory") != std::string_view::npos;
      throw device_error(std::string("device: ") + e.what() +
                             (oom ? "; a lower device memory limit processes the trace in "
                                    "smaller chunks"
                                  : ""),
                         oom);
    } catch (std::bad_alloc const& e) {
      throw device_error(std::string("device: out of memory (") + e.what() +
                             "); a lower device memory limit processes the trace in smaller "
                             "chunks",
                         true);
    }
  }

  [[nodiscard]] std::size_t chunk_rows(std::size_t per_row, std::size_t rows) const noexcept {
    return std::min(rows_per_chunk(row_budget(), per_row, rows), _max_rows);
  }

  /// The bytes of the limit that rows may take: the limit less the temporary storage that does
  /// not grow with the rows (Context::temporary_reserve); 0 = no limit. A limit below the
  /// reserve leaves 1 byte: one row per chunk, and the limit cannot be kept.
  [[nodiscard]] std::size_t row_budget() const noexcept {
    if (_limit == 0) return 0;
    std::size_t const taken = Context::temporary_reserve + _held.resident_bytes();
    return _limit > taken ? _limit - taken : 1;
  }

  /// Held columns may take half of what rows may (0 = no limit): the calls keep the other half.
  [[nodiscard]] static std::size_t held_share(std::size_t limit) noexcept {
    if (limit == 0) return 0;
    return std::max<std::size_t>(
        (limit > Context::temporary_reserve ? limit - Context::temporary_reserve : 1) / 2, 1);
  }

  static interval_view slice(interval_view v, row_range r) {
    return {v.start.subspan(r.begin, r.size()), v.end.subspan(r.begin, r.size()),
            v.group.subspan(r.begin, r.size())};
  }

  /// A key with more rows than fit the budget: its values are sorted on the device in chunks
  /// (sort_pairs, merged on the host) and the exact parts are read from the sorted values.
  exact_stats oversized_group_stats(std::uint32_t key, std::span<std::int64_t const> values,
                                    std::span<double const> quantiles) {
    std::int64_t const lo = *std::min_element(values.begin(), values.end());
    std::vector<std::uint64_t> sorted(values.size());
    std::vector<std::uint32_t> index(values.size(), 0);
    std::uint64_t hi_norm = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      sorted[i] = normalise(values[i], lo);
      hi_norm = std::max(hi_norm, sorted[i]);
    }
    sort_pairs(sorted, index, bits_for(hi_norm));
    moments m;
    for (auto const x : values) m = moments_plus_fn{}(m, to_moments_fn{}(x));
    auto value_at = [&](std::uint64_t rank) {
      return static_cast<std::int64_t>(sorted[rank] + static_cast<std::uint64_t>(lo));
    };
    std::uint64_t const c = values.size();
    exact_stats s = exact_from_moments(key, m);
    s.min = value_at(0);
    s.max = value_at(c - 1);
    s.median_lo = value_at((c - 1) / 2);
    s.median_hi = value_at(c / 2);
    for (double q : quantiles) {
      auto const r = ranks_for_quantile(q, c);
      s.quantile_lo.push_back(value_at(r.lo));
      s.quantile_hi.push_back(value_at(r.hi));
    }
    return s;
  }

  Context _ctx;
  std::size_t _limit;
  std::string _name;
  std::size_t _max_rows;
  std::size_t _chunks = 0;
  held_columns<Context> _held;
};

}  // namespace tracesweep::cuda_detail
