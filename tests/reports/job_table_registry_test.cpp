// SPDX-License-Identifier: Apache-2.0
// The job table registry: which entries each --table value selects in each view, what --table
// all means, the CSV table of each entry, and the order of the written tables (every entry's
// grids before any JSON table) on a real job.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/reports/job_table_registry.hpp>

#include "support/summary_compare.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;
using ts::job_view;

namespace job_table_registry_test {

std::vector<std::string> names(std::vector<ts::job_table_entry const*> const& v) {
  std::vector<std::string> out;
  for (auto const* e : v) out.emplace_back(e->name);
  return out;
}

TEST(JobTableRegistry, SelectsWhatTableNamesInEachView) {
  using list = std::vector<std::string>;
  EXPECT_EQ(names(ts::select_job_tables("all", job_view::paddle)),
            (list{"overview", "model", "distributed", "kernels"}));
  EXPECT_EQ(names(ts::select_job_tables("all", job_view::tensorboard)), (list{"tb"}));
  EXPECT_EQ(names(ts::select_job_tables("tb_kernels", job_view::tensorboard)), (list{"tb"}));
  EXPECT_EQ(names(ts::select_job_tables("memory_timeline", job_view::paddle)), (list{"memory"}));
  EXPECT_TRUE(ts::select_job_tables("tb", job_view::paddle).empty());
  EXPECT_TRUE(ts::select_job_tables("overview", job_view::tensorboard).empty());
  EXPECT_TRUE(ts::select_job_tables("operator_detail", job_view::paddle).empty());  // --op-detail
  auto const* paddle_ops = ts::find_job_table("operators", job_view::paddle);
  auto const* tb_ops = ts::find_job_table("operators", job_view::tensorboard);
  ASSERT_TRUE(paddle_ops && tb_ops);
  EXPECT_NE(paddle_ops, tb_ops);
  EXPECT_EQ(tb_ops->csv_table, "tb_operators");
  EXPECT_TRUE(paddle_ops->csv_table.empty());
  std::set<std::pair<std::string_view, job_view>> seen;
  for (auto const& e : ts::job_table_entries()) {
    EXPECT_TRUE(seen.insert({e.name, e.view}).second) << e.name;
    EXPECT_NE(e.compute, nullptr) << e.name;
  }
}

TEST(JobTableRegistry, GridsComeBeforeJsonTablesInRegistryOrder) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  ts::event_table table;
  ASSERT_TRUE(
      ts::test::read_trace(dir / "kineto/hta_trace_filter_2rank/sampled_rank-0.json.gz", table));
  ts::trace_model const model(table);
  auto be = ts::make_cpu_backend(1);
  ts::job_session const session(model, *be, {});
  // Asked in the reverse of registry order: the set still follows the registry.
  auto selected = ts::select_job_tables("all", job_view::paddle);
  std::reverse(selected.begin(), selected.end());
  auto const set = ts::job_table_results(selected, session, {});
  std::vector<std::string> got;
  for (auto const& t : set.tables) got.push_back(t.name);
  EXPECT_EQ(got,
            (std::vector<std::string>{"overview", "model", "distributed", "across_ranks", "kernels",
                                      "overview", "model", "distributed", "kernels"}));
  // The first five are grids (text and CSV), the last four JSON's.
  for (std::size_t k = 0; k < got.size(); ++k)
    EXPECT_EQ((set.tables[k].views & ts::output::json) != 0, k >= 5) << got[k];
}

}  // namespace job_table_registry_test
