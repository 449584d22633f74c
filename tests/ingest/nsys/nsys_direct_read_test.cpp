// SPDX-License-Identifier: Apache-2.0
// The direct read of a table's B-tree pages (sqlite_pages, sqlite_btree, the record decoding in
// nsys_tables) against SQLite as the oracle: every plan of every real export, whole and in
// sub-ranges, from the file and from an image in memory, gives the same rows, values and skip
// counts; shapes SQLite would convert or keep elsewhere (REAL columns, overflow pages, columns
// added by ALTER TABLE, non-integer values, rowids at the int64 limits) are either read the same
// or left to SQLite; damaged trees (cycles, impossible cell counts) fall back, never hang.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "generated_export.hpp"
#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/nsys_tables.hpp"
#include "ingest/nsys/sqlite_db.hpp"
#include "ingest/nsys/sqlite_pages.hpp"
#include "nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_direct_read_test {

namespace fs = std::filesystem;
using nsys::row_batch;
using nsys::source_table;
using nsys::table_plan;

constexpr source_table every_source[] = {
    source_table::kernel,  source_table::memcpy,          source_table::memset,
    source_table::runtime, source_table::synchronization, source_table::osrt,
    source_table::nvtx};

/// The option sets that change what a plan selects.
std::vector<read_options> option_sets() {
  std::vector<read_options> out(6);
  out[1].launch_details = out[1].range_sources = true;
  out[2].launch_shapes = true;
  out[2].streams = out[2].correlations = false;
  out[3].kernel_names = kernel_naming::mangled;
  out[4].kernel_names = kernel_naming::base;
  out[5].correlations = false;  // the summary's: streams without correlations
  return out;
}

void expect_same_batches(row_batch const& direct, row_batch const& sql) {
  EXPECT_EQ(direct.start, sql.start);
  EXPECT_EQ(direct.end, sql.end);
  EXPECT_EQ(direct.stream, sql.stream);
  EXPECT_EQ(direct.correlation, sql.correlation);
  EXPECT_EQ(direct.bytes, sql.bytes);
  EXPECT_EQ(direct.name_raw, sql.name_raw);
  EXPECT_EQ(direct.name_fallback, sql.name_fallback);
  EXPECT_EQ(direct.rank, sql.rank);
  EXPECT_EQ(direct.device, sql.device);
  EXPECT_EQ(direct.subkind, sql.subkind);
  EXPECT_EQ(direct.details, sql.details);
  EXPECT_EQ(direct.shapes, sql.shapes);
  EXPECT_EQ(direct.skipped, sql.skipped);
}

/// What comparing one database did: plans read directly, and rows compared.
struct compared {
  int direct_plans = 0;
  int sqlite_plans = 0;
  std::size_t rows = 0;
};

/// Reads every plan of `db` both ways, the whole table and `ranges` random sub-ranges, through
/// `pages`; every plan with a root page must be read directly.
compared compare_plans(nsys::connection& db, nsys::page_reader& pages, int ranges,
                       std::mt19937_64& rng) {
  nsys::export_schema const schema(db);
  compared out;
  for (auto const& options : option_sets())
    for (auto source : every_source) {
      auto const plan = nsys::plan_table(schema, db.path(), source, options);
      if (!plan) continue;
      auto const bounds = nsys::rowid_bounds(db, plan->table);
      if (!bounds) continue;
      SCOPED_TRACE(plan->table + " " + plan->sql);
      (plan->root_page > 0 ? out.direct_plans : out.sqlite_plans) += 1;
      auto [lo, hi] = *bounds;
      for (int r = 0; r <= ranges; ++r) {
        row_batch direct, sql;
        nsys::load_rows_with_sqlite(db, *plan, lo, hi, sql);
        EXPECT_EQ(nsys::try_load_direct(pages, *plan, lo, hi, direct), plan->root_page > 0);
        if (plan->root_page > 0) expect_same_batches(direct, sql);
        out.rows += sql.start.size();
        std::uniform_int_distribution<std::int64_t> pick(bounds->first, bounds->second);
        lo = pick(rng), hi = pick(rng);
        if (lo > hi) std::swap(lo, hi);
      }
    }
  return out;
}

TEST(nsys_direct_read, every_plan_of_every_real_export_reads_as_through_sqlite) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  std::mt19937_64 rng(7);
  int kernel_files = 0;
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    nsys::connection db(f.string(), true);
    nsys::page_reader pages(f.string());
    auto const c = compare_plans(db, pages, 3, rng);
    EXPECT_GT(c.direct_plans, 0);
    EXPECT_GT(c.rows, 0u);
    // Every table nsys writes has INTEGER columns the plans read: only NVTX (text) needs SQLite.
    oracle_db oracle(f);
    kernel_files += oracle.has_table("CUPTI_ACTIVITY_KIND_KERNEL");
    auto const option_count = static_cast<int>(option_sets().size());
    EXPECT_EQ(c.sqlite_plans, oracle.has_table("NVTX_EVENTS") ? option_count : 0);
  }
  EXPECT_GE(kernel_files, 8);
}

TEST(nsys_direct_read, an_image_in_memory_reads_as_its_file) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
  auto const bytes = slurp(f);
  nsys::connection db(f.string(), true);
  nsys::page_reader pages(std::as_bytes(std::span(bytes.data(), bytes.size())));
  std::mt19937_64 rng(11);
  auto const c = compare_plans(db, pages, 2, rng);
  EXPECT_GT(c.direct_plans, 0);
}

/// The page number of the kernel table's root, and the page size.
std::pair<std::size_t, std::size_t> kernel_root(fs::path const& file) {
  oracle_db db(file);
  auto const root = db.query(
      "SELECT rootpage FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'")[0][0];
  return {static_cast<std::size_t>(root.i),
          static_cast<std::size_t>(db.query("PRAGMA page_size")[0][0].i)};
}

TEST(nsys_direct_read, a_deep_generated_tree_reads_the_same_in_any_range) {
  temp_dir dir("direct_deep");
  event_table generated;
  auto const file =
      write_generated_export({2, 2, 150, 120}, generated, dir, "deep.sqlite");  // 72 k kernels
  nsys::connection db(file.string(), true);
  nsys::page_reader pages(file.string());
  std::mt19937_64 rng(3);
  auto const c = compare_plans(db, pages, 20, rng);
  EXPECT_GT(c.direct_plans, 0);
  // Deep enough that a range starts below an interior page of an interior page.
  auto const [root, page_size] = kernel_root(file);
  auto const bytes = slurp(file);
  auto const at = (root - 1) * page_size;
  ASSERT_EQ(static_cast<unsigned char>(bytes[at]), 0x05);
  std::size_t const cell = at + big_endian(bytes, at + 12, 2);
  std::size_t const child = big_endian(bytes, cell, 4);
  EXPECT_EQ(static_cast<unsigned char>(bytes[(child - 1) * page_size]), 0x05);
}

/// A minimal export: StringIds and a kernel table declared by `kernel_columns`.
fs::path make_export(temp_dir const& dir, std::string const& name,
                     std::string const& kernel_columns) {
  auto const path = dir.path() / name;
  oracle_db db(path, true);
  db.exec(
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT INTO StringIds VALUES (1, 'k');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (" +
      kernel_columns + ")");
  return path;
}

/// Plans the kernel table with launch shapes and compares both reads; whether it was direct.
bool kernel_plan_reads_the_same(fs::path const& file, row_batch* rows = nullptr) {
  nsys::connection db(file.string(), true);
  nsys::export_schema const schema(db);
  read_options options;
  options.launch_shapes = true;
  auto const plan = nsys::plan_table(schema, file.string(), source_table::kernel, options);
  EXPECT_TRUE(plan);
  if (!plan) return false;
  auto const bounds = nsys::rowid_bounds(db, plan->table);
  EXPECT_TRUE(bounds);
  if (!bounds) return false;
  row_batch direct, sql, either;
  nsys::load_rows_with_sqlite(db, *plan, bounds->first, bounds->second, sql);
  nsys::page_reader pages(file.string());
  bool const was_direct =
      nsys::try_load_direct(pages, *plan, bounds->first, bounds->second, direct);
  if (was_direct) expect_same_batches(direct, sql);
  // The reader's entry point gives SQLite's rows whichever way it went.
  nsys::load_rows(db, &pages, *plan, bounds->first, bounds->second, either);
  expect_same_batches(either, sql);
  if (rows) *rows = sql;
  return was_direct;
}

constexpr char const* kernel_columns =
    "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, streamId INTEGER, "
    "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER";

/// The kernel rows of an export whose kernel table is declared by `columns` and filled by `sql`,
/// read both ways; `direct`: whether the direct read must be taken (else left to SQLite).
row_batch kernel_rows(std::string const& tag, std::string const& columns, std::string const& sql,
                      bool direct) {
  temp_dir dir(tag);
  auto const file = make_export(dir, tag + ".sqlite", columns);
  oracle_db(file, true).exec(sql);
  row_batch rows;
  EXPECT_EQ(kernel_plan_reads_the_same(file, &rows), direct);
  return rows;
}

TEST(nsys_direct_read, a_column_added_later_reads_null_in_older_records) {
  auto const rows = kernel_rows(
      "direct_alter", kernel_columns,
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 0, 1, NULL);"
      "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN gridX INTEGER;"
      "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN blockX INTEGER;"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30, 40, 0, 7, 2, 0, 1, 1, 64, 128)",
      true);
  ASSERT_EQ(rows.shapes.size(), 2u);
  EXPECT_EQ(rows.shapes[0].grid[0], -1);  // the older record has no gridX: NULL, absent
  EXPECT_EQ(rows.shapes[1].grid[0], 64);
  EXPECT_EQ(rows.shapes[1].block[0], 128);
}

TEST(nsys_direct_read, a_column_with_a_default_is_left_to_sqlite) {
  auto const rows =
      kernel_rows("direct_default", kernel_columns,
                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 0, 1, NULL);"
                  "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN gridX INTEGER DEFAULT 5",
                  false);
  ASSERT_EQ(rows.shapes.size(), 1u);
  EXPECT_EQ(rows.shapes[0].grid[0], 5);  // SQLite's default for the record that lacks it
}

TEST(nsys_direct_read, a_real_column_is_left_to_sqlite) {
  // REAL affinity stores 7.0 as the integer 7 on disk; SQLite returns it as a REAL.
  auto const rows = kernel_rows(
      "direct_real",
      "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, streamId REAL, "
      "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL",
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7.0, 1, 0, 1)", false);
  EXPECT_EQ(rows.skipped.at("non_integer_value"), 1);
}

TEST(nsys_direct_read, non_integer_values_nulls_and_extreme_rowids_read_the_same) {
  auto const rows =
      kernel_rows("direct_values", kernel_columns + std::string(", gridX INTEGER"),
                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (rowid, start, end, deviceId, streamId, "
                  "correlationId, globalPid, demangledName, shortName, gridX) VALUES "
                  "(-9223372036854775808, 1, 2, 0, NULL, NULL, NULL, 1, NULL, NULL),"
                  "(-1, 3, 4, 0, 1.5, 1, 0, 1, 1, 0),"   // a real: skipped
                  "(0, 5, 6, 0, 1, 'x', 0, 1, 1, 1),"    // a text: skipped
                  "(1, 7, 8, 0, 1, 2, 0, 1, 1, x'00'),"  // a blob: skipped
                  "(2, -9223372036854775808, 9223372036854775807, 1, 127, 128, 32767, 1, 1, 32768),"
                  "(3, 8388607, 8388608, 0, 2147483647, 2147483648, 140737488355327, 1, 1, -1),"
                  "(9223372036854775807, 0, 1, 0, 1, 1, 1, 1, 1, 0)",
                  true);
  EXPECT_EQ(rows.start.size(), 4u);
  EXPECT_EQ(rows.skipped.at("non_integer_value"), 3);
}

TEST(nsys_direct_read, a_row_on_overflow_pages_is_left_to_sqlite) {
  auto const rows = kernel_rows(
      "direct_overflow", kernel_columns + std::string(", note TEXT"),
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 0, 1, 1, 'short');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30, 40, 0, 7, 2, 0, 1, 1, "
      "printf('%.20000c', 'x'))",
      false);
  EXPECT_EQ(rows.start.size(), 2u);
}

/// `file` with the bytes at `at` replaced by `with`.
void patch(fs::path const& file, std::size_t at, std::string const& with) {
  auto bytes = slurp(file);
  bytes.replace(at, with.size(), with);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(nsys_direct_read, damaged_trees_fall_back_and_never_hang) {
  temp_dir dir("direct_damaged");
  event_table generated;
  auto const file = write_generated_export({1, 1, 60, 60}, generated, dir, "tree.sqlite");
  auto const [root, page_size] = kernel_root(file);
  auto const at = (root - 1) * page_size;
  ASSERT_EQ(static_cast<unsigned char>(slurp(file)[at]), 0x05) << "an interior root";
  auto const damaged = [&](std::string const& name) {
    auto const copy = dir.path() / name;
    fs::copy_file(file, copy);
    return copy;
  };
  nsys::connection db(file.string(), true);
  nsys::export_schema const schema(db);
  auto const plan = nsys::plan_table(schema, file.string(), source_table::kernel, {});
  ASSERT_TRUE(plan);
  auto const bounds = nsys::rowid_bounds(db, plan->table);
  ASSERT_TRUE(bounds);
  auto const direct = [&](fs::path const& f) {
    nsys::page_reader pages(f.string());
    row_batch out;
    bool const ok = nsys::try_load_direct(pages, *plan, bounds->first, bounds->second, out);
    EXPECT_TRUE(ok || out.start.empty());
    return ok;
  };
  EXPECT_TRUE(direct(file));
  // The right-most child is the root itself: a cycle.
  auto const cycle = damaged("cycle.sqlite");
  std::string self(4, '\0');
  for (int i = 0; i < 4; ++i) self[3 - i] = static_cast<char>((root >> (8 * i)) & 0xFF);
  patch(cycle, at + 8, self);
  EXPECT_FALSE(direct(cycle));
  // More cells than the page holds.
  auto const cells = damaged("cells.sqlite");
  patch(cells, at + 3, std::string("\xff\xff", 2));
  EXPECT_FALSE(direct(cells));
  // A child past the end of the file.
  auto const beyond = damaged("beyond.sqlite");
  patch(beyond, at + 8, std::string("\x7f\xff\xff\xff", 4));
  EXPECT_FALSE(direct(beyond));
  // Not a table page at all.
  auto const index = damaged("index.sqlite");
  patch(index, at, std::string("\x02", 1));
  EXPECT_FALSE(direct(index));
}

}  // namespace nsys_direct_read_test

}  // namespace tracesweep::test
