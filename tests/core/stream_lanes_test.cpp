// SPDX-License-Identifier: Apache-2.0
// stream_lanes: dense lanes per group in the order streams first come, one look-up for small
// ids and a search for others, one shared lane past the last; list_by_run: a stable counting
// sort of rows by run, each with its run's group.
#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include <tracesweep/stream_lanes.hpp>

namespace stream_lanes_test {

using namespace tracesweep;

TEST(stream_lanes, lanes_are_dense_per_group_in_the_order_streams_come) {
  stream_lanes lanes(1);  // groups past the first are added as they come
  EXPECT_EQ(lanes.lane(0, 7), 0u);
  EXPECT_EQ(lanes.lane(0, 1'000'000), 1u);  // past the directly indexed ids
  EXPECT_EQ(lanes.lane(0, -3), 2u);
  EXPECT_EQ(lanes.lane(0, 7), 0u);
  EXPECT_EQ(lanes.lane(0, 1'000'000), 1u);
  EXPECT_EQ(lanes.lane(3, 1'000'000), 0u);  // another group numbers its own
  EXPECT_EQ(lanes.lane(3, 7), 1u);
  EXPECT_EQ(lanes.run(3, 7), 3 * stream_lanes::per_group + 1);
  EXPECT_EQ(lanes.lane(0, -3), 2u);
}

TEST(stream_lanes, a_stream_asked_again_keeps_its_lane_whatever_was_asked_between) {
  stream_lanes lanes(2);
  EXPECT_EQ(lanes.lane(0, 1'000'000), 0u);
  EXPECT_EQ(lanes.lane(0, 1'000'000), 0u);
  EXPECT_EQ(lanes.lane(1, 2'000'000), 0u);  // another group's last look-up is its own
  EXPECT_EQ(lanes.lane(0, 2'000'000), 1u);
  EXPECT_EQ(lanes.lane(0, 2'000'000), 1u);
  EXPECT_EQ(lanes.lane(0, 1'000'000), 0u);
  EXPECT_EQ(lanes.lane(1, 1'000'000), 1u);
  EXPECT_EQ(lanes.lane(1, 2'000'000), 0u);
}

TEST(stream_lanes, streams_past_the_last_lane_share_it) {
  stream_lanes lanes(2);
  for (std::int64_t s = 0; s < stream_lanes::shared_lane; ++s)
    EXPECT_EQ(lanes.lane(1, s * 1000), static_cast<group_id>(s));
  EXPECT_EQ(lanes.lane(1, 5), stream_lanes::shared_lane);
  EXPECT_EQ(lanes.lane(1, 123'456'789), stream_lanes::shared_lane);
  EXPECT_EQ(lanes.lane(1, 123'456'789), stream_lanes::shared_lane);
  EXPECT_EQ(lanes.lane(1, 2000), 2u);  // the others keep theirs
  EXPECT_EQ(lanes.lane(0, 5), 0u);
}

TEST(for_each_union_batch, batches_take_whole_groups_up_to_an_eighth_of_the_rows) {
  using batch = std::tuple<std::size_t, std::size_t, std::size_t>;
  auto batches_of = [](std::vector<std::size_t> const& rows_of) {
    std::vector<batch> out;
    for_each_union_batch(rows_of, [&](std::size_t lo, std::size_t hi, std::size_t rows) {
      out.emplace_back(lo, hi, rows);
    });
    return out;
  };
  // 2^16 rows a batch at least: small jobs come in one.
  EXPECT_EQ(batches_of({10, 20, 30}), (std::vector<batch>{{0, 3, 60}}));
  EXPECT_EQ(batches_of({}), std::vector<batch>{});
  // 2^20 rows: 2^17 a batch; a larger group alone; an empty group rides along where it fits.
  std::size_t const k = std::size_t{1} << 16;
  EXPECT_EQ(batches_of({k, k, k, 5 * k, 0, k, 3 * k, 0, 4 * k}),
            (std::vector<batch>{{0, 2, 2 * k},
                                {2, 3, k},
                                {3, 4, 5 * k},
                                {4, 6, k},
                                {6, 7, 3 * k},
                                {7, 8, 0},
                                {8, 9, 4 * k}}));
  EXPECT_EQ(rows_per_union_batch(std::size_t{1} << 30), std::size_t{1} << 21);
}

TEST(list_by_run, rows_come_run_by_run_in_their_order_with_their_groups) {
  std::vector<std::size_t> const rows{10, 11, 12, 13, 14, 15, 16};
  std::vector<group_id> const run{2, 0, 2, 1, 0, 2, 1};
  std::vector<group_id> const run_group{5, 4, 5};  // runs 0 and 2 are of group 5
  auto const listed = list_by_run(rows, run, run_group);
  EXPECT_EQ(std::vector<std::size_t>(listed.rows.begin(), listed.rows.end()),
            (std::vector<std::size_t>{11, 14, 13, 16, 10, 12, 15}));
  EXPECT_EQ(std::vector<group_id>(listed.group.begin(), listed.group.end()),
            (std::vector<group_id>{5, 5, 4, 4, 5, 5, 5}));
  auto const of = groups_of_runs(2);
  ASSERT_EQ(of.size(), 2 * stream_lanes::per_group);
  EXPECT_EQ(of[stream_lanes::per_group - 1], 0u);
  EXPECT_EQ(of[stream_lanes::per_group], 1u);
  EXPECT_EQ(of.back(), 1u);
}

TEST(list_by_run, rows_whose_groups_come_in_start_order_are_listed_by_group_alone) {
  // Rows 10-16 of the columns start at 0, 3, 1, 5, 4, 7, 6; runs 0 and 2 are of group 5.
  std::vector<std::int64_t> start(20, 0);
  std::vector<std::int64_t> const at{0, 3, 1, 5, 4, 7, 6};
  for (std::size_t k = 0; k < at.size(); ++k) start[10 + k] = at[k];
  std::vector<std::size_t> const rows{10, 11, 12, 13, 14, 15, 16};
  std::vector<group_id> const run{2, 0, 2, 1, 0, 2, 1};
  std::vector<group_id> const run_group{5, 4, 5};
  // Group 5 has rows 10, 11, 12, 14, 15 (starts 0, 3, 1, 4, 7): out of order, so by run.
  auto const by_run = list_by_run(rows, run, run_group, start);
  EXPECT_EQ(std::vector<std::size_t>(by_run.rows.begin(), by_run.rows.end()),
            (std::vector<std::size_t>{11, 14, 13, 16, 10, 12, 15}));
  // Row 12 later (start 3): group 5 in order (0, 3, 3, 4, 7), group 4 (5, 6): by group.
  start[12] = 3;
  auto const by_group = list_by_run(rows, run, run_group, start);
  EXPECT_EQ(std::vector<std::size_t>(by_group.rows.begin(), by_group.rows.end()),
            (std::vector<std::size_t>{13, 16, 10, 11, 12, 14, 15}));
  EXPECT_EQ(std::vector<group_id>(by_group.group.begin(), by_group.group.end()),
            (std::vector<group_id>{4, 4, 5, 5, 5, 5, 5}));
}

}  // namespace stream_lanes_test
