// SPDX-License-Identifier: Apache-2.0
// The device algorithms compiled by g++ (Thrust CPP system, host twin of the CUDA context)
// on random inputs: against brute-force oracles built independently (bitmaps of covered
// nanoseconds, sorted value lists), against the CPU backend bit for bit, with and without a
// memory limit that forces chunking.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/error.hpp>

#include "cuda/detail/device_backend.hpp"
#include "cuda/detail/host_context.hpp"
#include "tests/cpu/oracles.hpp"

namespace tracesweep::cuda_detail {
namespace {

using twin_backend = device_backend<host_context>;

/// Limits below are this much above the rows' budget: the twin's fixed temporary storage.
constexpr std::size_t reserve = host_context::temporary_reserve;

struct random_intervals {
  std::vector<std::int64_t> start, end;
  std::vector<group_id> group;
  [[nodiscard]] interval_view view() const { return {start, end, group}; }
};

random_intervals make_intervals(std::mt19937_64& rng, std::size_t n, group_id groups,
                                std::int64_t span, std::int64_t max_len, std::int64_t base) {
  random_intervals r;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t const s =
        base + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span));
    std::int64_t const len =
        static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_len + 1));
    r.start.push_back(s);
    r.end.push_back(s + len);
    r.group.push_back(static_cast<group_id>(rng() % groups));
  }
  return r;
}

/// Bitmap oracle: covered[g][t - base] for t in [base, base + width).
std::vector<std::vector<bool>> coverage(interval_view v, group_id groups, std::int64_t base,
                                        std::int64_t width) {
  std::vector<std::vector<bool>> c(groups, std::vector<bool>(static_cast<std::size_t>(width)));
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::int64_t t = v.start[i]; t < v.end[i]; ++t)
      c[v.group[i]][static_cast<std::size_t>(t - base)] = true;
  return c;
}

interval_union union_from_bitmap(std::vector<std::vector<bool>> const& c, std::int64_t base) {
  interval_union u;
  for (group_id g = 0; g < c.size(); ++g) {
    for (std::size_t t = 0; t < c[g].size(); ++t) {
      if (!c[g][t]) continue;
      std::size_t e = t;
      while (e < c[g].size() && c[g][e]) ++e;
      u.group.push_back(g);
      u.start.push_back(base + static_cast<std::int64_t>(t));
      u.end.push_back(base + static_cast<std::int64_t>(e));
      t = e;
    }
  }
  return u;
}

void expect_same_union(interval_union const& a, interval_union const& b) {
  EXPECT_EQ(a.group, b.group);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
}

/// The CPU reference backend, or null while it is not built into this tree.
std::unique_ptr<backend> cpu_backend(unsigned threads = 2) {
  try {
    return make_cpu_backend(threads);
  } catch (std::logic_error const&) {
    return nullptr;
  }
}

TEST(DeviceTwin, SortPairsIsAStableSortWithinTheBitRange) {
  std::mt19937_64 rng(1);
  for (std::size_t limit : {std::size_t{0}, reserve + 4096}) {
    for (int end_bit : {1, 7, 20, 42, 64}) {
      std::size_t const n = 3000;
      std::vector<std::uint64_t> keys(n);
      std::vector<std::uint32_t> values(n);
      for (std::size_t i = 0; i < n; ++i) {
        keys[i] = end_bit == 64 ? rng() : rng() & ((std::uint64_t{1} << end_bit) - 1);
        if (i % 3 == 0 && i > 0) keys[i] = keys[i - 1];  // duplicates test stability
        values[i] = static_cast<std::uint32_t>(i);
      }
      std::vector<std::pair<std::uint64_t, std::uint32_t>> expect;
      for (std::size_t i = 0; i < n; ++i) expect.emplace_back(keys[i], values[i]);
      std::stable_sort(expect.begin(), expect.end(),
                       [](auto const& a, auto const& b) { return a.first < b.first; });
      auto cpu_keys = keys;
      auto cpu_values = values;
      twin_backend be(host_context{}, limit, "twin");
      be.sort_pairs(keys, values, end_bit);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(keys[i], expect[i].first);
        ASSERT_EQ(values[i], expect[i].second);
      }
      if (limit) {
        EXPECT_GE(be.chunks_run(), 10u);
        EXPECT_LE(be.context().memory().peak, limit);
      }
      if (auto cpu = cpu_backend()) {
        cpu->sort_pairs(cpu_keys, cpu_values, end_bit);
        EXPECT_EQ(cpu_keys, keys);
        EXPECT_EQ(cpu_values, values);
      }
    }
  }
}

TEST(DeviceTwin, UnionMatchesBitmapOracleAndCpu) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 30; ++trial) {
    group_id const groups = 1 + static_cast<group_id>(rng() % 5);
    std::int64_t const base = trial % 2 ? -1'000'000'000'000 : 1'700'000'000'000'000'000;
    std::size_t const n = static_cast<std::size_t>(rng() % 600);
    auto const in = make_intervals(rng, n, groups, 2000, 1 + trial * 3, base);
    auto const oracle = union_from_bitmap(coverage(in.view(), groups, base, 2200), base);
    for (std::size_t limit : {std::size_t{0}, reserve + (16 << 10)}) {
      twin_backend be(host_context{}, limit, "twin");
      auto const u = be.union_by_group(in.view());
      expect_same_union(u, oracle);
      if (limit) {
        EXPECT_LE(be.context().memory().peak, limit);
      }
    }
    if (auto cpu = cpu_backend()) {
      expect_same_union(cpu->union_by_group(in.view()), oracle);
    }
  }
}

TEST(DeviceTwin, UnionKeepsWideGroupAndTimeRanges) {
  // group ids and times that need more than 64 key bits together: two radix passes.
  random_intervals in;
  in.start = {std::numeric_limits<std::int64_t>::min() + 5, 100, 0,
              std::numeric_limits<std::int64_t>::max() - 10, 90};
  in.end = {std::numeric_limits<std::int64_t>::min() + 9, 200, 0,
            std::numeric_limits<std::int64_t>::max() - 1, 150};
  in.group = {0xFFFF'FFF0u, 3, 3, 0xFFFF'FFF0u, 3};
  twin_backend be(host_context{}, 0, "twin");
  auto const u = be.union_by_group(in.view());
  EXPECT_EQ(u.group, (std::vector<group_id>{3, 0xFFFF'FFF0u, 0xFFFF'FFF0u}));
  EXPECT_EQ(u.start, (std::vector<std::int64_t>{90, std::numeric_limits<std::int64_t>::min() + 5,
                                                std::numeric_limits<std::int64_t>::max() - 10}));
  EXPECT_EQ(u.end, (std::vector<std::int64_t>{200, std::numeric_limits<std::int64_t>::min() + 9,
                                              std::numeric_limits<std::int64_t>::max() - 1}));
}

TEST(DeviceTwin, GapScanMatchesBitmapOracleAndCpu) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    group_id const groups = 1 + static_cast<group_id>(rng() % 4);
    std::int64_t const base = 5'000;
    auto const in = make_intervals(rng, rng() % 200, groups, 1500, 40, base);
    auto const cover = coverage(in.view(), groups, base - 200, 2000);
    auto const u = union_from_bitmap(cover, base - 200);
    std::vector<std::int64_t> ws(groups), we(groups);
    for (group_id g = 0; g < groups; ++g) {
      ws[g] = base - 100 + static_cast<std::int64_t>(rng() % 300);
      we[g] = ws[g] + static_cast<std::int64_t>(rng() % 1600);
    }
    std::int64_t const min_gap = static_cast<std::int64_t>(rng() % 30);
    std::size_t const top = rng() % 4;
    std::vector<gap> oracle;
    for (group_id g = 0; g < groups; ++g) {
      for (std::int64_t t = ws[g]; t < we[g];) {
        auto covered = [&](std::int64_t x) {
          return cover[g][static_cast<std::size_t>(x - (base - 200))];
        };
        if (covered(t)) {
          ++t;
          continue;
        }
        std::int64_t e = t;
        while (e < we[g] && !covered(e)) ++e;
        if (e - t >= std::max<std::int64_t>(min_gap, 1)) oracle.push_back({g, t, e});
        t = e;
      }
    }
    oracle = select_top_gaps(oracle, top);
    for (std::size_t limit : {std::size_t{0}, reserve + (4 << 10)}) {
      twin_backend be(host_context{}, limit, "twin");
      EXPECT_EQ(be.gap_scan(u, {ws, we}, min_gap, top), oracle) << trial;
      if (limit) {
        EXPECT_LE(be.context().memory().peak, limit);
      }
    }
    if (auto cpu = cpu_backend()) {
      EXPECT_EQ(cpu->gap_scan(u, {ws, we}, min_gap, top), oracle);
    }
  }
}

TEST(DeviceTwin, SegmentedStatsMatchSortedListsAndCpu) {
  std::mt19937_64 rng(4);
  double const quantiles[] = {0.0, 0.25, 0.5, 0.9, 0.99, 1.0};
  for (int trial = 0; trial < 30; ++trial) {
    std::size_t const n = 1 + rng() % 3000;
    std::vector<std::uint32_t> keys(n);
    std::vector<std::int64_t> values(n);
    std::uint32_t const key_space =
        trial % 3 == 0 ? 0xFFFF'FFFFu : 1 + static_cast<std::uint32_t>(rng() % 40);
    for (std::size_t i = 0; i < n; ++i) {
      // skewed: a few keys own most rows
      keys[i] = (rng() % 4 == 0) ? static_cast<std::uint32_t>(rng() % key_space)
                                 : static_cast<std::uint32_t>(rng() % 3);
      values[i] = trial % 5 == 0 ? static_cast<std::int64_t>(rng())  // full int64 range
                                 : static_cast<std::int64_t>(rng() % 1'000'000) - 1000;
    }
    std::map<std::uint32_t, std::vector<std::int64_t>> by_key;
    for (std::size_t i = 0; i < n; ++i) by_key[keys[i]].push_back(values[i]);
    std::vector<exact_stats> oracle;
    bool overflow = false;
    for (auto const& [k, v] : by_key) {
      uint128 sq = 0;
      for (auto x : v)
        overflow |=
            __builtin_add_overflow(sq, static_cast<uint128>(static_cast<int128>(x) * x), &sq);
      oracle.push_back(test::oracle_stats(k, v, quantiles));
    }
    for (std::size_t limit : {std::size_t{0}, reserve + (32 << 10)}) {
      twin_backend be(host_context{}, limit, "twin");
      if (overflow) {
        EXPECT_THROW((void)be.segmented_stats(keys, values, quantiles), std::overflow_error);
        continue;
      }
      EXPECT_EQ(be.segmented_stats(keys, values, quantiles), oracle) << trial;
      if (limit) {
        EXPECT_LE(be.context().memory().peak, limit);
      }
    }
    if (auto cpu = cpu_backend()) {
      if (overflow) {
        EXPECT_THROW((void)cpu->segmented_stats(keys, values, quantiles), std::overflow_error);
      } else {
        EXPECT_EQ(cpu->segmented_stats(keys, values, quantiles), oracle);
      }
    }
  }
}

TEST(DeviceTwin, IntersectionMatchesBitmapOracleAndCpu) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 30; ++trial) {
    group_id const groups = 1 + static_cast<group_id>(rng() % 4);
    std::int64_t const base = 77;
    auto const ia = make_intervals(rng, rng() % 300, groups, 1500, 30, base);
    auto const ib = make_intervals(rng, rng() % 300, groups, 1500, 60, base);
    auto const ca = coverage(ia.view(), groups, base, 1600);
    auto const cb = coverage(ib.view(), groups, base, 1600);
    auto const a = union_from_bitmap(ca, base);
    auto const b = union_from_bitmap(cb, base);
    std::vector<std::int64_t> oracle(groups + 1, 0);  // one group beyond the data
    for (group_id g = 0; g < groups; ++g)
      for (std::size_t t = 0; t < ca[g].size(); ++t) oracle[g] += ca[g][t] && cb[g][t];
    for (std::size_t limit : {std::size_t{0}, reserve + (2 << 10)}) {
      twin_backend be(host_context{}, limit, "twin");
      EXPECT_EQ(be.intersection_by_group(a, b, groups + 1), oracle) << trial;
      if (limit) {
        EXPECT_LE(be.context().memory().peak, limit);
      }
    }
    if (auto cpu = cpu_backend()) {
      EXPECT_EQ(cpu->intersection_by_group(a, b, groups + 1), oracle);
    }
  }
}

/// Device memory is uninitialised: the twin's fresh buffers hold the poison pattern, not zeros,
/// so an algorithm that reads memory it never wrote fails here rather than only on a GPU.
TEST(DeviceTwin, FreshBuffersArePoisoned) {
  host_context ctx;
  auto const b = ctx.alloc<std::int64_t>(100);
  auto const bytes = reinterpret_cast<unsigned char const*>(b.data());
  for (std::size_t i = 0; i < b.size() * sizeof(std::int64_t); ++i)
    ASSERT_EQ(bytes[i], host_context::poison) << "byte " << i;
  EXPECT_EQ(b.data()[0], std::int64_t(0xA5A5A5A5A5A5A5A5ULL));
  EXPECT_EQ(ctx.memory().current, 100 * sizeof(std::int64_t));
  auto const moved = [&] {
    auto a = ctx.alloc<std::uint8_t>(7);
    return a;
  }();
  EXPECT_EQ(moved.data()[6], 0xA5);
  EXPECT_EQ(ctx.memory().current, 100 * sizeof(std::int64_t) + 7);
}

/// Temporary storage counts towards the memory in use: the radix sort's (modelled on CUB's)
/// and whatever Thrust allocates through the policy.
TEST(DeviceTwin, TemporaryStorageCountsTowardsThePeak) {
  host_context ctx;
  std::size_t const n = 5000;
  auto keys = ctx.alloc<std::uint64_t>(n);
  auto values = ctx.alloc<std::uint32_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys.data()[i] = (i * 7919) % 1000;
    values.data()[i] = static_cast<std::uint32_t>(i);
  }
  ctx.sort_pairs(keys, values, 10);
  // inputs, CUB's double buffers, and its temporary storage
  EXPECT_EQ(ctx.memory().peak, 2 * n * 12 + radix_sort_temp_bytes(n, 10));
  EXPECT_EQ(ctx.memory().current, n * 12);
  EXPECT_TRUE(std::is_sorted(keys.data(), keys.data() + n));

  host_context thrust_ctx;
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int64_t>((i * 31) % 977);
  thrust::stable_sort(thrust_ctx.policy(), v.data(), v.data() + n);  // a merge sort's scratch
  EXPECT_GE(thrust_ctx.memory().peak, n * sizeof(std::int64_t) / 2);
  EXPECT_EQ(thrust_ctx.memory().current, 0u);
}

/// The twin's stream queues device → host copies until a synchronisation, as the device does:
/// a host read of a download that was not synchronised sees poison, not the data.
TEST(DeviceTwin, AnUnsynchronisedDownloadReadsPoison) {
  host_context ctx;
  std::vector<std::int64_t> const values{1, -2, 3, 1'000'000'007};
  auto d = ctx.alloc<std::int64_t>(values.size());
  ctx.upload(d.data(), values.data(), values.size());
  std::vector<std::int64_t> h(values.size(), 0);
  ctx.download_async(h.data(), d.data(), h.size());
  std::int64_t const poison = std::int64_t(0xA5A5A5A5A5A5A5A5ULL);
  for (auto const v : h) EXPECT_EQ(v, poison) << "read before synchronising";
  // Device work after the copy, in stream order, does not change what the copy took.
  d.data()[0] = 42;
  ctx.synchronize();
  EXPECT_EQ(h, values);
  // download() synchronises by itself.
  std::vector<std::int64_t> again(values.size(), 0);
  ctx.download(again.data(), d.data(), again.size());
  EXPECT_EQ(again[0], 42);
  EXPECT_EQ(ctx.transfers().uploads, 1u);
  EXPECT_EQ(ctx.transfers().downloads, 2u);
  EXPECT_EQ(ctx.transfers().host_syncs, 2u);
  // An upload while a download is pending synchronises first, so staging is never shared.
  ctx.download_async(h.data(), d.data(), 1);
  ctx.upload(d.data(), values.data(), 1);
  EXPECT_EQ(h[0], 42);
  EXPECT_EQ(ctx.transfers().host_syncs, 3u);
}

/// A call that fails after staging downloads must not deliver them at a later
/// synchronisation: their host destinations are gone. The backend boundary abandons them.
TEST(DeviceTwin, AFailedCallDropsItsStagedDownloads) {
  host_context ctx;
  auto d = ctx.alloc<std::int64_t>(4);
  {
    std::vector<std::int64_t> gone(4);
    ctx.download_async(gone.data(), d.data(), gone.size());
    EXPECT_EQ(ctx.pending_downloads(), 1u);
    ctx.abandon();
  }
  EXPECT_EQ(ctx.pending_downloads(), 0u);
  ctx.synchronize();  // delivers nothing (AddressSanitizer would report a write to `gone`)

  std::mt19937_64 rng(8);
  auto const in = make_intervals(rng, 50, 2, 1'000, 50, 0);
  twin_backend be(host_context{}, 0, "twin");
  auto staged = be.context().alloc<std::int64_t>(4);
  std::vector<std::int64_t> h(4);
  be.context().download_async(h.data(), staged.data(), h.size());
  be.context().fail_allocation_after(0);  // the call fails before it synchronises
  EXPECT_THROW((void)be.union_by_group(in.view()), device_error);
  EXPECT_EQ(be.context().pending_downloads(), 0u);
}

/// Uploads fill the staging halves in turn and wait only when a half is reused; downloads are
/// staged one after another until the buffer is full.
TEST(DeviceTwin, StagingPlanWaitsOnlyWhenAHalfIsReused) {
  staging_plan p(64);
  EXPECT_EQ(p.upload_chunk(), 32u);
  auto a = p.place_upload(20);
  EXPECT_EQ(a.offset, 0u);
  EXPECT_FALSE(a.wait);
  auto b = p.place_upload(20);  // does not fit half 0: half 1, never used
  EXPECT_EQ(b.offset, 32u);
  EXPECT_FALSE(b.wait);
  auto c = p.place_upload(10);
  EXPECT_EQ(c.offset, 52u);
  EXPECT_FALSE(c.wait);
  auto d = p.place_upload(30);  // back to half 0, which copies read: wait
  EXPECT_EQ(d.offset, 0u);
  EXPECT_EQ(d.half, 0);
  EXPECT_TRUE(d.wait);
  p.synchronised();
  EXPECT_FALSE(p.place_upload(32).wait);
  p.synchronised();
  EXPECT_FALSE(p.download_needs_flush(64));
  EXPECT_EQ(p.place_download(40), 0u);
  EXPECT_TRUE(p.download_needs_flush(30));
  EXPECT_EQ(p.place_download(24), 40u);
  EXPECT_EQ(p.pending_downloads(), 2u);
  p.synchronised();
  EXPECT_EQ(p.pending_downloads(), 0u);
}

/// A lowered limit of rows per device pass (max_chunk_rows, 2^31 − 1 in production) makes every
/// primitive cross chunk boundaries on a small input; each result equals the CPU backend's.
TEST(DeviceTwin, RowLimitChunksEveryPrimitiveAndEqualsTheCpu) {
  EXPECT_EQ(max_chunk_rows, std::size_t{0x7FFF'FFFF});
  auto cpu = cpu_backend();
  ASSERT_TRUE(cpu);
  std::mt19937_64 rng(9);
  std::size_t const max_rows = 97;
  auto const in = make_intervals(rng, 1000, 5, 20'000, 300, 1'000);

  twin_backend sorter(host_context{}, 0, "twin", max_rows);
  std::vector<std::uint64_t> keys(1000);
  std::vector<std::uint32_t> values(1000);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = rng() % 5000;
    values[i] = static_cast<std::uint32_t>(i);
  }
  auto cpu_keys = keys;
  auto cpu_values = values;
  sorter.sort_pairs(keys, values, 13);
  cpu->sort_pairs(cpu_keys, cpu_values, 13);
  EXPECT_EQ(keys, cpu_keys);
  EXPECT_EQ(values, cpu_values);
  EXPECT_EQ(sorter.chunks_run(), 11u);  // ⌈1000 / 97⌉

  twin_backend be(host_context{}, 0, "twin", max_rows);
  auto const u = be.union_by_group(in.view());
  expect_same_union(cpu->union_by_group(in.view()), u);
  EXPECT_EQ(be.chunks_run(), 11u);
  ASSERT_GT(u.size(), max_rows);  // the gap scan and the intersection are chunked too
  std::vector<std::int64_t> ws(5, 900), we(5, 21'500);
  EXPECT_EQ(be.gap_scan(u, {ws, we}, 3, 4), cpu->gap_scan(u, {ws, we}, 3, 4));
  auto const other = make_intervals(rng, 1000, 5, 20'000, 100, 1'000);
  auto const v = cpu->union_by_group(other.view());
  EXPECT_EQ(be.intersection_by_group(u, v, 6), cpu->intersection_by_group(u, v, 6));
  std::vector<std::uint32_t> k(1000);
  std::vector<std::int64_t> x(1000);
  for (std::size_t i = 0; i < k.size(); ++i) {
    k[i] = static_cast<std::uint32_t>(rng() % 30);
    x[i] = static_cast<std::int64_t>(rng() % 100'000) - 50;
  }
  double const q[] = {0.5, 0.99};
  EXPECT_EQ(be.segmented_stats(k, x, q), cpu->segmented_stats(k, x, q));
  EXPECT_GT(be.chunks_run(), 11u + 3 * (1000 / max_rows));
}

/// What Thrust throws on a device (thrust::system_error, std::bad_alloc from a temporary
/// allocation) leaves the backend as device_error.
TEST(DeviceTwin, ThrustErrorsLeaveTheBackendAsDeviceErrors) {
  std::mt19937_64 rng(10);
  auto const in = make_intervals(rng, 200, 3, 5'000, 100, 0);
  for (auto const with : {host_context::failure::thrust_error, host_context::failure::bad_alloc}) {
    twin_backend be(host_context{}, 0, "twin");
    be.context().fail_allocation_after(3, with);
    try {
      (void)be.union_by_group(in.view());
      ADD_FAILURE() << "no device_error";
    } catch (device_error const& e) {
      EXPECT_TRUE(e.out_of_memory()) << e.what();
      EXPECT_NE(std::string(e.what()).find("lower device memory limit"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(be.context().memory().current, 0u);
  }
}

TEST(DeviceTwin, EmptyInputsGiveEmptyOutputs) {
  twin_backend be(host_context{}, 0, "twin");
  std::vector<std::uint64_t> k;
  std::vector<std::uint32_t> v;
  be.sort_pairs(k, v, 64);
  EXPECT_EQ(be.union_by_group({}).size(), 0u);
  EXPECT_TRUE(be.segmented_stats({}, {}, {}).empty());
  EXPECT_EQ(be.intersection_by_group({}, {}, 3), (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_TRUE(be.gap_scan({}, {}, 0, 0).empty());
}

}  // namespace
}  // namespace tracesweep::cuda_detail
