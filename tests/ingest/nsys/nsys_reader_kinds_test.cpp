// SPDX-License-Identifier: Apache-2.0
// The reader's kind selection (read_options::kinds) against a full read on every real export,
// the GPU-activity check for device tables a selection does not load, and thread-count
// independence on a multi-range generated export.
#include <gtest/gtest.h>

#include <filesystem>

#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>

#include "generated_export.hpp"
#include "nsys_test_support.hpp"
#include "support/table_compare.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_reader_kinds_test {

event_table read(std::filesystem::path const& f, unsigned threads, std::uint32_t kinds) {
  read_options o;
  o.kinds = kinds;
  return read_export(f, threads, o);
}

/// The rows of `kinds` from a full read.
event_table only(event_table const& full, std::uint32_t kinds) {
  event_table out;
  out.begin_input("x", "nsys-sqlite");
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (!(kinds & kind_bit(full.kind[i]))) continue;
    event e;
    e.start_ns = full.start_ns[i], e.end_ns = full.end_ns[i], e.kind = full.kind[i];
    e.subkind = full.subkind[i], e.rank = full.rank[i], e.device = full.device[i];
    e.stream = full.stream[i], e.correlation = full.correlation_of(i), e.bytes = full.bytes_of(i);
    e.name = out.strings().intern(full.strings().at(full.name[i]));
    out.append(e);
  }
  return out;
}

TEST(nsys_reader_kinds, a_kind_selection_reads_exactly_those_rows_of_a_full_read) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    auto const full = read(f, 1, all_event_kinds);
    for (auto const kinds : {kind_bit(event_kind::kernel), kind_bit(event_kind::api_call),
                             kind_bit(event_kind::memcpy) | kind_bit(event_kind::memset),
                             kind_bit(event_kind::user_range), kind_bit(event_kind::os_call)}) {
      SCOPED_TRACE(kinds);
      expect_same_rows(read(f, 2, kinds), only(full, kinds));
    }
  }
}

TEST(nsys_reader_kinds, host_only_selection_accepts_gpu_activity_it_does_not_load) {
  // Only memsets left: a cuda_api_sum read does not load them, yet must see that they exist.
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("memset_only");
  auto const copy = dir.path() / "memset_only.sqlite";
  std::filesystem::copy_file(traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite", copy);
  {
    oracle_db db(copy, true);
    ASSERT_GT(db.query("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET")[0][0].i, 0);
    db.exec("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY;");
  }
  auto const t = read(copy, 1, kind_bit(event_kind::api_call));
  oracle_db db(copy);
  EXPECT_EQ(static_cast<std::int64_t>(t.size()),
            db.query("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME")[0][0].i);
}

TEST(nsys_reader_threads, multi_range_generated_export_is_thread_count_independent) {
  // ~1.2M events: several 2^18-rowid ranges per table, so threads really share the work.
  event_table generated;
  temp_dir dir("threads");
  auto const path = write_generated_export({2, 2, 10, 15000}, generated, dir, "big.sqlite");
  oracle_db db(path);
  auto const kernels = db.query(
      "SELECT count(*), sum(\"end\" - start), sum(correlationId), "
      "sum(deviceId), sum(streamId) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0];
  ASSERT_GT(kernels[0].i, 2 << 18);  // three ranges or more
  auto const one = read(path, 1, all_event_kinds);
  for (unsigned threads : {2u, 3u}) {
    SCOPED_TRACE(threads);
    expect_same_rows(read(path, threads, all_event_kinds), one);
  }
  std::int64_t n = 0, dur = 0, corr = 0, dev = 0, stream = 0;
  for (std::size_t i = 0; i < one.size(); ++i)
    if (one.kind[i] == event_kind::kernel) {
      ++n, dur += one.end_ns[i] - one.start_ns[i], corr += one.correlation_of(i);
      dev += one.device[i], stream += one.stream[i];
    }
  EXPECT_EQ(n, kernels[0].i);
  EXPECT_EQ(dur, kernels[1].i);
  EXPECT_EQ(corr, kernels[2].i);
  EXPECT_EQ(dev, kernels[3].i);
  EXPECT_EQ(stream, kernels[4].i);
}

}  // namespace nsys_reader_kinds_test

}  // namespace tracesweep::test
