// SPDX-License-Identifier: Apache-2.0
// compose_device_activity lists the device rows by (device × class, stream) for its first union:
// in chunks on the backend's host threads, the list is the one pass's, row for row (each chunk's
// streams numbered as the pass would, its rows after the earlier chunks'), and so are the
// results; a chunk with more streams of a device than lanes leaves it to the one pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <tuple>
#include <vector>

#include <tracesweep/backend.hpp>

namespace {

using namespace tracesweep;

/// The CPU backend with `threads` host threads, keeping the rows and groups of the first union
/// of rows it is asked for (the composition's union by device × class).
class listing_backend final : public backend {
 public:
  explicit listing_backend(unsigned threads) : _threads(threads), _cpu(make_cpu_backend(threads)) {}
  std::vector<std::size_t> rows;
  std::vector<group_id> groups;
  [[nodiscard]] std::string_view name() const noexcept override { return "listing"; }
  [[nodiscard]] unsigned host_threads() const noexcept override { return _threads; }

 protected:
  void do_sort_pairs(std::span<std::uint64_t> k, std::span<std::uint32_t> v, int bits) override {
    _cpu->sort_pairs(k, v, bits);
  }
  interval_union do_union_by_group(interval_view in) override { return _cpu->union_by_group(in); }
  interval_union do_union_of_rows(row_intervals const& in) override {
    if (rows.empty())
      rows.assign(in.rows.begin(), in.rows.end()), groups.assign(in.group.begin(), in.group.end());
    return _cpu->union_of_rows(in);
  }
  std::vector<gap> do_gap_scan(interval_union const& u, group_windows w, std::int64_t min_gap,
                               std::size_t top) override {
    return _cpu->gap_scan(u, w, min_gap, top);
  }
  std::vector<exact_stats> do_segmented_stats(std::span<std::uint32_t const> k,
                                              std::span<std::int64_t const> v,
                                              std::span<double const> q) override {
    return _cpu->segmented_stats(k, v, q);
  }
  std::vector<std::int64_t> do_intersection_by_group(interval_union const& a,
                                                     interval_union const& b,
                                                     std::size_t n) override {
    return _cpu->intersection_by_group(a, b, n);
  }

 private:
  unsigned _threads;
  std::unique_ptr<backend> _cpu;
};

/// Columns of a request: 800 k rows on three devices, some host rows between; device 0 on
/// streams 0-5, device 1 on large stream ids (no direct look-up), device 2 on a stream that
/// first comes in the last quarter of the rows; `extra_streams` rows from the middle are kernels
/// of device 0, each on a stream of its own (past the lanes when over 25). Rows 10 ns apart
/// start up to `jitter` ns late: below 10 every device's rows come in start order (as an nsys
/// table's), above it some row of a device starts before the one before it.
struct request_columns {
  std::vector<std::int64_t> start, end, stream;
  std::vector<event_kind> kind;
  std::vector<group_id> device;
  std::vector<std::uint32_t> name;
  std::vector<std::uint8_t> communication{0, 1};  // name 1 is communication

  explicit request_columns(int extra_streams, std::uint64_t jitter = 25) {
    std::mt19937_64 rng(99);
    std::size_t const n = 800'000;
    for (std::size_t i = 0; i < n; ++i) {
      // Device 0's own streams from the middle (the start of the second of two chunks).
      bool const extra = i >= n / 2 && i < n / 2 + static_cast<std::size_t>(extra_streams);
      auto const d = extra ? group_id{0} : static_cast<group_id>(rng() % 3);
      auto const r = extra ? 9 : rng() % 10;
      kind.push_back(r == 0   ? event_kind::api_call
                     : r == 1 ? event_kind::memcpy
                     : r == 2 ? event_kind::memset
                              : event_kind::kernel);
      device.push_back(d);  // (read for device rows only)
      std::int64_t s = d == 0   ? static_cast<std::int64_t>(rng() % 6)
                       : d == 1 ? 1'000'000 + static_cast<std::int64_t>(rng() % 4)
                                : 7;
      if (d == 2 && i > 3 * n / 4 && rng() % 2) s = 8;
      if (extra) s = 100 + static_cast<std::int64_t>(i);
      stream.push_back(s);
      auto const t = static_cast<std::int64_t>(i) * 10 + static_cast<std::int64_t>(rng() % jitter);
      start.push_back(t), end.push_back(t + 5 + static_cast<std::int64_t>(rng() % 30));
      name.push_back(static_cast<std::uint32_t>(rng() % 2));
    }
  }
  [[nodiscard]] activity_request request() const {
    activity_request r;
    r.start = start, r.end = end, r.kind = kind, r.device_group = device, r.name = name;
    r.communication = communication, r.device_count = 3, r.stream = stream;
    return r;
  }
};

/// What a composition listed for its first union, and its per-device results.
struct composed {
  std::vector<std::size_t> rows;
  std::vector<group_id> groups;
  activity_result result;
};

/// The composition on a backend of `threads` host threads (one backend alive at a time: a CPU
/// backend limits TBB's threads while it lives), given the device rows by (device, start) or not.
composed compose_on(unsigned threads, request_columns const& columns,
                    std::span<std::size_t const> order = {}) {
  listing_backend be(threads);
  auto request = columns.request();
  request.order = order;
  auto result = be.device_activity(request);
  return {std::move(be.rows), std::move(be.groups), std::move(result)};
}

void expect_listing_and_results_of_one_pass(request_columns const& columns) {
  auto const one = compose_on(1, columns);
  std::size_t device_rows = 0;
  for (auto const k : columns.kind) device_rows += is_device_activity(k) ? 1 : 0;
  ASSERT_EQ(one.rows.size(), device_rows);
  for (unsigned threads : {2u, 3u}) {
    SCOPED_TRACE(threads);
    auto const chunked = compose_on(threads, columns);
    EXPECT_EQ(chunked.rows, one.rows);
    EXPECT_EQ(chunked.groups, one.groups);
    EXPECT_EQ(chunked.result.devices, one.result.devices);
    EXPECT_EQ(chunked.result.gaps.size(), one.result.gaps.size());
  }
}

TEST(compose_listing, chunks_list_the_rows_as_one_pass_does) {
  expect_listing_and_results_of_one_pass(request_columns(0));
}

TEST(compose_listing, a_chunk_with_more_streams_than_lanes_leaves_it_to_one_pass) {
  expect_listing_and_results_of_one_pass(request_columns(40));
}

/// The same rows in a fixed shuffled order: no device's rows in start order any more.
request_columns shuffled(request_columns const& c) {
  std::vector<std::size_t> perm(c.kind.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(5));
  request_columns out = c;
  for (std::size_t k = 0; k < perm.size(); ++k) {
    auto const i = perm[k];
    out.start[k] = c.start[i], out.end[k] = c.end[i], out.stream[k] = c.stream[i];
    out.kind[k] = c.kind[i], out.device[k] = c.device[i], out.name[k] = c.name[i];
  }
  return out;
}

/// The device rows of `c` by (device, start), as the session's device order gives them.
std::vector<std::size_t> device_order(request_columns const& c) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < c.kind.size(); ++i)
    if (is_device_activity(c.kind[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(c.device[a], c.start[a]) < std::tuple(c.device[b], c.start[b]);
  });
  return order;
}

void expect_same_results(activity_result const& got, activity_result const& want) {
  EXPECT_EQ(got.devices, want.devices);
  ASSERT_EQ(got.gaps.size(), want.gaps.size());
  for (std::size_t k = 0; k < got.gaps.size(); ++k) {
    auto const& a = got.gaps[k];
    auto const& b = want.gaps[k];
    ASSERT_EQ(std::tuple(a.group, a.start, a.end), std::tuple(b.group, b.start, b.end)) << k;
  }
}

TEST(compose_listing, rows_in_start_order_are_not_listed_with_or_without_the_device_order) {
  // Every device's rows in start order: the unions come from one pass over the columns on each
  // thread count, nothing listed for the backend, whether the device order is given or not. The
  // results are those of the same rows shuffled, listed by their device order.
  request_columns const columns(0, 7);
  auto const mixed = shuffled(columns);
  auto const mixed_order = device_order(mixed);
  auto const listed = compose_on(1, mixed, mixed_order);
  ASSERT_EQ(listed.rows.size(), mixed_order.size());
  ASSERT_GT(listed.result.gaps.size(), 1000u);
  auto const order = device_order(columns);
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    auto const direct = compose_on(threads, columns);
    EXPECT_TRUE(direct.rows.empty());
    expect_same_results(direct.result, listed.result);
    auto const ordered = compose_on(threads, columns, order);
    EXPECT_TRUE(ordered.rows.empty());
    expect_same_results(ordered.result, listed.result);
    auto const mixed_listed = compose_on(threads, mixed, mixed_order);
    EXPECT_FALSE(mixed_listed.rows.empty());
    expect_same_results(mixed_listed.result, listed.result);
  }
}

}  // namespace
