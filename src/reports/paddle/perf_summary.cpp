// SPDX-License-Identifier: Apache-2.0
// Perf Summary (Paddle §1.13) from the steps and the session's union of data-loader ranges of
// each rank.
#include <tracesweep/reports/paddle/perf_summary.hpp>

#include <algorithm>

#include <tracesweep/exact_stats.hpp>

namespace tracesweep {

namespace {

cost_summary summarize(std::vector<std::int64_t> const& v) {
  cost_summary c;
  std::int64_t total = 0;
  for (auto x : v) total = checked_add(total, x, "the total step time");
  c.avg_ns = double(total) / double(v.size());
  c.max_ns = *std::max_element(v.begin(), v.end());
  c.min_ns = *std::min_element(v.begin(), v.end());
  return c;
}

}  // namespace

std::vector<rank_perf> compute_perf_summary(job_session const& session) {
  auto const& model = session.model();
  auto const& t = model.table();
  auto const& loaders = session.unions(table_union::data_loaders_by_rank);
  std::vector<rank_perf> out(model.ranks().size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    auto& o = out[r];
    o.rank = model.ranks()[r];
    auto const steps = model.steps(r);
    if (steps.empty()) continue;
    std::vector<std::int64_t> batch, reader;
    auto const loading = members_of(loaders, static_cast<group_id>(r));
    for (auto i : steps) {
      batch.push_back(t.end_ns[i] - t.start_ns[i]);
      reader.push_back(loading.covered(t.start_ns[i], t.end_ns[i]));
    }
    o.steps = static_cast<std::int64_t>(steps.size());
    o.batch_cost = summarize(batch);
    o.reader_cost = summarize(reader);
    o.has_reader = o.reader_cost.max_ns > 0;
    o.ips_avg = o.batch_cost.avg_ns > 0 ? 1e9 / o.batch_cost.avg_ns : 0.0;
    o.ips_max = o.batch_cost.min_ns > 0 ? 1e9 / double(o.batch_cost.min_ns) : 0.0;
    o.ips_min = o.batch_cost.max_ns > 0 ? 1e9 / double(o.batch_cost.max_ns) : 0.0;
    o.reader_ratio = o.batch_cost.avg_ns > 0 ? o.reader_cost.avg_ns / o.batch_cost.avg_ns : 0.0;
  }
  return out;
}

}  // namespace tracesweep
