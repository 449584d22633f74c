// SPDX-License-Identifier: Apache-2.0
// find_duplicates against a brute-force oracle: every row equal in all its fields to an earlier
// row with a correlation id is a later copy, whatever the thread count; rows that share a
// correlation (a CUDA graph's kernels) or lack one are never copies unless equal in full.
#include <gtest/gtest.h>

#include <tracesweep/event_table.hpp>

#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "ingest/duplicate_events.hpp"

namespace tracesweep {
namespace duplicate_events_test {

/// The later copies, by a map of every field the finder compares.
std::vector<std::size_t> copies_by_brute_force(event_table const& t) {
  std::map<std::tuple<int, string_id, std::int64_t, std::int64_t, std::int32_t, std::int32_t,
                      std::int64_t, std::int64_t>,
           std::size_t>
      first_seen;
  std::vector<std::size_t> copies;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.correlation_of(i) == -1) continue;
    auto const key =
        std::make_tuple(static_cast<int>(t.kind[i]), t.name[i], t.start_ns[i], t.end_ns[i],
                        t.rank[i], t.device[i], t.stream[i], t.correlation_of(i));
    if (!first_seen.emplace(key, i).second) copies.push_back(i);
  }
  return copies;
}

/// `rows` random events, a tenth of them then appended again (some twice), at random places;
/// correlation ids below `id_span`, ranks below `ranks`; or ids that rise or fall with the row
/// (each chunk of rows with ids above or below all the ones before it).
enum class id_trend { random, rising, falling };
event_table table_with_copies(std::size_t rows, std::uint64_t seed, std::uint64_t id_span = 50'000,
                              std::uint32_t ranks = 1, id_trend trend = id_trend::random) {
  std::mt19937_64 rng(seed);
  event_table t;
  t.begin_input("copies.json", "synthetic");
  string_id const names[] = {t.strings().intern("gemm"), t.strings().intern("cudaLaunchKernel"),
                             t.strings().intern("aten::mm")};
  event_kind const kinds[] = {event_kind::kernel, event_kind::api_call, event_kind::cpu_op};
  std::vector<event> made;
  for (std::size_t i = 0; i < rows; ++i) {
    event e;
    auto const k = rng() % 3;
    e.kind = kinds[k], e.name = names[k];
    e.start_ns = static_cast<std::int64_t>(rng() % 1'000'000'000);
    e.end_ns = e.start_ns + static_cast<std::int64_t>(rng() % 1000);
    e.device = e.kind == event_kind::kernel ? static_cast<std::int32_t>(rng() % 2) : -1;
    e.stream = 7;
    e.rank = static_cast<std::int32_t>(rng() % ranks);
    // A third without a correlation; a graph's kernels share one (correlation 5).
    auto const c = rng() % 6;
    e.correlation = c < 2 ? -1 : c == 2 ? 5 : static_cast<std::int64_t>(rng() % id_span);
    if (trend != id_trend::random && c >= 2) {
      auto const step = static_cast<std::int64_t>(trend == id_trend::rising ? i : rows - i);
      e.correlation = c == 2 ? 8 * (step / 64) : 4 * step + static_cast<std::int64_t>(rng() % 8);
    }
    // Ids past the column (kept in wide_correlations) mixed with small ones.
    if (id_span >= (std::uint64_t{1} << 40) && c > 2 && rng() % 2)
      e.correlation = static_cast<std::int64_t>(rng() % 1'000);
    if (rng() % 10 == 0 && !made.empty()) e = made[rng() % made.size()];  // a copy
    if (rng() % 100 == 0 && !made.empty()) {                              // a copy of a copy
      e = made[rng() % made.size()];
      made.push_back(e), t.append(e);
    }
    made.push_back(e);
    t.append(e);
  }
  t.finish_input();
  return t;
}

TEST(DuplicateEvents, LaterCopiesEqualBruteForceAtAnyThreadCount) {
  // (200 k rows: chunks of their own from 2 threads on, each with ids of every (kind, rank))
  for (std::size_t rows : {10, 5'000, 200'000}) {
    auto const t = table_with_copies(rows, rows);
    auto const expected = copies_by_brute_force(t);
    if (rows >= 5'000) {
      EXPECT_GT(expected.size(), rows / 20) << rows;
    }
    for (unsigned threads : {1u, 2u, 4u}) {
      auto const found = detail::find_duplicates(t, threads);
      EXPECT_EQ(found.rows, expected) << rows << " rows, " << threads << " threads";
      EXPECT_TRUE(found.memory_events.empty());
    }
  }
}

TEST(DuplicateEvents, IdsRisingOrFallingFromChunkToChunk) {
  for (auto const trend : {id_trend::rising, id_trend::falling}) {
    auto const t = table_with_copies(200'000, 3, 50'000, 2, trend);
    auto const expected = copies_by_brute_force(t);
    EXPECT_GT(expected.size(), 10'000u);
    for (unsigned threads : {1u, 2u, 3u})
      EXPECT_EQ(detail::find_duplicates(t, threads).rows, expected) << threads << " threads";
  }
}

// Correlation ids too scattered for a bit each (the hashed search), half beyond the column (kept
// in wide_correlations) and half small, or over more (kind, rank) pairs than the bit search takes.
TEST(DuplicateEvents, ScatteredIdsWideIdsAndManyRanksToo) {
  struct shape {
    std::uint64_t id_span;
    std::uint32_t ranks;
  };
  for (auto const [id_span, ranks] : {shape{2'000'000'000, 1}, shape{std::uint64_t{1} << 40, 1},
                                      shape{3'000'000'000, 1}, shape{1'000, 300}}) {
    auto const t = table_with_copies(20'000, id_span + ranks, id_span, ranks);
    auto const expected = copies_by_brute_force(t);
    EXPECT_GT(expected.size(), 1'000u) << id_span;
    for (unsigned threads : {1u, 2u})
      EXPECT_EQ(detail::find_duplicates(t, threads).rows, expected)
          << id_span << " ids, " << ranks << " ranks, " << threads << " threads";
  }
}

TEST(DuplicateEvents, RowsSharingACorrelationAreNotCopies) {
  event_table t;
  t.begin_input("graph.json", "synthetic");
  auto const name = t.strings().intern("gemm");
  for (int i = 0; i < 20'000; ++i) {
    event e;
    e.kind = event_kind::kernel, e.name = name, e.device = 0, e.stream = 7, e.correlation = 9;
    e.start_ns = 1000 * i, e.end_ns = 1000 * i + 500;
    t.append(e);
  }
  t.finish_input();
  EXPECT_EQ(detail::find_duplicates(t, 1).size(), 0u);
}

}  // namespace duplicate_events_test

}  // namespace tracesweep
