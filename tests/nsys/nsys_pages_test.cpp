// SPDX-License-Identifier: Apache-2.0
// The direct b-tree decoder (sqlite_pages) against SQLite itself: every integer column of every
// event table of every real export, whole and by rowid range; hand-made files with overflow
// records, short records (ALTER TABLE), every integer width and a text value (→ SQL fallback).
// The reader's kind selection and thread-count independence on a multi-range generated export.
#include <gtest/gtest.h>

#include <climits>
#include <map>

#include <tracesweep/error.hpp>
#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>

#include "ingest/nsys/sqlite_pages.hpp"
#include "nsys/nsys_test_support.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace {

using nsys::int_value;
using nsys::sqlite_pages;

std::uint32_t root_of(oracle_db& db, std::string const& table) {
  auto const r = db.query("SELECT rootpage FROM sqlite_master WHERE name = '" + table + "'");
  return r.empty() ? 0 : static_cast<std::uint32_t>(r[0][0].i);
}

/// The columns' values in rowid order as SQLite returns them; false when one is not an
/// integer or NULL.
bool sql_values(oracle_db& db, std::string const& table, std::vector<std::string> const& names,
                std::string const& where, std::vector<int_value>& out) {
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < names.size(); ++i) sql += (i ? ", \"" : "\"") + names[i] + "\"";
  bool ints = true;
  for (auto const& row : db.query(sql + " FROM " + table + " WHERE " + where + " ORDER BY rowid"))
    for (auto const& v : row) {
      if (v.type != SQLITE_NULL && v.type != SQLITE_INTEGER) ints = false;
      out.push_back(v.type == SQLITE_NULL ? int_value{} : int_value{v.i, false});
    }
  return ints;
}

void expect_same(std::vector<int_value> const& got, std::vector<int_value> const& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].null, want[i].null) << "value " << i;
    if (!want[i].null) {
      ASSERT_EQ(got[i].value, want[i].value) << "value " << i;
    }
  }
}

/// Decodes `columns` (positions) of `table` for rowids in [lo, hi] both ways and compares.
void check_table(std::filesystem::path const& file, std::string const& table,
                 std::vector<int> const& columns, std::int64_t lo, std::int64_t hi) {
  SCOPED_TRACE(table + " rowid " + std::to_string(lo) + ".." + std::to_string(hi));
  oracle_db db(file);
  std::vector<std::string> all, names;
  for (auto const& r : db.query("SELECT name FROM pragma_table_info('" + table + "')"))
    all.push_back(r[0].s);
  for (auto c : columns) names.push_back(all.at(static_cast<std::size_t>(c)));
  std::vector<int_value> want;
  bool const ints = sql_values(
      db, table, names, "rowid BETWEEN " + std::to_string(lo) + " AND " + std::to_string(hi), want);
  sqlite_pages const pages(file.string());
  ASSERT_TRUE(pages.usable());
  auto const leaves = pages.leaves(root_of(db, table), table);
  ASSERT_FALSE(leaves.empty());
  std::vector<int_value> got;
  bool const read = pages.read(leaves, lo, hi, columns, table, got);
  EXPECT_EQ(read, ints);  // declines exactly when a value is not an integer
  if (read) expect_same(got, want);
}

TEST(nsys_pages, direct_decoding_equals_sql_on_every_real_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  int tables = 0;
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    oracle_db db(f);
    for (std::string const t :
         {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
          "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "OSRT_API"}) {
      if (!db.has_table(t)) continue;
      auto const n =
          static_cast<int>(db.query("SELECT count(*) FROM pragma_table_info('" + t + "')")[0][0].i);
      auto const b = db.query("SELECT min(rowid), max(rowid) FROM " + t)[0];
      if (b[0].type == SQLITE_NULL) continue;
      std::vector<int> every(static_cast<std::size_t>(n));
      for (int c = 0; c < n; ++c) every[static_cast<std::size_t>(c)] = c;
      check_table(f, t, every, LLONG_MIN, LLONG_MAX);
      // A range inside the table and a sparse choice of columns.
      auto const lo = b[0].i + (b[1].i - b[0].i) / 3, hi = b[0].i + 2 * (b[1].i - b[0].i) / 3;
      check_table(f, t, {0, 1, n - 1}, lo, hi);
      ++tables;
    }
  }
  EXPECT_GE(tables, 30);
}

TEST(nsys_pages, overflow_short_records_integer_widths_and_text_fallback) {
  temp_dir dir("pages");
  auto const file = dir.path() / "hand.sqlite";
  {
    oracle_db db(file, true);
    db.exec("PRAGMA page_size = 1024; CREATE TABLE t (a INTEGER, big BLOB, b INTEGER);");
    db.exec("BEGIN");
    std::int64_t const widths[] = {
        0,         1,         -1,         127,           128,       -32768,
        8388607,   -8388608,  2147483647, -2147483648LL, 1LL << 40, -(1LL << 47),
        LLONG_MAX, LLONG_MIN, 42};
    for (int i = 0; i < 6000; ++i) {
      // Wrapping arithmetic (C++20 defines the conversion back): extremes stay in range.
      auto const u = static_cast<std::uint64_t>(widths[i % 15]) +
                     static_cast<std::uint64_t>(i % 7 == 0 ? 0 : i);
      auto const v = static_cast<std::int64_t>(u);
      // Every 50th row carries a blob long enough to spill b onto overflow pages.
      std::string const blob = i % 50 == 0 ? "zeroblob(3000)" : i % 3 ? "NULL" : "x'0102'";
      std::string const b = i % 11 == 0 ? "NULL" : std::to_string(static_cast<std::int64_t>(0 - u));
      db.exec("INSERT INTO t VALUES (" + std::to_string(v) + ", " + blob + ", " + b + ")");
    }
    db.exec("COMMIT");
    db.exec("ALTER TABLE t ADD COLUMN c INTEGER");  // older rows lack c: NULL
    db.exec("INSERT INTO t VALUES (7, NULL, 8, 9), (10, zeroblob(5000), 11, 12)");
    db.exec("CREATE TABLE w (k INTEGER PRIMARY KEY, v) WITHOUT ROWID");
    db.exec("CREATE TABLE s (a INTEGER, b INTEGER); INSERT INTO s VALUES (1, 2), ('x', 3)");
  }
  check_table(file, "t", {0, 2, 3}, LLONG_MIN, LLONG_MAX);
  check_table(file, "t", {2}, 100, 4321);
  check_table(file, "t", {0, 1, 2, 3}, 1, 40);  // the blob column: declines (not an integer)
  check_table(file, "s", {1}, LLONG_MIN, LLONG_MAX);
  check_table(file, "s", {0, 1}, LLONG_MIN, LLONG_MAX);  // 'x': declines
  oracle_db db(file);
  sqlite_pages const pages(file.string());
  EXPECT_TRUE(pages.leaves(root_of(db, "w"), "w").empty());  // not a table b-tree
  EXPECT_GT(pages.leaves(root_of(db, "t"), "t").size(), 10u);
}

TEST(nsys_pages, a_page_outside_the_file_is_damage) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("pages_trunc");
  auto const copy = dir.path() / "cut.sqlite";
  auto const src = traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
  std::filesystem::copy_file(src, copy);
  std::uint32_t root;
  {
    oracle_db db(src);
    root = root_of(db, "CUPTI_ACTIVITY_KIND_KERNEL");
  }
  std::filesystem::resize_file(copy, 4096);  // only page 1 is left
  sqlite_pages const pages(copy.string());
  ASSERT_TRUE(pages.usable());
  try {
    (void)pages.leaves(root, "CUPTI_ACTIVITY_KIND_KERNEL");
    FAIL() << "no error";
  } catch (input_error const& e) {
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
  }
}

event_table read(std::filesystem::path const& f, unsigned threads, std::uint32_t kinds) {
  event_table t;
  read_options o;
  o.threads = threads;
  o.kinds = kinds;
  read_input(f.string(), t, o);
  return t;
}

void expect_same_rows(event_table const& a, event_table const& b) {
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.subkind, b.subkind);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.correlation, b.correlation);
  EXPECT_EQ(a.bytes, b.bytes);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(a.strings().at(a.name[i]), b.strings().at(b.name[i])) << "row " << i;
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
    e.stream = full.stream[i], e.correlation = full.correlation[i], e.bytes = full.bytes[i];
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
  synthetic_options o;
  o.ranks = 2;
  o.devices_per_rank = 2;
  o.steps = 10;
  o.kernels_per_step = 15000;
  event_table generated;
  generate_synthetic_trace(o, generated);
  temp_dir dir("threads");
  auto const path = dir.path() / "big.sqlite";
  write_nsys_sqlite(generated, path.string());
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
      ++n, dur += one.end_ns[i] - one.start_ns[i], corr += one.correlation[i];
      dev += one.device[i], stream += one.stream[i];
    }
  EXPECT_EQ(n, kernels[0].i);
  EXPECT_EQ(dur, kernels[1].i);
  EXPECT_EQ(corr, kernels[2].i);
  EXPECT_EQ(dev, kernels[3].i);
  EXPECT_EQ(stream, kernels[4].i);
}

}  // namespace
}  // namespace tracesweep::test
