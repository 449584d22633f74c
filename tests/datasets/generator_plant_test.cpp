// SPDX-License-Identifier: Apache-2.0
// Planted diagnosis patterns: brute-force oracles over the table's rows find exactly what the
// generator says it planted (holes in each device's activity union, long-tail kernel instances,
// runs of tiny kernels, steps with many small copies, a slow rank), nothing on the clean base,
// and the same after a round trip through the nsys SQLite and Kineto JSON writers and readers;
// the summary's gap scan sees the planted gaps too.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>

namespace ts = tracesweep;
namespace fs = std::filesystem;

namespace generator_plant_test {

constexpr std::int64_t hole_ns = 80'000;
constexpr std::int64_t tiny_ns = 10'000;
constexpr std::int64_t small_copy_bytes = 64 << 10;

using device_key = std::pair<std::int32_t, std::int32_t>;  // (rank, device)
using hole = std::tuple<std::int32_t, std::int32_t, std::int64_t, std::int64_t>;
using long_kernel = std::tuple<std::int32_t, std::int32_t, std::string, std::int64_t, std::int64_t>;
using run = std::tuple<std::int32_t, std::int32_t, std::int64_t, std::int64_t, std::int64_t>;
using copies =
    std::tuple<std::int32_t, std::int32_t, std::int32_t, std::string, std::int64_t, std::int64_t>;

std::string_view name_of(ts::event_table const& t, std::size_t i) {
  return t.strings().at(t.name[i]);
}

/// Each device's activity rows (kernel, memcpy, memset) as (start, end), sorted.
std::map<device_key, std::vector<std::pair<std::int64_t, std::int64_t>>> activity(
    ts::event_table const& t) {
  std::map<device_key, std::vector<std::pair<std::int64_t, std::int64_t>>> rows;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (ts::is_device_activity(t.kind[i]))
      rows[{t.rank[i], t.device[i]}].emplace_back(t.start_ns[i], t.end_ns[i]);
  for (auto& [key, v] : rows) std::sort(v.begin(), v.end());
  return rows;
}

/// Holes of at least `min_ns` in each device's activity union, inside its window.
std::vector<hole> holes(ts::event_table const& t, std::int64_t min_ns = hole_ns) {
  std::vector<hole> out;
  for (auto const& [key, rows] : activity(t)) {
    std::int64_t covered_to = rows.front().second;
    for (auto const& [start, end] : rows) {
      if (start - covered_to >= min_ns) out.emplace_back(key.first, key.second, covered_to, start);
      covered_to = std::max(covered_to, end);
    }
  }
  return out;
}

/// |union| of sorted (start, end) rows.
std::int64_t union_ns(std::vector<std::pair<std::int64_t, std::int64_t>> const& rows) {
  std::int64_t busy = 0, from = rows.front().first, to = rows.front().second;
  for (auto const& [start, end] : rows) {
    if (start > to) busy += to - from, from = start;
    to = std::max(to, end);
  }
  return busy + (to - from);
}

/// Busy share of the least busy device: |union| / window.
double min_busy_share(ts::event_table const& t) {
  double least = 1;
  for (auto const& [key, rows] : activity(t)) {
    std::int64_t end = 0;
    for (auto const& row : rows) end = std::max(end, row.second);
    least = std::min(least, double(union_ns(rows)) / double(end - rows.front().first));
  }
  return least;
}

/// Kernel instances longer than 2.5 × the median duration of their name (over the table).
std::vector<long_kernel> long_tail(ts::event_table const& t) {
  std::map<std::string_view, std::vector<std::int64_t>> by_name;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::kernel)
      by_name[name_of(t, i)].push_back(t.end_ns[i] - t.start_ns[i]);
  std::map<std::string_view, std::int64_t> median;
  for (auto& [name, d] : by_name) {
    std::sort(d.begin(), d.end());
    median[name] = d[d.size() / 2];
  }
  std::vector<long_kernel> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::kernel &&
        2 * (t.end_ns[i] - t.start_ns[i]) > 5 * median[name_of(t, i)])
      out.emplace_back(t.rank[i], t.device[i], std::string(name_of(t, i)), t.start_ns[i],
                       t.end_ns[i] - t.start_ns[i]);
  std::sort(out.begin(), out.end());
  return out;
}

/// Runs of 50 or more consecutive kernels (per device, by start) each shorter than 10 µs.
std::vector<run> tiny_runs(ts::event_table const& t) {
  std::map<device_key, std::vector<std::pair<std::int64_t, std::int64_t>>> kernels;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::kernel)
      kernels[{t.rank[i], t.device[i]}].emplace_back(t.start_ns[i], t.end_ns[i]);
  std::vector<run> out;
  for (auto& [key, k] : kernels) {
    std::sort(k.begin(), k.end());
    std::size_t first = 0;
    for (std::size_t i = 0; i <= k.size(); ++i) {
      if (i < k.size() && k[i].second - k[i].first < tiny_ns) continue;
      if (i - first >= 50)
        out.emplace_back(key.first, key.second, k[first].first, k[i - 1].second,
                         static_cast<std::int64_t>(i - first));
      first = i + 1;
    }
  }
  return out;
}

/// Host step ranges: (rank, thread) → (start, end, step index), from ProfilerStep#N rows.
std::map<std::pair<std::int32_t, std::int64_t>,
         std::vector<std::tuple<std::int64_t, std::int64_t, std::int32_t>>>
step_ranges(ts::event_table const& t) {
  std::map<std::pair<std::int32_t, std::int64_t>,
           std::vector<std::tuple<std::int64_t, std::int64_t, std::int32_t>>>
      steps;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.device[i] < 0 && name_of(t, i).starts_with("ProfilerStep#"))
      steps[{t.rank[i], t.stream[i]}].emplace_back(
          t.start_ns[i], t.end_ns[i], std::stoi(std::string(name_of(t, i).substr(13))));
  return steps;
}

/// Steps (by the launching call's step range) with 10 or more memcpys of at most 64 KiB in one
/// direction.
std::vector<copies> small_copy_steps(ts::event_table const& t) {
  std::map<std::pair<std::int32_t, std::int64_t>, std::size_t> api;  // (rank, correlation)
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::api_call) api[{t.rank[i], t.correlation_of(i)}] = i;
  auto const steps = step_ranges(t);
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, std::string>,
           std::pair<std::int64_t, std::int64_t>>
      count;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != ts::event_kind::memcpy || t.bytes_of(i) > small_copy_bytes) continue;
    auto const dir = static_cast<ts::copy_kind>(t.subkind[i]);
    if (dir != ts::copy_kind::host_to_device && dir != ts::copy_kind::device_to_host) continue;
    auto const call = api.at({t.rank[i], t.correlation_of(i)});
    for (auto const& [start, end, index] : steps.at({t.rank[i], t.stream[call]}))
      if (start <= t.start_ns[call] && t.start_ns[call] < end) {
        auto& c = count[{t.rank[i], t.device[i], index,
                         dir == ts::copy_kind::host_to_device ? "HtoD" : "DtoH"}];
        ++c.first, c.second += t.bytes_of(i);
      }
  }
  std::vector<copies> out;
  for (auto const& [k, c] : count)
    if (c.first >= 10)
      out.emplace_back(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), c.first,
                       c.second);
  return out;
}

/// Mean step time of each rank.
std::map<std::int32_t, double> mean_step_ns(ts::event_table const& t) {
  std::map<std::int32_t, std::pair<double, double>> sum;
  for (auto const& [key, ranges] : step_ranges(t))
    for (auto const& [start, end, index] : ranges)
      sum[key.first].first += double(end - start), sum[key.first].second += 1;
  std::map<std::int32_t, double> mean;
  for (auto const& [rank, s] : sum) mean[rank] = s.first / s.second;
  return mean;
}

/// Mean step time of `rank` over the slowest other rank's.
double straggler_ratio(ts::event_table const& t, std::int32_t rank) {
  auto const mean = mean_step_ns(t);
  double other = 0;
  for (auto const& [r, m] : mean)
    if (r != rank) other = std::max(other, m);
  return mean.at(rank) / other;
}

/// Ranks whose devices are busy (|activity union|, summed over the rank's devices) at least
/// 1.2 × as long as the least busy rank's: slow ranks whatever the host waits for.
std::vector<std::int32_t> slow_ranks(ts::event_table const& t) {
  std::map<std::int32_t, std::int64_t> busy;
  for (auto const& [key, rows] : activity(t)) busy[key.first] += union_ns(rows);
  std::int64_t least = INT64_MAX;
  for (auto const& [rank, b] : busy) least = std::min(least, b);
  std::vector<std::int32_t> out;
  for (auto const& [rank, b] : busy)
    if (double(b) >= 1.2 * double(least)) out.push_back(rank);
  return out;
}

// The truth in the oracles' shapes; `shift` is added to every time (nsys: minus its session).
std::vector<hole> truth_holes(ts::planted_truth const& truth, std::int64_t shift = 0) {
  std::vector<hole> out;
  for (auto const& g : truth.gaps)
    out.emplace_back(g.rank, g.device, g.start_ns + shift, g.end_ns + shift);
  return out;
}
std::vector<long_kernel> truth_long_tail(ts::planted_truth const& truth) {
  std::vector<long_kernel> out;
  for (auto const& k : truth.long_tail)
    out.emplace_back(k.rank, k.device, k.name, k.start_ns, k.duration_ns);
  std::sort(out.begin(), out.end());
  return out;
}
std::vector<run> truth_runs(ts::planted_truth const& truth) {
  std::vector<run> out;
  for (auto const& b : truth.bursts)
    out.emplace_back(b.rank, b.device, b.start_ns, b.end_ns, b.kernels);
  return out;
}
std::vector<copies> truth_copies(ts::planted_truth const& truth) {
  std::vector<copies> out;
  for (auto const& c : truth.small_copies)
    out.emplace_back(c.rank, c.device, c.step, c.direction, c.copies, c.bytes);
  return out;
}

struct shape {
  std::uint64_t seed;
  std::int32_t ranks, devices, steps, kernels;
};

ts::synthetic_options options(shape const& s, ts::planted_patterns const& plant) {
  ts::synthetic_options o;
  o.seed = s.seed;
  o.ranks = s.ranks;
  o.devices_per_rank = s.devices;
  o.steps = s.steps;
  o.kernels_per_step = s.kernels;
  o.plant = plant;
  return o;
}

std::string describe(shape const& s) {
  return "seed " + std::to_string(s.seed) + ", " + std::to_string(s.ranks) + " ranks × " +
         std::to_string(s.devices) + " devices × " + std::to_string(s.steps) + " steps × " +
         std::to_string(s.kernels) + " kernels";
}

ts::planted_patterns all_patterns(std::int32_t straggler) {
  ts::planted_patterns p;
  p.data_loader_gaps = p.sync_gap = p.long_tail = p.tiny_burst = p.small_copies = true;
  p.straggler_rank = straggler;
  return p;
}

/// Every oracle finds exactly what `truth` lists.
void expect_findings_are_the_truth(ts::event_table const& t, ts::planted_truth const& truth) {
  EXPECT_EQ(holes(t), truth_holes(truth));
  EXPECT_EQ(long_tail(t), truth_long_tail(truth));
  EXPECT_EQ(tiny_runs(t), truth_runs(truth));
  EXPECT_EQ(small_copy_steps(t), truth_copies(truth));
  EXPECT_EQ(slow_ranks(t), truth.stragglers);
}

std::vector<shape> const shapes = {{1, 2, 1, 4, 300},   {7, 3, 1, 5, 200}, {42, 2, 2, 8, 120},
                                   {5, 4, 1, 6, 300},   {11, 1, 3, 3, 60}, {99, 2, 1, 2, 10},
                                   {123, 9, 1, 3, 100}, {3, 1, 1, 1, 40}};

TEST(generator_plant, nothing_planted_is_nothing_in_the_truth) {
  ts::synthetic_options o;
  ts::event_table t;
  auto const truth = ts::generate_synthetic_trace(o, t);
  EXPECT_FALSE(o.plant.any());
  EXPECT_TRUE(truth.gaps.empty() && truth.long_tail.empty() && truth.bursts.empty() &&
              truth.small_copies.empty() && truth.stragglers.empty());
}

TEST(generator_plant, clean_base_has_no_finding_and_equal_ranks) {
  ts::planted_patterns clean;
  clean.clean = true;
  EXPECT_TRUE(clean.any());
  for (auto const& s : shapes) {
    SCOPED_TRACE(describe(s));
    ts::event_table t;
    auto const truth = ts::generate_synthetic_trace(options(s, clean), t);
    expect_findings_are_the_truth(t, truth);
    EXPECT_TRUE(truth.gaps.empty());
    // Not even close: the longest hole stays well below 80 µs.
    EXPECT_TRUE(holes(t, 72'000).empty());
    for (std::size_t i = 0; i < t.size(); ++i)
      if (ts::is_device_activity(t.kind[i])) {
        ASSERT_GT(t.end_ns[i], t.start_ns[i]) << i;
      }
    // Every rank runs the same steps (the longest of its devices' step ranges)...
    std::map<std::int32_t, std::vector<std::int64_t>> step_ns;
    for (auto const& [key, ranges] : step_ranges(t)) {
      auto& rank_steps = step_ns[key.first];
      rank_steps.resize(ranges.size());
      for (std::size_t i = 0; i < ranges.size(); ++i)
        rank_steps[i] = std::max(rank_steps[i], std::get<1>(ranges[i]) - std::get<0>(ranges[i]));
    }
    auto const& first = step_ns.begin()->second;
    ASSERT_EQ(first.size(), static_cast<std::size_t>(s.steps));
    for (auto const& [rank, ns] : step_ns)
      for (std::size_t i = 0; i < ns.size(); ++i)
        EXPECT_LE(std::abs(double(ns[i] - first[i])), 0.01 * double(first[i]))
            << "rank " << rank << " step " << i;
    // ... and the GPU bounds each: the host reaches every sync before the device drained.
    std::map<std::pair<std::int32_t, std::int64_t>, std::int64_t> sync_call;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t.kind[i] == ts::event_kind::api_call && name_of(t, i) == "cudaStreamSynchronize")
        sync_call[{t.rank[i], t.correlation_of(i)}] = t.start_ns[i];
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t.kind[i] == ts::event_kind::synchronization) {
        EXPECT_GT(t.start_ns[i], sync_call.at({t.rank[i], t.correlation_of(i)}));
      }
    std::cout << "[ measured ] " << describe(s)
              << ": least busy device share |union| / window = " << min_busy_share(t) << '\n';
  }
}

TEST(generator_plant, ranks_draw_the_same_steps_whatever_their_number) {
  // Rank 0 of a 1-rank trace and every rank of a 3-rank trace: the same rows, shifted by t0.
  ts::planted_patterns clean;
  clean.clean = true;
  ts::event_table one, three;
  ts::generate_synthetic_trace(options({5, 1, 2, 3, 50}, clean), one);
  ts::generate_synthetic_trace(options({5, 3, 2, 3, 50}, clean), three);
  std::map<std::int32_t, std::vector<std::tuple<std::int64_t, std::int64_t, std::string>>> rows;
  std::map<std::int32_t, std::int64_t> t0;
  for (std::size_t i = 0; i < three.size(); ++i)
    if (!t0.contains(three.rank[i])) t0[three.rank[i]] = three.start_ns[i];
  for (std::size_t i = 0; i < three.size(); ++i)
    rows[three.rank[i]].emplace_back(three.start_ns[i] - t0[three.rank[i]],
                                     three.end_ns[i] - t0[three.rank[i]],
                                     std::string(name_of(three, i)));
  std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> alone;
  for (std::size_t i = 0; i < one.size(); ++i)
    alone.emplace_back(one.start_ns[i] - one.start_ns[0], one.end_ns[i] - one.start_ns[0],
                       std::string(name_of(one, i)));
  ASSERT_EQ(rows.size(), 3u);
  for (auto const& [rank, r] : rows) EXPECT_EQ(r, alone) << "rank " << rank;
}

TEST(generator_plant, each_pattern_alone_is_its_only_finding) {
  for (int pattern = 0; pattern < 6; ++pattern) {
    ts::planted_patterns p;
    switch (pattern) {
      case 0:
        p.data_loader_gaps = true;
        break;
      case 1:
        p.sync_gap = true;
        break;
      case 2:
        p.long_tail = true;
        break;
      case 3:
        p.tiny_burst = true;
        break;
      case 4:
        p.small_copies = true;
        break;
      default:
        p.straggler_rank = 1;
    }
    for (auto const& s :
         {shape{1, 2, 1, 4, 300}, shape{42, 2, 2, 8, 120}, shape{99, 2, 1, 2, 10}}) {
      SCOPED_TRACE(describe(s) + ", pattern " + std::to_string(pattern));
      ts::event_table t;
      auto const truth = ts::generate_synthetic_trace(options(s, p), t);
      expect_findings_are_the_truth(t, truth);
      std::size_t const devices = std::size_t(s.ranks) * std::size_t(s.devices);
      EXPECT_EQ(truth.gaps.size(), p.data_loader_gaps ? devices * std::size_t(s.steps - 1)
                                   : p.sync_gap       ? 1u
                                                      : 0u);
      EXPECT_EQ(truth.long_tail.size(), p.long_tail ? 3u : 0u);
      EXPECT_EQ(truth.bursts.size(), p.tiny_burst ? 1u : 0u);
      EXPECT_EQ(truth.small_copies.size(), p.small_copies ? 1u : 0u);
    }
  }
}

TEST(generator_plant, planted_sites_are_as_documented) {
  auto const s = shape{42, 2, 2, 8, 120};
  ts::event_table t;
  auto const truth = ts::generate_synthetic_trace(options(s, all_patterns(1)), t);
  // Data loader: k × 20 µs ± 2 %.
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::data_loader) {
      EXPECT_GE(t.end_ns[i] - t.start_ns[i], 120 * 20'000 * 98 / 100);
      EXPECT_LE(t.end_ns[i] - t.start_ns[i], 120 * 20'000 * 102 / 100);
    }
  std::size_t sync_gaps = 0;
  for (auto const& g : truth.gaps) {
    if (g.cause == "sync") {
      ++sync_gaps;
      EXPECT_EQ(g.rank, 0);
      EXPECT_EQ(g.device, 0);
      EXPECT_GT(g.end_ns - g.start_ns, 400'000);
    } else {
      EXPECT_EQ(g.cause, "data_loading");
      EXPECT_GT(g.end_ns - g.start_ns, 120 * 20'000 * 98 / 100);
    }
  }
  EXPECT_EQ(sync_gaps, 1u);
  // log_metrics and clip_grad_norm_ are cpu_ops; the burst's kernels and the copies as planted.
  std::int64_t metrics = 0, clip = 0, norm = 0, pageable = 0, pageable_bytes = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    auto const n = name_of(t, i);
    if (n == "log_metrics" || n == "torch.nn.utils.clip_grad_norm_") {
      EXPECT_EQ(t.kind[i], ts::event_kind::cpu_op);
      EXPECT_EQ(t.strings().at(t.category[i]), "cpu_op");
      (n == "log_metrics" ? metrics : clip) += 1;
      if (n == "log_metrics") {
        EXPECT_GE(t.end_ns[i] - t.start_ns[i], 400'000);
        EXPECT_LE(t.end_ns[i] - t.start_ns[i], 600'000);
      }
    }
    if (n.find("NormTwoOps") != std::string_view::npos) {
      ++norm;
      EXPECT_EQ(t.stream[i], 7) << "compute stream slot 0";
      // 2–4 µs, × 1.4 on the straggler (rank 1; the burst is on rank 0).
      EXPECT_GE(t.end_ns[i] - t.start_ns[i], 2'000);
      EXPECT_LE(t.end_ns[i] - t.start_ns[i], 4'000);
    }
    if (n == "Memcpy HtoD (Pageable -> Device)") ++pageable, pageable_bytes += t.bytes_of(i);
  }
  EXPECT_EQ(metrics, 1);
  EXPECT_EQ(clip, 1);
  EXPECT_EQ(norm, 200);
  EXPECT_EQ(pageable, 24);
  ASSERT_EQ(truth.small_copies.size(), 1u);
  EXPECT_EQ(truth.small_copies[0].bytes, pageable_bytes);
  EXPECT_EQ(truth.small_copies[0].step, 4);
  ASSERT_EQ(truth.long_tail.size(), 3u);
  for (auto const& k : truth.long_tail) EXPECT_EQ(k.name, truth.long_tail[0].name);
  ASSERT_EQ(truth.bursts.size(), 1u);
  EXPECT_EQ(truth.bursts[0].launched_by, "torch.nn.utils.clip_grad_norm_");
  EXPECT_EQ(truth.stragglers, std::vector<std::int32_t>{1});
}

TEST(generator_plant, every_pattern_at_once_is_exactly_the_truth) {
  for (auto const& s : {shape{1, 4, 1, 6, 300}, shape{2, 4, 1, 6, 300}, shape{42, 2, 2, 8, 120},
                        shape{8, 2, 2, 8, 120}, shape{77, 3, 1, 5, 200}, shape{4, 2, 1, 3, 50}}) {
    SCOPED_TRACE(describe(s));
    ts::event_table t;
    auto const truth = ts::generate_synthetic_trace(options(s, all_patterns(s.ranks - 1)), t);
    expect_findings_are_the_truth(t, truth);
    EXPECT_FALSE(truth.gaps.empty() && s.steps > 1);
    // The summary's own union and gap scan see the same holes.
    auto be = ts::make_cpu_backend(1);
    ts::summary_options so;
    so.min_gap_ns = hole_ns;
    so.top = 0;
    std::vector<hole> seen;
    for (auto const& g : ts::compute_summary(ts::trace_model(t), *be, so).gaps)
      seen.emplace_back(g.rank, g.device, g.start_ns, g.end_ns);
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, truth_holes(truth));
    EXPECT_TRUE(std::is_sorted(truth.gaps.begin(), truth.gaps.end(), [](auto& a, auto& b) {
      return std::tie(a.rank, a.device, a.start_ns) < std::tie(b.rank, b.device, b.start_ns);
    }));
  }
}

TEST(generator_plant, straggler_steps_take_a_quarter_longer_or_more) {
  for (auto const& s : shapes) {
    if (s.ranks < 2) continue;
    SCOPED_TRACE(describe(s));
    ts::planted_patterns p;
    p.straggler_rank = s.ranks - 1;
    ts::event_table t;
    auto const truth = ts::generate_synthetic_trace(options(s, p), t);
    EXPECT_EQ(truth.stragglers, std::vector<std::int32_t>{s.ranks - 1});
    double const ratio = straggler_ratio(t, s.ranks - 1);
    EXPECT_GE(ratio, 1.25);
    EXPECT_LE(ratio, 1.4);
    // With every pattern, the data loader's fixed wait dilutes the ratio.
    ts::event_table all;
    ts::generate_synthetic_trace(options(s, all_patterns(s.ranks - 1)), all);
    std::cout << "[ measured ] " << describe(s) << ": straggler / others mean step time = " << ratio
              << " (every pattern: " << straggler_ratio(all, s.ranks - 1) << ")\n";
  }
}

TEST(generator_plant, rejects_plants_the_options_cannot_hold) {
  ts::event_table t;
  auto o = options({1, 2, 1, 2, 100}, {});
  o.plant.straggler_rank = 2;
  EXPECT_THROW(ts::generate_synthetic_trace(o, t), std::invalid_argument);
  o.plant.straggler_rank = -2;
  EXPECT_THROW(ts::generate_synthetic_trace(o, t), std::invalid_argument);
  o.plant.straggler_rank = -1;
  o.plant.clean = true;
  o.kernels_per_step = 9;
  EXPECT_THROW(ts::generate_synthetic_trace(o, t), std::invalid_argument);
  o.kernels_per_step = 100;
  EXPECT_THROW(ts::generate_synthetic_trace(ts::with_kineto_host_mix(o), t), std::invalid_argument);
  EXPECT_NO_THROW(ts::generate_synthetic_trace(o, t));
}

// ---- Round trip through the writers and readers -------------------------------------------

/// The burst is there after a round trip: its 200 kernels, each launched by a cudaLaunchKernel
/// nested in the clip_grad_norm_ range on the range's thread.
void expect_burst_nested(ts::event_table const& t, ts::planted_truth const& truth,
                         std::int64_t shift) {
  ASSERT_EQ(truth.bursts.size(), 1u);
  auto const& b = truth.bursts[0];
  std::size_t range = t.size();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (name_of(t, i) == b.launched_by) {
      ASSERT_EQ(range, t.size()) << "one range";
      range = i;
    }
  ASSERT_LT(range, t.size());
  EXPECT_EQ(t.rank[range], b.rank);
  EXPECT_LT(t.device[range], 0);
  std::set<std::int64_t> correlations;
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::kernel &&
        name_of(t, i).find("NormTwoOps") != std::string::npos) {
      EXPECT_EQ(t.rank[i], b.rank);
      EXPECT_EQ(t.device[i], b.device);
      correlations.insert(t.correlation_of(i));
      first = std::min(first, t.start_ns[i]);
      last = std::max(last, t.end_ns[i]);
    }
  EXPECT_EQ(correlations.size(), 200u);
  EXPECT_EQ(first, b.start_ns + shift);
  EXPECT_EQ(last, b.end_ns + shift);
  std::size_t nested = 0;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::api_call && t.rank[i] == b.rank &&
        correlations.contains(t.correlation_of(i))) {
      EXPECT_EQ(name_of(t, i), "cudaLaunchKernel");
      EXPECT_EQ(t.stream[i], t.stream[range]) << "same thread";
      EXPECT_GE(t.start_ns[i], t.start_ns[range]);
      EXPECT_LE(t.end_ns[i], t.end_ns[range]);
      ++nested;
    }
  EXPECT_EQ(nested, 200u);
}

class generator_plant_round_trip : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("ts_plant_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_F(generator_plant_round_trip, both_formats_keep_the_planted_truth) {
  for (auto const& s : {shape{1, 4, 1, 6, 300}, shape{42, 2, 2, 8, 120}}) {
    SCOPED_TRACE(describe(s));
    ts::event_table source;
    auto const truth = ts::generate_synthetic_trace(options(s, all_patterns(s.ranks - 1)), source);
    ASSERT_EQ(holes(source), truth_holes(truth));
    auto const session = *std::min_element(source.start_ns.begin(), source.start_ns.end());
    std::vector<std::int32_t> ranks;
    for (std::int32_t r = 0; r < s.ranks; ++r) ranks.push_back(r);

    auto const sqlite = dir / ("trace-" + std::to_string(s.seed) + ".sqlite");
    ts::write_nsys_sqlite(source, sqlite.string());
    ts::event_table nsys;
    ts::read_options ro;
    ro.threads = 2;
    ts::read_input(sqlite.string(), nsys, ro);
    {
      SCOPED_TRACE("nsys");
      EXPECT_EQ(nsys.inputs()[0].ranks, ranks);
      EXPECT_EQ(holes(nsys), truth_holes(truth, -session));
      expect_burst_nested(nsys, truth, -session);
    }

    auto const paths = ts::write_kineto_json(
        source, (dir / ("kineto-" + std::to_string(s.seed) + "-")).string(), false);
    ts::event_table kineto;
    EXPECT_TRUE(ts::read_inputs(paths, kineto, ro, false).empty());
    {
      SCOPED_TRACE("kineto");
      std::set<std::int32_t> kineto_ranks;
      for (auto const& in : kineto.inputs()) kineto_ranks.insert(in.ranks.begin(), in.ranks.end());
      EXPECT_EQ(std::vector<std::int32_t>(kineto_ranks.begin(), kineto_ranks.end()), ranks);
      EXPECT_EQ(holes(kineto), truth_holes(truth));
      expect_burst_nested(kineto, truth, 0);
      // The re-read table has the same findings: long tail, runs, slow rank.
      EXPECT_EQ(long_tail(kineto), truth_long_tail(truth));
      EXPECT_EQ(tiny_runs(kineto), truth_runs(truth));
      EXPECT_EQ(slow_ranks(kineto), truth.stragglers);
    }
  }
}

}  // namespace generator_plant_test
