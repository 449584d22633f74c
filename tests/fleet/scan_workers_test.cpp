// SPDX-License-Identifier: Apache-2.0
// A scan splits the device memory and the threads among the workers it starts: at most one per
// job, however many were asked for (issue 27). The backend factory records the share each job's
// backend was made with.
#include <algorithm>
#include <fstream>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/fleet/scan.hpp>
#include <tracesweep/task_threads.hpp>

#include "support/scratch_folder.hpp"

namespace scan_workers_test {

namespace fleet = tracesweep::fleet;

/// A one-kernel Kineto trace, its kernel named `name` (so that files differ: a scan stores one
/// content once).
void write_trace(std::filesystem::path const& p, std::string const& name) {
  std::ofstream(p)
      << R"({"traceEvents":[{"ph":"X","cat":"kernel","name":")" << name
      << R"(","ts":1.5,"dur":2,"pid":0,"tid":7,"args":{"stream":7,"correlation":3}}]})";
}

/// The shares the backends of a scan of `jobs` one-file jobs with --jobs `asked` were made with.
std::vector<fleet::backend_share> shares_of_scan(unsigned jobs, unsigned asked) {
  tracesweep::test::scratch dir("scan_workers");
  std::filesystem::create_directories(dir.file("traces"));
  for (unsigned j = 0; j < jobs; ++j)
    write_trace(dir.file("traces") / fmt::format("job{}.json", static_cast<char>('a' + j)),
                fmt::format("k{}", j));
  fleet::scan_options o;
  o.roots = {dir.file("traces").string()};
  o.db_path = dir.file("store.sqlite").string();
  o.jobs = asked;
  std::mutex m;
  std::vector<fleet::backend_share> seen;
  o.analysis.make_backend = [&](tracesweep::event_table const&, fleet::backend_share share) {
    {
      std::lock_guard lock(m);
      seen.push_back(share);
    }
    tracesweep::backend_request r;
    r.choice = tracesweep::backend_choice::cpu;
    r.threads = share.threads;
    r.workers = share.workers;
    return tracesweep::make_backend(r);
  };
  fleet::scan_progress progress;
  auto const result =
      fleet::run_scan(o, progress, [](std::string const& e) { ADD_FAILURE() << e; });
  EXPECT_EQ(result.jobs_written, jobs);
  return seen;
}

TEST(ScanWorkers, TheDeviceMemoryIsSplitAmongTheWorkersStartedNotThoseAskedFor) {
  unsigned const hw = tracesweep::resolve_threads(0);
  auto const seen = shares_of_scan(3, 400);
  ASSERT_EQ(seen.size(), 3u);
  // 400 asked for (--jobs is capped as every --threads is, resolve_threads), 3 jobs: at most 3
  // workers, each its share of the memory and of the threads.
  unsigned const started = std::min(3u, tracesweep::resolve_threads(400));
  for (auto const& s : seen) {
    EXPECT_EQ(s.workers, started);
    EXPECT_EQ(s.threads, std::max(1u, hw / started));
  }
}

TEST(ScanWorkers, FewerWorkersAskedForThanJobsAreAllUsed) {
  unsigned const hw = tracesweep::resolve_threads(0);
  auto const seen = shares_of_scan(4, 2);
  ASSERT_EQ(seen.size(), 4u);
  for (auto const& s : seen) {
    EXPECT_EQ(s.workers, 2u);
    EXPECT_EQ(s.threads, std::max(1u, hw / 2));
  }
}

TEST(ScanWorkers, OneJobGetsTheWholeDevice) {
  auto const seen = shares_of_scan(1, 0);  // 0: one worker per hardware thread, capped at 1 job
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].workers, 1u);
  EXPECT_EQ(seen[0].threads, tracesweep::resolve_threads(0));
}

}  // namespace scan_workers_test
