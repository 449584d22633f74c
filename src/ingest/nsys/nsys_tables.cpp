// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_tables.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include <tracesweep/error.hpp>

#include "ingest/nsys/sqlite_btree.hpp"
#include "ingest/nsys/sqlite_record.hpp"

namespace tracesweep::nsys {

namespace {

// The logical fields every plan selects, in this order; a field the table lacks is NULL.
enum field : int {
  f_start,
  f_end,
  f_device,
  f_stream,
  f_correlation,
  f_global_pid,
  f_global_tid,
  f_name,
  f_name_fallback,
  f_bytes,
  f_subkind,
  f_text,
  f_domain,
  f_rowid,  // NVTX range sources only
  // Launch details (table_plan::details only).
  f_context,
  f_green_context,
  f_grid_x,
  f_grid_y,
  f_grid_z,
  f_block_x,
  f_block_y,
  f_block_z,
  f_registers,
  f_static_shared,
  f_dynamic_shared,
  f_src_kind,
  f_dst_kind,
  field_count
};
static_assert(field_count == plan_field_count);
static_assert(field_count <= 32);  // table_plan::coalesced has a bit per field

/// Direct reads decode record headers up to this many columns.
constexpr int max_record_columns = 64;

struct source_info {
  char const* table;
  event_kind kind;
  name_source names;
};

source_info info_of(source_table s) {
  switch (s) {
    case source_table::kernel:
      return {"CUPTI_ACTIVITY_KIND_KERNEL", event_kind::kernel, name_source::string_id};
    case source_table::memcpy:
      return {"CUPTI_ACTIVITY_KIND_MEMCPY", event_kind::memcpy, name_source::copy_kind};
    case source_table::memset:
      return {"CUPTI_ACTIVITY_KIND_MEMSET", event_kind::memset, name_source::memset};
    case source_table::runtime:
      return {"CUPTI_ACTIVITY_KIND_RUNTIME", event_kind::api_call, name_source::string_id};
    case source_table::synchronization:
      return {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", event_kind::synchronization,
              name_source::sync_type};
    case source_table::nvtx:
      return {"NVTX_EVENTS", event_kind::user_range, name_source::nvtx};
    case source_table::osrt:
      return {"OSRT_API", event_kind::os_call, name_source::string_id};
  }
  return {"", event_kind::other, name_source::string_id};
}

/// The value a field takes when the table lacks it or the row holds NULL.
constexpr std::int64_t default_of(int f) {
  if (f >= f_context) return -1;  // launch details: absent
  switch (f) {
    case f_device:
    case f_stream:
    case f_correlation:
    case f_name:
    case f_name_fallback:
      return -1;
    default:
      return 0;
  }
}

/// Picks the launch-detail columns of a device table that has them.
template <class Pick>
void pick_details(source_table source, bool shapes_only, Pick&& pick) {
  if (shapes_only) {  // read_options::launch_shapes alone: grid and block, the rest stays -1
    pick(f_grid_x, {"gridX"}), pick(f_grid_y, {"gridY"}), pick(f_grid_z, {"gridZ"});
    pick(f_block_x, {"blockX"}), pick(f_block_y, {"blockY"}), pick(f_block_z, {"blockZ"});
    return;
  }
  pick(f_context, {"contextId"});
  pick(f_green_context, {"greenContextId"});
  if (source == source_table::kernel) {
    pick(f_grid_x, {"gridX"}), pick(f_grid_y, {"gridY"}), pick(f_grid_z, {"gridZ"});
    pick(f_block_x, {"blockX"}), pick(f_block_y, {"blockY"}), pick(f_block_z, {"blockZ"});
    pick(f_registers, {"registersPerThread"});
    pick(f_static_shared, {"staticSharedMemory"});
    pick(f_dynamic_shared, {"dynamicSharedMemory"});
  } else if (source == source_table::memcpy) {
    pick(f_src_kind, {"srcKind"}), pick(f_dst_kind, {"dstKind"});
  } else if (source == source_table::memset) {
    pick(f_src_kind, {"memKind"});
  }
}

constexpr std::int32_t pid_of(std::int64_t global) {
  return static_cast<std::int32_t>((global >> 24) & 0xFFFFFF);
}
constexpr std::int64_t tid_of(std::int64_t global) {
  return global & 0xFFFFFF;
}

/// The columns a plan selects, one per field (empty: none), picked from the table's schema.
class column_picker {
 public:
  column_picker(export_schema const& schema, std::string table)
      : _schema(schema), _table(std::move(table)) {}
  /// Takes the first of `candidates` the table has for `f`; false when it has none.
  bool operator()(field f, std::initializer_list<char const*> candidates) {
    for (auto const* c : candidates)
      if (_schema.has_column(_table, c)) {
        expr[f] = c;
        return true;
      }
    return false;
  }
  std::array<std::string, field_count> expr;

 private:
  export_schema const& _schema;
  std::string _table;
};

/// The kernel name column by `naming`, and the fallback for a NULL name when the chosen column
/// can be NULL.
void pick_kernel_name(column_picker& pick, export_schema const& schema, std::string const& path,
                      std::string const& table, kernel_naming naming) {
  bool found = false;
  if (naming == kernel_naming::base) found = pick(f_name, {"shortName", "demangledName"});
  if (naming == kernel_naming::mangled) found = pick(f_name, {"mangledName", "demangledName"});
  if (naming == kernel_naming::demangled || !found)
    found = pick(f_name, {"demangledName", "shortName", "name"});
  if (!found) throw input_error(path, table, "no kernel name column (demangledName)");
  // A NULL name falls back to demangledName, then shortName: only worth a column when the
  // chosen one can be NULL.
  if (!schema.is_not_null(table, pick.expr[f_name])) {
    pick(f_name_fallback, {"demangledName", "shortName"});
    if (pick.expr[f_name_fallback] == pick.expr[f_name]) pick.expr[f_name_fallback].clear();
  }
}

/// The columns only `source` has: names, bytes, subkinds, NVTX text and domains.
void pick_source_columns(column_picker& pick, export_schema const& schema, std::string const& path,
                         std::string const& table, source_table source,
                         read_options const& options) {
  switch (source) {
    case source_table::kernel:
      pick_kernel_name(pick, schema, path, table, options.kernel_names);
      break;
    case source_table::memcpy:
      pick(f_bytes, {"bytes"});
      pick(f_subkind, {"copyKind"});
      break;
    case source_table::memset:
      pick(f_bytes, {"bytes"});
      break;
    case source_table::runtime:
    case source_table::osrt:
      if (!pick(f_name, {"nameId"})) throw input_error(path, table, "no 'nameId' column");
      break;
    case source_table::synchronization:
      pick(f_subkind, {"syncType"});
      break;
    case source_table::nvtx:
      if (!pick(f_subkind, {"eventType"})) throw input_error(path, table, "no 'eventType' column");
      pick(f_text, {"text"});
      pick(f_name, {"textId"});
      pick(f_domain, {"domainId"});
      if (options.range_sources) pick.expr[f_rowid] = "rowid";
      break;
  }
}

/// The plan's SELECT of the picked columns and the result column of each field; and where each
/// lies in the table's records, for reading them directly when every one can be.
void select_columns(table_plan& plan, export_schema const& schema,
                    std::array<std::string, field_count> const& expr) {
  int next = 0;
  bool direct = true;
  for (int f = 0; f < field_count; ++f) {
    plan.column[f] = plan.record_column[f] = -1;
    if (expr[f].empty()) continue;
    std::string e = f == f_rowid ? expr[f] : quote_identifier(expr[f]);
    // NULL start/end/text are seen by the loader; other fields take their default in SQL
    // (a NOT NULL column needs no coalesce, which costs a VM step per row).
    if (f != f_start && f != f_end && f != f_text && f != f_rowid &&
        !schema.is_not_null(plan.table, expr[f])) {
      e = "coalesce(" + e + ", " + std::to_string(default_of(f)) + ")";
      plan.coalesced |= std::uint32_t{1} << f;
    }
    plan.sql += (next ? ", " : "") + e;
    plan.column[f] = next++;
    auto const at =
        f == f_text || f == f_rowid ? std::nullopt : schema.record_column(plan.table, expr[f]);
    direct = direct && at && *at < max_record_columns;
    if (at) plan.record_column[f] = *at;
  }
  plan.root_page = direct ? schema.root_page(plan.table) : 0;
  plan.start_nullable = !schema.is_not_null(plan.table, "start");
  plan.end_nullable = !schema.is_not_null(plan.table, "end");
  plan.sql +=
      " FROM " + quote_identifier(plan.table) + " WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid";
}

}  // namespace

std::optional<table_plan> plan_table(export_schema const& schema, std::string const& path,
                                     source_table source, read_options const& options) {
  auto const info = info_of(source);
  std::string const table = info.table;
  if (!schema.has_table(table)) return std::nullopt;
  column_picker pick(schema, table);
  for (auto [f, c] : {std::pair{f_start, "start"}, std::pair{f_end, "end"}})
    if (!pick(f, {c})) throw input_error(path, table, std::string("no '") + c + "' column");
  bool const device_side = source == source_table::kernel || source == source_table::memcpy ||
                           source == source_table::memset ||
                           source == source_table::synchronization;
  if (device_side) {
    pick(f_device, {"deviceId"});
    if (options.streams) pick(f_stream, {"streamId"});
    pick(f_global_pid, {"globalPid"});
  } else {
    pick(f_global_tid, {"globalTid"});
  }
  if (options.correlations) pick(f_correlation, {"correlationId"});
  pick_source_columns(pick, schema, path, table, source, options);
  bool const all_details =
      options.launch_details && (source == source_table::kernel || source == source_table::memcpy ||
                                 source == source_table::memset);
  bool const shapes = options.launch_shapes && source == source_table::kernel;
  if (all_details || shapes) pick_details(source, !all_details, pick);
  table_plan plan{source, table, info.kind, info.names, "SELECT ", {}, true, true};
  plan.details = all_details;
  plan.shapes = shapes;
  plan.sources = !pick.expr[f_rowid].empty();
  select_columns(plan, schema, pick.expr);
  return plan;
}

namespace {

/// Field `f` of a row as an Int (-1 where absent or out of range).
template <class Int, class Get>
Int narrowed(Get const& get, int f) {
  auto const v = get(f);
  return v >= -1 && v <= std::numeric_limits<Int>::max() ? static_cast<Int>(v) : Int{-1};
}

/// A kernel row's launch configuration from its fields (-1 where absent or out of range).
template <class Get>
launch_shape shape_of(Get const& get) {
  auto const dim = [&](int f) { return narrowed<std::int32_t>(get, f); };
  return {{dim(f_grid_x), dim(f_grid_y), dim(f_grid_z)},
          {dim(f_block_x), dim(f_block_y), dim(f_block_z)}};
}

/// A row's launch details from its fields (-1 where absent or out of range).
template <class Get>
device_details details_of(Get const& get) {
  device_details d;
  d.context = get(f_context);
  d.green_context = get(f_green_context);
  auto const shape = shape_of(get);
  d.grid = shape.grid;
  d.block = shape.block;
  d.registers_per_thread = narrowed<std::int32_t>(get, f_registers);
  d.static_shared_bytes = get(f_static_shared);
  d.dynamic_shared_bytes = get(f_dynamic_shared);
  d.src_kind = narrowed<std::int16_t>(get, f_src_kind);
  d.dst_kind = narrowed<std::int16_t>(get, f_dst_kind);
  return d;
}

/// The current row of a plan's statement: each column's value taken once per row
/// (sqlite3_column_value) and its type and integer read from it: half the library calls of
/// sqlite3_column_type + sqlite3_column_int64, each of which enters the connection's mutex; 12 %
/// of a kernel read. The values are unprotected, which is safe here: the connection is NOMUTEX,
/// used by this thread alone, and they are read before the next step.
class plan_row {
 public:
  plan_row(sqlite3_stmt* s, table_plan const& plan) : _s(s), _col(plan.column) {
    // Every selected column but the NVTX text holds integers: sqlite3_column_int64 would turn a
    // TEXT, REAL or BLOB value into some number (0, INT64_MAX, …), so such a row is skipped.
    for (int f = 0; f < field_count; ++f)
      if (f != f_text && _col[f] >= 0) _integer_columns[_integer_count++] = _col[f];
    _columns = sqlite3_column_count(s);
  }
  /// Takes the values of the row the statement stands on.
  void take() {
    for (int c = 0; c < _columns; ++c) _value[c] = sqlite3_column_value(_s, c);
  }
  [[nodiscard]] std::int64_t get(int f) const {
    return _col[f] < 0 ? default_of(f) : sqlite3_value_int64(_value[_col[f]]);
  }
  [[nodiscard]] bool is_null(int f) const {
    return sqlite3_value_type(_value[_col[f]]) == SQLITE_NULL;
  }
  [[nodiscard]] char const* text(int f) const {
    return _col[f] < 0 ? nullptr : reinterpret_cast<char const*>(sqlite3_column_text(_s, _col[f]));
  }
  [[nodiscard]] bool has_non_integer() const {
    for (int i = 0; i < _integer_count; ++i) {
      int const type = sqlite3_value_type(_value[_integer_columns[i]]);
      if (type != SQLITE_INTEGER && type != SQLITE_NULL) return true;
    }
    return false;
  }

 private:
  sqlite3_stmt* _s;
  std::array<int, field_count> const& _col;
  std::array<sqlite3_value*, field_count> _value{};
  std::array<int, field_count> _integer_columns{};
  int _integer_count = 0;
  int _columns = 0;
};

/// The current row of a direct read: the record's serial types decoded up to the last column
/// the plan reads, values taken as SQLite would return them (sqlite3_value_int64 semantics).
class record_row {
 public:
  explicit record_row(table_plan const& plan) : _plan(plan) {
    for (int f = 0; f < field_count; ++f)
      if (plan.record_column[f] >= 0) {
        _integer_columns[_integer_count++] = plan.record_column[f];
        _columns = std::max(_columns, static_cast<std::size_t>(plan.record_column[f]) + 1);
      }
  }
  /// Takes the record `payload`; page_format_error when its header is malformed.
  void take(std::span<std::uint8_t const> payload) {
    if (!decode_record(payload, _columns, _value.data())) throw page_format_error("record");
    _payload = payload.data();
  }
  [[nodiscard]] std::int64_t get(int f) const {
    int const c = _plan.record_column[f];
    if (c < 0) return default_of(f);
    auto const v = _value[c];
    if (v.serial == 0) return (_plan.coalesced >> f & 1u) ? default_of(f) : 0;
    return integer_value(_payload, v);
  }
  [[nodiscard]] bool is_null(int f) const { return _value[_plan.record_column[f]].serial == 0; }
  [[nodiscard]] static char const* text(int) { return nullptr; }  // direct plans read no text
  [[nodiscard]] bool has_non_integer() const {
    for (int i = 0; i < _integer_count; ++i) {
      auto const serial = _value[_integer_columns[i]].serial;
      if (serial != 0 && !is_integer_serial(serial)) return true;
    }
    return false;
  }

 private:
  table_plan const& _plan;
  std::array<record_value, max_record_columns> _value{};
  std::array<int, field_count> _integer_columns{};
  int _integer_count = 0;
  std::size_t _columns = 0;
  std::uint8_t const* _payload = nullptr;
};

/// What becomes of a row: kept, or skipped and why.
enum class row_fate { keep, metadata, null_time, unterminated };

/// An NVTX row: a domain name (recorded in `out`, not a row), a range or mark (its style in
/// `subkind`; a mark's NULL end is its start), or other metadata.
template <class Row>
row_fate nvtx_fate(Row const& row, std::int64_t start, std::int64_t& end, std::uint8_t& subkind,
                   row_batch& out) {
  auto const type = row.get(f_subkind);
  if (type == 75) {  // NvtxDomainCreate: text = domain name
    auto const* t = row.text(f_text);
    out.domains.push_back(nvtx_domain{pid_of(row.get(f_global_tid)), row.get(f_domain),
                                      t ? std::string(t) : std::string()});
    return row_fate::metadata;
  }
  if (type == 59 || type == 70) {
    subkind = static_cast<std::uint8_t>(range_style::push_pop);
  } else if (type == 60 || type == 71) {
    subkind = static_cast<std::uint8_t>(range_style::start_end);
  } else if (type == 34) {
    subkind = static_cast<std::uint8_t>(range_style::mark);
    if (row.is_null(f_end)) end = start;
  } else {
    return row_fate::metadata;  // categories, thread names, domain destroy: not events
  }
  if (row.is_null(f_start)) return row_fate::null_time;
  if (subkind != static_cast<std::uint8_t>(range_style::mark) && row.is_null(f_end))
    return row_fate::unterminated;
  return row_fate::keep;
}

/// Appends the kept row to `out`.
template <class Row>
void append_row(Row const& row, table_plan const& plan, std::int64_t start, std::int64_t end,
                std::uint8_t subkind, row_batch& out) {
  bool const host = plan.source == source_table::runtime || plan.source == source_table::nvtx ||
                    plan.source == source_table::osrt;
  out.start.push_back(start);
  out.end.push_back(end);
  out.subkind.push_back(subkind);
  if (host) {
    auto const gtid = row.get(f_global_tid);
    out.rank.push_back(pid_of(gtid));
    out.device.push_back(-1);
    out.stream.push_back(tid_of(gtid));
  } else {
    out.rank.push_back(pid_of(row.get(f_global_pid)));
    out.device.push_back(static_cast<std::int32_t>(row.get(f_device)));
    out.stream.push_back(row.get(f_stream));
  }
  out.correlation.push_back(row.get(f_correlation));
  out.bytes.push_back(row.get(f_bytes));
  out.name_raw.push_back(row.get(f_name));
  if (plan.source == source_table::kernel && plan.column[f_name_fallback] >= 0)
    out.name_fallback.push_back(row.get(f_name_fallback));
  if (plan.details) out.details.push_back(details_of([&](int f) { return row.get(f); }));
  if (plan.shapes) out.shapes.push_back(shape_of([&](int f) { return row.get(f); }));
  if (plan.source == source_table::nvtx) {
    auto const* t = row.text(f_text);
    out.has_text.push_back(t != nullptr);
    out.text.emplace_back(t ? t : "");
    out.domain.push_back(row.get(f_domain));
    if (plan.sources) out.rowid.push_back(row.get(f_rowid));
  }
}

/// Reads every row `next()` moves `row` to into `out`.
template <class Row, class Next>
void load(Row const& row, Next&& next, table_plan const& plan, row_batch& out) {
  bool const nvtx = plan.source == source_table::nvtx;
  bool const subkind_column =
      plan.source == source_table::memcpy || plan.source == source_table::synchronization;
  std::int64_t null_times = 0, unterminated = 0, non_integer = 0;
  while (next()) {
    if (row.has_non_integer()) {
      ++non_integer;
      continue;
    }
    std::uint8_t subkind = 0;
    std::int64_t const start = row.get(f_start);
    std::int64_t end = row.get(f_end);
    auto fate = row_fate::keep;
    if (nvtx)
      fate = nvtx_fate(row, start, end, subkind, out);
    else if ((plan.start_nullable && row.is_null(f_start)) ||
             (plan.end_nullable && row.is_null(f_end)))
      fate = row_fate::null_time;
    else if (subkind_column)
      subkind = static_cast<std::uint8_t>(row.get(f_subkind));
    null_times += fate == row_fate::null_time;
    unterminated += fate == row_fate::unterminated;
    if (fate == row_fate::keep) append_row(row, plan, start, end, subkind, out);
  }
  if (null_times) out.skipped["null_timestamp"] += null_times;
  if (unterminated) out.skipped["unterminated_nvtx_range"] += unterminated;
  if (non_integer) out.skipped["non_integer_value"] += non_integer;
}

/// Reads the rows with rowid in [lo, hi] from the table's B-tree pages; page_format_error when
/// a page or record is not as this reader expects.
void load_direct(page_reader& pages, table_plan const& plan, std::int64_t lo, std::int64_t hi,
                 row_batch& out) {
  record_row row(plan);
  table_cursor cursor(pages, plan.root_page, lo);
  table_cell cell;
  load(
      row,
      [&] {
        if (!cursor.next(cell) || cell.rowid > hi) return false;
        row.take(cell.payload);
        return true;
      },
      plan, out);
}

}  // namespace

void row_batch::clear() {
  for (auto* v :
       {&start, &end, &stream, &correlation, &bytes, &name_raw, &name_fallback, &domain, &rowid})
    v->clear();
  rank.clear(), device.clear(), subkind.clear(), text.clear(), has_text.clear(), details.clear();
  shapes.clear();
  domains.clear(), skipped.clear();
}

void row_batch::reserve(std::size_t rows) {
  for (auto* v : {&start, &end, &stream, &correlation, &bytes, &name_raw}) v->reserve(rows);
  rank.reserve(rows), device.reserve(rows), subkind.reserve(rows);
}

void load_rows_with_sqlite(connection& db, table_plan const& plan, std::int64_t lo, std::int64_t hi,
                           row_batch& out) {
  statement rows(db.get(), db.path(), plan.table, plan.sql);
  rows.bind(1, lo);
  rows.bind(2, hi);
  plan_row row(rows.get(), plan);
  load(
      row,
      [&] {
        if (!rows.step()) return false;  // throws on an SQLite error
        row.take();
        return true;
      },
      plan, out);
}

bool try_load_direct(page_reader& pages, table_plan const& plan, std::int64_t lo, std::int64_t hi,
                     row_batch& out) {
  if (plan.root_page <= 0) return false;
  try {
    load_direct(pages, plan, lo, hi, out);
    return true;
  } catch (page_format_error const&) {
    out.clear();
    return false;
  }
}

void load_rows(connection& db, page_reader* pages, table_plan const& plan, std::int64_t lo,
               std::int64_t hi, row_batch& out) {
  // Whatever the direct read cannot vouch for, SQLite reads again, and says what it makes of it.
  if (pages != nullptr && try_load_direct(*pages, plan, lo, hi, out)) return;
  load_rows_with_sqlite(db, plan, lo, hi, out);
}

}  // namespace tracesweep::nsys
