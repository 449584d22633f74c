// SPDX-License-Identifier: Apache-2.0
// The columnar store and the string pool: rejected rows are counted, abandon_input forgets an
// input entirely, ranks are collected per input, interning is stable.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <tracesweep/event_table.hpp>
#include <tracesweep/string_pool.hpp>

#include "support/table_compare.hpp"

namespace event_table_test {

namespace ts = tracesweep;

namespace {

ts::event ev(std::int64_t s, std::int64_t e, std::int32_t rank = 0) {
  ts::event x;
  x.start_ns = s;
  x.end_ns = e;
  x.rank = rank;
  x.kind = ts::event_kind::kernel;
  return x;
}

/// The input of every row, by input_of.
std::vector<std::int32_t> inputs_of(ts::event_table const& t) {
  std::vector<std::int32_t> out;
  for (std::size_t i = 0; i < t.size(); ++i) out.push_back(t.input_of(i));
  return out;
}

void expect_columns_consistent(ts::event_table const& t) {
  auto const n = t.size();
  EXPECT_EQ(t.end_ns.size(), n);
  EXPECT_EQ(t.kind.size(), n);
  EXPECT_EQ(t.subkind.size(), n);
  EXPECT_EQ(t.rank.size(), n);
  EXPECT_EQ(t.device.size(), n);
  EXPECT_EQ(t.stream.size(), n);
  EXPECT_EQ(t.name.size(), n);
  EXPECT_EQ(t.category.size(), n);
  EXPECT_EQ(t.correlation.size(), n);
}

TEST(event_table, end_before_start_is_rejected_and_counted) {
  ts::event_table t;
  t.begin_input("a", "synthetic");
  EXPECT_TRUE(t.append(ev(10, 20)));
  EXPECT_TRUE(t.append(ev(30, 30)));  // zero-length is kept
  EXPECT_FALSE(t.append(ev(50, 49)));
  EXPECT_FALSE(t.append(ev(0, -1)));
  t.skip("no device", 3);
  t.finish_input();
  EXPECT_EQ(t.size(), 2u);
  expect_columns_consistent(t);
  auto const& info = t.inputs().at(0);
  EXPECT_EQ(info.events, 2);
  EXPECT_EQ(info.skipped.at(std::string(ts::skip_end_before_start)), 2);
  EXPECT_EQ(info.skipped.at("no device"), 3);
  EXPECT_EQ(t.start_ns[1], 30);
  EXPECT_EQ(t.end_ns[1], 30);
}

TEST(event_table, rows_carry_their_input_and_ranks_are_collected) {
  ts::event_table t;
  t.begin_input("a", "x");
  t.append(ev(0, 1, 3));
  t.append(ev(0, 1, 1));
  t.append(ev(0, 1, 3));
  t.finish_input();
  t.begin_input("b", "y");
  t.append(ev(0, 1, 7));
  t.finish_input();
  EXPECT_EQ(t.inputs()[0].ranks, (std::vector<std::int32_t>{1, 3}));
  EXPECT_EQ(t.inputs()[1].ranks, (std::vector<std::int32_t>{7}));
  EXPECT_EQ(inputs_of(t), (std::vector<std::int32_t>{0, 0, 0, 1}));
  EXPECT_EQ(t.inputs()[1].events, 1);
}

// An input past three chunks of 2^16 rows, after a first input: its ranks are collected and
// renumbered in chunks on three threads, a rank first seen in the last chunk included, as the
// rows say (brute force) and as on one thread.
TEST(event_table, ranks_of_a_long_input_are_collected_and_renumbered_on_threads) {
  auto make = [] {
    ts::event_table t;
    t.begin_input("first", "x");
    t.append(ev(0, 1, 42));
    t.finish_input();
    t.begin_input("long", "x");
    std::mt19937 rng(5);
    std::int32_t const ranks[] = {9, 3, 70000, 5};
    for (std::int64_t i = 0; i < 210'000; ++i)
      t.append(ev(i, i + 1, i > 200'000 && i % 7 == 0 ? 1'000'000 : ranks[rng() % 4]));
    return t;
  };
  auto one = make(), three = make();
  std::vector<std::int32_t> before(three.rank.begin() + 1, three.rank.end());
  one.finish_input(1);
  three.finish_input(3);
  auto want = before;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  EXPECT_EQ(three.inputs()[1].ranks, want);
  EXPECT_EQ(one.inputs()[1].ranks, want);
  std::vector<std::pair<std::int32_t, std::int32_t>> to;
  for (std::size_t k = 0; k < want.size(); ++k)
    to.emplace_back(want[k], static_cast<std::int32_t>(10 * (want.size() - k)));  // reversed
  one.renumber_input_ranks(to, 1);
  three.renumber_input_ranks(to, 3);
  EXPECT_EQ(three.rank[0], 42);  // the first input keeps its rank
  for (std::size_t i = 0; i < before.size(); ++i) {
    auto const at = std::lower_bound(want.begin(), want.end(), before[i]) - want.begin();
    ASSERT_EQ(three.rank[i + 1], static_cast<std::int32_t>(10 * (want.size() - at))) << i;
  }
  EXPECT_EQ(one.rank, three.rank);
  one.renumber_input_ranks(100, 1);
  three.renumber_input_ranks(100, 3);
  for (std::size_t i = 0; i < before.size(); ++i) {
    auto const at = std::lower_bound(want.begin(), want.end(), before[i]) - want.begin();
    ASSERT_EQ(three.rank[i + 1], static_cast<std::int32_t>(100 + want.size() - 1 - at)) << i;
  }
  EXPECT_EQ(one.rank, three.rank);
  EXPECT_EQ(three.inputs()[1].ranks, (std::vector<std::int32_t>{100, 101, 102, 103, 104}));
}

TEST(event_table, abandon_input_removes_its_rows_and_the_input) {
  ts::event_table t;
  t.begin_input("good", "x");
  t.append(ev(0, 1));
  t.finish_input();
  t.begin_input("bad", "x");
  for (int i = 0; i < 100; ++i) t.append(ev(i, i + 1, 5));
  t.append(ev(5, 1));
  t.abandon_input();
  ASSERT_EQ(t.inputs().size(), 1u);
  EXPECT_EQ(t.inputs()[0].path, "good");
  EXPECT_EQ(t.size(), 1u);
  expect_columns_consistent(t);
  // The next input starts cleanly after the abandoned one.
  t.begin_input("next", "x");
  t.append(ev(2, 3, 9));
  t.finish_input();
  EXPECT_EQ(inputs_of(t), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(t.inputs()[1].ranks, (std::vector<std::int32_t>{9}));
}

TEST(event_table, side_tables_follow_their_rows_through_keep_and_abandon) {
  ts::event_table t;
  t.begin_input("a", "x");
  for (int i = 0; i < 6; ++i) {
    t.append(ev(i, i + 1));
    if (i % 2 == 0) t.add_range_source({100 + i, i == 2}, t.size() - 1);
    if (i % 3 == 0) t.add_device_details({.context = i}, t.size() - 1);
  }
  t.finish_input();
  std::vector<std::uint8_t> const keep_row{1, 1, 0, 1, 1, 1}, keep_memory;
  t.keep(keep_row, keep_memory);
  // Rows 0,1,3,4,5 stay as 0..4: sources of rows 0 and 4 (now 0 and 3), details of 0 and 3.
  EXPECT_EQ(t.range_sources.row, (std::vector<std::uint64_t>{0, 3}));
  EXPECT_EQ(t.range_sources.values, (std::vector<ts::range_source>{{100, false}, {104, false}}));
  EXPECT_EQ(t.launch_details.row, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(t.launch_details.at(1).context, 3);
  t.begin_input("b", "x");
  t.append(ev(0, 1));
  t.add_range_source({7, true}, t.size() - 1);
  t.add_device_details({}, t.size() - 1);
  t.abandon_input();
  EXPECT_EQ(t.range_sources.size(), 2u);
  EXPECT_EQ(t.launch_details.size(), 2u);
}

TEST(event_table, launch_shapes_are_kept_once_and_follow_their_rows) {
  ts::event_table t;
  t.begin_input("a", "x");
  ts::launch_shape const wide{{64, 1, 1}, {256, 1, 1}}, narrow{{8, 1, 1}, {32, 1, 1}};
  for (int i = 0; i < 6; ++i) {
    t.append(ev(i, i + 1));
    if (i != 1)
      t.add_launch_shape(i % 3 == 0 ? wide : narrow, t.size() - 1);  // wide, -, narrow, wide, …
  }
  t.finish_input();
  // Five rows carry a shape; two configurations are kept, each once, in first-seen order.
  EXPECT_EQ(t.launch_shapes.row, (std::vector<std::uint64_t>{0, 2, 3, 4, 5}));
  EXPECT_EQ(t.launch_shapes.distinct, (std::vector<ts::launch_shape>{wide, narrow}));
  EXPECT_EQ(t.launch_shapes.values, (std::vector<std::uint32_t>{0, 1, 0, 1, 1}));
  EXPECT_EQ(t.launch_shapes.shape_of(1), nullptr);
  ASSERT_NE(t.launch_shapes.shape_of(3), nullptr);
  EXPECT_EQ(*t.launch_shapes.shape_of(3), wide);
  std::vector<std::uint8_t> const keep_row{1, 1, 0, 1, 1, 1}, keep_memory;
  t.keep(keep_row, keep_memory);
  // Rows 0,1,3,4,5 stay as 0..4.
  EXPECT_EQ(t.launch_shapes.row, (std::vector<std::uint64_t>{0, 2, 3, 4}));
  EXPECT_EQ(*t.launch_shapes.shape_of(2), wide);
  EXPECT_EQ(*t.launch_shapes.shape_of(3), narrow);
  t.begin_input("b", "x");
  t.append(ev(0, 1));
  t.add_launch_shape(narrow, t.size() - 1);
  t.abandon_input();
  EXPECT_EQ(t.launch_shapes.size(), 4u);
  t.begin_input("c", "x");
  t.append(ev(0, 1));
  t.add_launch_shape(wide, t.size() - 1);  // the configuration kept before: its index again
  t.finish_input();
  EXPECT_EQ(t.launch_shapes.values.back(), 0u);
  EXPECT_EQ(t.launch_shapes.distinct.size(), 2u);
}

TEST(event_table, launch_details_are_kept_once_and_follow_their_rows) {
  ts::event_table t;
  t.begin_input("a", "x");
  ts::device_details const kernel{.context = 1, .grid = {64, 1, 1}, .block = {256, 1, 1}};
  ts::device_details const copy{.context = 1, .src_kind = 0, .dst_kind = 2};
  ts::device_details other_context = kernel;
  other_context.context = 2;
  std::vector<ts::device_details> const given{kernel, copy, kernel, other_context, copy, copy};
  for (std::size_t i = 0; i < given.size(); ++i) {
    t.append(ev(static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 1));
    t.add_device_details(given[i], t.size() - 1);
  }
  t.finish_input();
  // Three distinct sets of details, each kept once, in first-seen order; every row reads its own.
  EXPECT_EQ(t.launch_details.distinct,
            (std::vector<ts::device_details>{kernel, copy, other_context}));
  EXPECT_EQ(t.launch_details.values, (std::vector<std::uint32_t>{0, 1, 0, 2, 1, 1}));
  for (std::size_t i = 0; i < given.size(); ++i) {
    EXPECT_EQ(t.launch_details.at(i), given[i]);
    ASSERT_NE(t.launch_details.details_of(i), nullptr);
    EXPECT_EQ(*t.launch_details.details_of(i), given[i]);
  }
  std::vector<std::uint8_t> const keep_row{0, 1, 1, 1, 0, 1}, keep_memory;
  t.keep(keep_row, keep_memory);
  EXPECT_EQ(t.launch_details.row, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(*t.launch_details.details_of(2), other_context);
  EXPECT_EQ(*t.launch_details.details_of(3), copy);
}

TEST(event_table, byte_counts_follow_their_rows_through_keep_and_abandon) {
  ts::event_table t;
  t.begin_input("a", "x");
  for (int i = 0; i < 6; ++i) {
    auto e = ev(i, i + 1);
    e.bytes = i % 2 == 1 ? 1000 + i : 0;  // rows 1, 3, 5 carry bytes
    t.append(e);
  }
  auto bad = ev(6, 7);
  bad.bytes = -1;  // rejected and counted: no entry
  EXPECT_FALSE(t.append(bad));
  t.finish_input();
  EXPECT_EQ(t.byte_counts.row, (std::vector<std::uint64_t>{1, 3, 5}));
  for (std::size_t i = 0; i < t.size(); ++i)
    EXPECT_EQ(t.bytes_of(i), i % 2 == 1 ? 1000 + static_cast<std::int64_t>(i) : 0) << i;
  std::vector<std::uint8_t> const keep_row{1, 1, 0, 0, 1, 1}, keep_memory;
  t.keep(keep_row, keep_memory);
  // Rows 0,1,4,5 stay as 0..3: bytes on the old rows 1 and 5, now 1 and 3.
  EXPECT_EQ(t.byte_counts.row, (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(t.bytes_of(1), 1001);
  EXPECT_EQ(t.bytes_of(2), 0);
  EXPECT_EQ(t.bytes_of(3), 1005);
  t.begin_input("b", "x");
  auto more = ev(0, 1);
  more.bytes = 9;
  t.append(more);
  EXPECT_EQ(t.bytes_of(4), 9);
  t.abandon_input();
  EXPECT_EQ(t.byte_counts.size(), 2u);
  EXPECT_EQ(t.bytes_of(4), 0);
}

TEST(event_table, inputs_keep_their_rows_through_keep_with_empty_inputs_between) {
  ts::event_table t;
  t.begin_input("empty first", "x");
  t.finish_input();
  t.begin_input("a", "x");
  for (int i = 0; i < 3; ++i) t.append(ev(i, i + 1, 1));
  t.finish_input();
  t.begin_input("empty between", "x");
  t.finish_input();
  t.begin_input("b", "x");
  for (int i = 0; i < 3; ++i) t.append(ev(i, i + 1, 2 + i));
  t.finish_input();
  EXPECT_EQ(inputs_of(t), (std::vector<std::int32_t>{1, 1, 1, 3, 3, 3}));
  EXPECT_EQ(t.input_rows(0), (std::pair<std::size_t, std::size_t>{0, 0}));
  EXPECT_EQ(t.input_rows(1), (std::pair<std::size_t, std::size_t>{0, 3}));
  EXPECT_EQ(t.input_rows(2), (std::pair<std::size_t, std::size_t>{3, 3}));
  EXPECT_EQ(t.input_rows(3), (std::pair<std::size_t, std::size_t>{3, 6}));
  // Drop the first row of each input and all but the last of b.
  std::vector<std::uint8_t> const keep_row{0, 1, 1, 0, 0, 1}, keep_memory;
  t.keep(keep_row, keep_memory);
  EXPECT_EQ(inputs_of(t), (std::vector<std::int32_t>{1, 1, 3}));
  EXPECT_EQ(t.input_rows(1), (std::pair<std::size_t, std::size_t>{0, 2}));
  EXPECT_EQ(t.input_rows(3), (std::pair<std::size_t, std::size_t>{2, 3}));
  EXPECT_EQ(t.inputs()[3].ranks, (std::vector<std::int32_t>{4}));
  // Every row of a dropped: b's row stays b's, and a new input starts after it.
  t.keep(std::vector<std::uint8_t>{0, 0, 1}, keep_memory);
  t.begin_input("c", "x");
  t.append(ev(0, 1));
  EXPECT_EQ(inputs_of(t), (std::vector<std::int32_t>{3, 4}));
  EXPECT_TRUE(t.inputs()[1].ranks.empty());
}

TEST(event_table, correlations_wider_than_32_bits_are_kept_exactly) {
  ts::event_table t;
  t.begin_input("a", "x");
  std::vector<std::int64_t> const ids{-1,
                                      0,
                                      7,
                                      std::int64_t{1} << 31,
                                      std::numeric_limits<std::int32_t>::max(),
                                      std::numeric_limits<std::int32_t>::min(),
                                      std::numeric_limits<std::int32_t>::min() + 1,
                                      std::int64_t{1} << 40,
                                      -(std::int64_t{1} << 40)};
  for (auto const id : ids) {
    auto e = ev(0, 1);
    e.correlation = id;
    t.append(e);
  }
  t.finish_input();
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(t.correlation_of(i), ids[i]) << i;
  EXPECT_EQ(t.wide_correlations.size(), 4u);  // 2^31, INT32_MIN (the marker), ±2^40
  std::vector<std::uint8_t> const keep_row{1, 0, 1, 0, 1, 1, 1, 1, 0}, keep_memory;
  t.keep(keep_row, keep_memory);
  std::vector<std::int64_t> kept;
  for (std::size_t i = 0; i < t.size(); ++i) kept.push_back(t.correlation_of(i));
  EXPECT_EQ(kept, (std::vector<std::int64_t>{-1, 7, ids[4], ids[5], ids[6], ids[7]}));
  t.begin_input("b", "x");
  auto wide = ev(0, 1);
  wide.correlation = std::int64_t{1} << 33;
  t.append(wide);
  EXPECT_EQ(t.correlation_of(6), std::int64_t{1} << 33);
  t.abandon_input();
  EXPECT_EQ(t.wide_correlations.size(), 2u);
}

TEST(event_table, a_row_takes_47_bytes_and_side_tables_only_where_rows_carry_them) {
  ts::event_table t;
  t.begin_input("a", "x");
  for (int i = 0; i < 100; ++i) {
    auto e = ev(i, i + 1);
    if (i < 10) e.bytes = 64;  // 10 byte counts: row + value, 16 bytes each
    if (i == 0) e.correlation = std::int64_t{1} << 40;  // one wide correlation: 16 bytes
    t.append(e);
  }
  t.finish_input();
  auto const f = t.memory_footprint();
  // The issue 12 budget: 48 bytes per event in columns and strings.
  EXPECT_EQ(f.row_columns, 100u * 47u);
  EXPECT_EQ(f.side_tables, 11u * 16u);
  EXPECT_EQ(f.memory_events, 0u);
  EXPECT_GT(f.strings, 0u);  // the empty string, interned at construction
  EXPECT_EQ(f.total(), f.row_columns + f.side_tables + f.strings);
}

TEST(string_pool, memory_grows_with_the_text_interned) {
  ts::string_pool p;
  auto const empty = p.memory_bytes();
  p.intern(std::string(1000, 'k'));
  EXPECT_GE(p.memory_bytes(), empty + 1000);
  auto const one = p.memory_bytes();
  p.intern(std::string(1000, 'k'));  // already there: no growth
  EXPECT_EQ(p.memory_bytes(), one);
}

TEST(string_pool, interning_is_stable_and_zero_is_empty) {
  ts::string_pool p;
  EXPECT_EQ(p.size(), 1u);
  EXPECT_EQ(p.at(0), "");
  EXPECT_EQ(p.intern(""), 0u);
  auto const a = p.intern("ncclKernel");
  auto const b = p.intern("gemm");
  EXPECT_NE(a, b);
  EXPECT_EQ(p.intern("ncclKernel"), a);
  EXPECT_EQ(p.find("gemm"), b);
  EXPECT_EQ(p.find("absent"), ts::string_pool::npos);
  // Views stay valid as the pool grows.
  auto const view = p.at(a);
  for (int i = 0; i < 10000; ++i) p.intern("name" + std::to_string(i));
  EXPECT_EQ(view, "ncclKernel");
  EXPECT_EQ(p.at(p.find("name9999")), "name9999");
  EXPECT_EQ(p.size(), 10003u);
  std::string const with_nul("a\0b", 3);
  auto const c = p.intern(with_nul);
  EXPECT_EQ(p.at(c), with_nul);
  EXPECT_NE(c, p.intern("a"));
}

}  // namespace

namespace {

/// A batch of `n` random rows, some of each kind the table rejects, with each constant column
/// given row by row where `per_row` says.
struct random_batch {
  std::vector<std::int64_t> start, end, stream, correlation, bytes;
  std::vector<ts::event_kind> kinds;
  std::vector<std::uint8_t> subkind, dropped;
  std::vector<std::int32_t> ranks, device;
  std::vector<ts::string_id> name, categories;
  std::vector<ts::event_role> roles;
  ts::event_rows rows;

  /// Names are ids 0 to `names`, interned in the tables before.
  static constexpr std::int64_t names = 50;

  random_batch(std::mt19937_64& rng, std::size_t n, bool per_row, bool bad) {
    auto pick = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    for (std::size_t i = 0; i < n; ++i) {
      auto s = pick(0, 1'000'000), e = s + pick(0, 1000), b = pick(0, 3) == 0 ? pick(1, 99) : 0;
      auto c = pick(0, 9) == 0 ? pick(std::int64_t{1} << 31, std::int64_t{1} << 40) : pick(-1, 500);
      if (bad) switch (pick(0, 9)) {
          case 0:
            e = s - 1;
            break;  // end before start
          case 1:
            s = -ts::time_limit_ns;
            break;  // out of range
          case 2:
            b = -1;
            break;  // negative bytes
          case 3:
            e = ts::time_limit_ns - 1, s = -ts::time_limit_ns + 1;
            break;  // too long
          default:
            break;
        }
      start.push_back(s), end.push_back(e), stream.push_back(pick(-1, 7));
      correlation.push_back(c), bytes.push_back(b);
      kinds.push_back(static_cast<ts::event_kind>(pick(0, ts::event_kind_count - 1)));
      subkind.push_back(static_cast<std::uint8_t>(pick(0, 3)));
      dropped.push_back(bad && pick(0, 7) == 0 ? 1 : 0);
      ranks.push_back(static_cast<std::int32_t>(pick(0, 3)));
      device.push_back(static_cast<std::int32_t>(pick(-1, 3)));
      name.push_back(static_cast<ts::string_id>(pick(0, names)));
      categories.push_back(static_cast<ts::string_id>(pick(0, 5)));
      roles.push_back(ts::event_role(static_cast<ts::category_role>(pick(0, 2)), pick(0, 1) == 1));
    }
    rows.start = start, rows.end = end, rows.subkind = subkind, rows.device = device;
    rows.stream = stream, rows.name = name, rows.correlation = correlation, rows.bytes = bytes;
    rows.kind = ts::event_kind::memcpy, rows.rank = 2, rows.category = 4;
    rows.role = ts::event_role(static_cast<ts::category_role>(1), true);
    if (per_row)
      rows.kinds = kinds, rows.ranks = ranks, rows.categories = categories, rows.roles = roles;
    if (bad) rows.dropped = dropped;
  }

  /// Row i as one event.
  [[nodiscard]] ts::event event_at(std::size_t i) const {
    auto const& r = rows;
    ts::event e;
    e.start_ns = start[i], e.end_ns = end[i], e.subkind = subkind[i], e.device = device[i];
    e.stream = stream[i], e.name = name[i], e.correlation = correlation[i], e.bytes = bytes[i];
    e.kind = r.kinds.empty() ? r.kind : kinds[i];
    e.rank = r.ranks.empty() ? r.rank : ranks[i];
    e.category = r.categories.empty() ? r.category : categories[i];
    e.role = r.roles.empty() ? r.role : roles[i];
    return e;
  }
};

/// The rows and what the table counted of them: the same.
void expect_same_tables(ts::event_table const& a, ts::event_table const& b) {
  ts::test::expect_same_rows(a, b);
  EXPECT_EQ(a.category, b.category);
  EXPECT_EQ(a.role.size(), b.role.size());
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    EXPECT_EQ(a.role[i], b.role[i]) << i;
    EXPECT_EQ(a.correlation_of(i), b.correlation_of(i)) << i;
  }
  EXPECT_EQ(a.wide_correlations.row, b.wide_correlations.row);
  ASSERT_EQ(a.inputs().size(), b.inputs().size());
  for (std::size_t k = 0; k < a.inputs().size(); ++k) {
    EXPECT_EQ(a.inputs()[k].events, b.inputs()[k].events);
    EXPECT_EQ(a.inputs()[k].events_by_kind, b.inputs()[k].events_by_kind);
    EXPECT_EQ(a.inputs()[k].skipped, b.inputs()[k].skipped);
  }
}

}  // namespace

TEST(event_table, append_rows_takes_and_skips_what_append_does_row_by_row) {
  std::mt19937_64 rng(31);
  for (bool const per_row : {false, true})
    for (bool const bad : {false, true}) {
      ts::event_table batched, one_by_one;
      for (auto* t : {&batched, &one_by_one}) {
        for (int k = 1; k <= random_batch::names; ++k) t->strings().intern("n" + std::to_string(k));
        t->begin_input("a", "synthetic");
        t->append(ev(5, 6));  // rows before the batches: their row numbers follow
      }
      std::vector<std::uint8_t> kept;
      for (std::size_t const n : {1000u, 0u, 1u, 3000u}) {
        random_batch const b(rng, n, per_row, bad);
        batched.append_rows(b.rows, kept);
        ASSERT_EQ(kept.size(), n);
        std::size_t dropped = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if (bad && b.dropped[i] != 0) {
            EXPECT_EQ(kept[i], 0) << i;
            ++dropped;
            continue;
          }
          EXPECT_EQ(kept[i] != 0, one_by_one.append(b.event_at(i))) << i;
        }
        if (bad && n > 100) {
          EXPECT_GT(dropped, 0u);
        }
      }
      expect_same_tables(batched, one_by_one);
      if (bad) {
        EXPECT_GT(batched.inputs()[0].skipped.size(), 3u);
      }
      EXPECT_GT(batched.wide_correlations.row.size(), 0u);
      EXPECT_GT(batched.size(), bad ? 1500u : 4000u);
    }
}

}  // namespace event_table_test
