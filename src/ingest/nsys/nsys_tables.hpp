// SPDX-License-Identifier: Apache-2.0
// Per-table loaders for nsys exports: each selects only the columns it needs, by name, in rowid
// order, from a rowid range, into a row_batch of raw values (StringIds ids not yet interned), so
// ranges can be read on several connections at once and appended in order.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/event_kind.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/sqlite_db.hpp"
#include "ingest/nsys/sqlite_pages.hpp"

namespace tracesweep::nsys {

enum class source_table { kernel, memcpy, memset, runtime, synchronization, nvtx, osrt };

/// How a row's name is found.
enum class name_source {
  string_id,  ///< name_raw is a StringIds id
  copy_kind,  ///< "[CUDA memcpy <label of subkind>]"
  memset,     ///< "[CUDA memset]"
  sync_type,  ///< label of subkind
  nvtx,       ///< text, else StringIds[name_raw], prefixed by the domain name when known
};

/// The logical fields a plan may select (nsys_tables.cpp names them).
inline constexpr int plan_field_count = 27;

/// What to read from one table: its SQL and how rows become events.
struct table_plan {
  source_table source;
  std::string table;
  event_kind kind;
  name_source names;
  std::string sql;  ///< SELECT … WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid
  /// Result column of each logical field (-1 = not selected; the field's default applies).
  /// Nullable fields other than start/end/text come back through coalesce(…, default).
  std::array<int, plan_field_count> column{};
  bool start_nullable = true;
  bool end_nullable = true;
  bool details = false;  ///< rows carry device_details (read_options::launch_details)
  bool shapes = false;   ///< rows carry launch_shape (read_options::launch_shapes)
  bool sources = false;  ///< NVTX rows carry range_source (read_options::range_sources)
  /// Reading the table's B-tree pages directly (sqlite_btree.hpp): the root page, 0 when the
  /// plan must go through SQLite (a text field, a column SQLite would convert); each field's
  /// column in the records (-1 = not selected); the fields whose NULL becomes their default
  /// (the SELECT's coalesce), where other NULLs read as 0 like sqlite3_value_int64's.
  std::int64_t root_page = 0;
  std::array<int, plan_field_count> record_column{};
  std::uint32_t coalesced = 0;  ///< bit f: field f
};

/// An NVTX domain-create row (eventType 75).
struct nvtx_domain {
  std::int32_t pid;
  std::int64_t domain;
  std::string name;
};

/// Raw rows of one rowid range; columns as in event_table, names still unresolved.
struct row_batch {
  std::vector<std::int64_t> start, end, stream, correlation, bytes, name_raw, name_fallback;
  std::vector<std::int32_t> rank, device;
  std::vector<std::uint8_t> subkind;
  // NVTX only: inline text (empty + has_text=0 → use name_raw), domain id.
  std::vector<std::string> text;
  std::vector<std::uint8_t> has_text;
  std::vector<std::int64_t> domain;
  std::vector<std::int64_t> rowid;  ///< when the plan reads sources
  std::vector<nvtx_domain> domains;
  std::vector<device_details> details;  ///< one per row when the plan reads them
  std::vector<launch_shape> shapes;     ///< one per row when the plan reads them
  std::map<std::string, std::int64_t> skipped;

  /// Empties every column, keeping the storage for the next range.
  void clear();
  /// Reserves room for `rows` rows in the integer columns.
  void reserve(std::size_t rows);
};

/// The plan for `source` as `options` ask (kernel names, launch details, range sources), or
/// nothing when the export lacks the table. Throws input_error when the table exists but lacks
/// a column no event can do without (start, end).
[[nodiscard]] std::optional<table_plan> plan_table(export_schema const& schema,
                                                   std::string const& path, source_table source,
                                                   read_options const& options);

/// Reads rows with rowid in [lo, hi] into `out`, which is empty: from the table's B-tree pages
/// through `pages` when the plan allows it and the pages are as expected, else (or when `pages`
/// is null) through one prepared SELECT, one sqlite3_step per row. Both give the same rows.
void load_rows(connection& db, page_reader* pages, table_plan const& plan, std::int64_t lo,
               std::int64_t hi, row_batch& out);

/// Reads rows with rowid in [lo, hi] into the empty `out` from the table's B-tree pages alone;
/// false, with `out` emptied, when the plan cannot be read so (root_page 0) or a page or record
/// is not as expected.
bool try_load_direct(page_reader& pages, table_plan const& plan, std::int64_t lo, std::int64_t hi,
                     row_batch& out);

/// The same through SQLite alone: the oracle of the direct read in tests.
void load_rows_with_sqlite(connection& db, table_plan const& plan, std::int64_t lo, std::int64_t hi,
                           row_batch& out);

}  // namespace tracesweep::nsys
