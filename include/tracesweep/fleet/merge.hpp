// SPDX-License-Identifier: Apache-2.0
// Merging shard databases (one per `scan --shard K/N`) into one results store. Runs of equal
// label and scanned roots become one run; jobs are written in path order, and a trace whose
// content the output already holds is left out, exactly as one scan of all shards would have:
// the merge of N shards equals the single-process scan, row for row (ids and times aside).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tracesweep::fleet {

struct merge_result {
  std::int64_t runs = 0, jobs_written = 0, jobs_skipped = 0, traces_skipped = 0;
};

/// Merges `shards` into the store at `out` (created when absent). Throws input_error naming a
/// shard that is not a results database.
merge_result merge_stores(std::string const& out, std::vector<std::string> const& shards);

}  // namespace tracesweep::fleet
