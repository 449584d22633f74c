// SPDX-License-Identifier: Apache-2.0
// The nsys SQLite reader: checks the file, discovers its schema, reads every event table by
// rowid ranges (optionally on several connections at once) and appends the rows in order. The
// same core reads a database image given as bytes (shared in-memory database, memdb VFS).
#include <tracesweep/ingest/nsys_reader.hpp>
#include <tracesweep/task_threads.hpp>

#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>

#include <tracesweep/error.hpp>

#include "ingest/nsys/nsys_gpu_contexts.hpp"
#include "ingest/nsys/nsys_image.hpp"
#include "ingest/nsys/nsys_integrity.hpp"
#include "ingest/nsys/nsys_labels.hpp"
#include "ingest/nsys/nsys_memory.hpp"
#include "ingest/nsys/nsys_metadata.hpp"
#include "ingest/nsys/nsys_ranks.hpp"
#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/nsys_strings.hpp"
#include "ingest/nsys/nsys_tables.hpp"
#include "ingest/nsys/sqlite_db.hpp"
#include "ingest/nsys/sqlite_pages.hpp"
#include "ingest/ordered_pipeline.hpp"

namespace tracesweep {

namespace {

using namespace nsys;

// Rows a read task holds at most. A batch takes about 57 bytes a row and the pipeline keeps four
// batches a thread in flight: 2^16 rows keep that near 30 MB at 2 threads (2^18 held 120 MB,
// every page of it faulted in fresh, more than a 1 M-kernel export's own columns).
constexpr std::int64_t rows_per_task = 1 << 16;
// Pages are read into SQLite's small page cache, never memory-mapped: mapped pages of the file
// count in the resident set, which then grew past the file's size (1.75 GB for a 1.2 GB export,
// 0.95 GB without), for about 5 % more time. Explicit, whatever SQLite's compiled default.
constexpr char const* mmap_pragma = "PRAGMA mmap_size = 0";

void configure_sqlite_once() {
  static std::once_flag once;
  // Must precede sqlite3_initialize; fails harmlessly (SQLITE_MISUSE) when SQLite already runs.
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

/// One rowid range of one table, read by whichever worker takes it.
struct read_task {
  std::size_t plan;
  std::int64_t lo, hi;
};

/// A worker's means of reading: its connection and its page reader, opened on first use.
struct reader_state {
  std::optional<connection> db;
  std::optional<page_reader> pages;
  bool pages_tried = false;

  void open(db_location const& where) {
    if (db) return;
    db.emplace(where);
    db->exec(mmap_pragma, "open");
  }
  /// The page reader, or null when the file's header is not one it reads (SQLite reads all).
  page_reader* page_source(db_location const& where) {
    if (!pages_tried) {
      pages_tried = true;
      try {
        if (where.memdb.empty())
          pages.emplace(where.path);
        else
          pages.emplace(where.image);
      } catch (page_format_error const&) {
        pages.reset();
      }
    }
    return pages ? &*pages : nullptr;
  }
};

/// Reads one task on this thread's connection or pages.
void read_task_rows(db_location const& where, std::vector<table_plan> const& plans,
                    read_task const& t, reader_state& r, row_batch& out) {
  r.open(where);
  // A task never holds more than rows_per_task rows; its span may be far larger (sparse rowids).
  auto const span = static_cast<std::uint64_t>(t.hi) - static_cast<std::uint64_t>(t.lo);
  out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(span, rows_per_task - 1) + 1));
  load_rows(*r.db, r.page_source(where), plans[t.plan], t.lo, t.hi, out);
}

/// Reads the tasks on `threads` threads and hands each batch to `consume(i, batch)` in task order
/// (ordered_pipeline: a few batches per thread in flight, their storage reused, so memory stays
/// flat and freshly faulted pages are few). `consume` may take the batch (move it out) to keep
/// it.
template <class Consume>
void stream_tasks(db_location const& where, std::vector<table_plan> const& plans,
                  std::vector<read_task> const& tasks, unsigned threads, Consume&& consume) {
  using batch_ptr = std::unique_ptr<row_batch>;
  if (threads <= 1 || tasks.size() <= 1) {
    reader_state r;
    batch_ptr b;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (!b) b = std::make_unique<row_batch>();
      b->clear();
      read_task_rows(where, plans, tasks[i], r, *b);
      consume(i, b);
    }
    return;
  }
  struct item {
    std::size_t task = 0;
    batch_ptr batch;
  };
  tbb::enumerable_thread_specific<reader_state> readers;
  std::size_t next = 0;
  ingest::ordered_pipeline<item>(
      threads,
      [&](item& it) {
        if (next == tasks.size()) return false;
        it.task = next++;
        if (!it.batch) it.batch = std::make_unique<row_batch>();
        it.batch->clear();
        return true;
      },
      [&](item& it) { read_task_rows(where, plans, tasks[it.task], readers.local(), *it.batch); },
      [&](item& it) { consume(it.task, it.batch); });
}

/// Appends the read tasks of table `plan` whose rowids run from `bounds.first` to
/// `bounds.second`; returns an upper bound of the rows they hold. Ranges are a fixed size, so the
/// split (and the result) never depends on the thread count. Rowids nsys writes are dense: the
/// ranges are cut from the span at once. A span wider than the file could hold (rowids near the
/// int64 limits, negative, or far apart) is cut where every rows_per_task-th row begins instead,
/// found by one walk of the rowid b-tree: the tasks, the work and the memory then follow the
/// rows, not the span. `dense` tells which way was taken (the bound is then exact for a table
/// without rowid gaps).
std::uint64_t plan_ranges(connection& db, std::string const& table, std::size_t plan,
                          std::pair<std::int64_t, std::int64_t> bounds, std::uint64_t max_rows,
                          std::vector<read_task>& tasks, bool& dense) {
  auto const [lo, hi] = bounds;
  // hi - lo as unsigned never overflows; +1 is left out so the full int64 range fits too.
  auto const span_less_one = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  dense = span_less_one < max_rows + rows_per_task;
  if (dense) {
    for (std::int64_t a = lo;; a += rows_per_task) {
      bool const last = hi - a < rows_per_task;
      tasks.push_back({plan, a, last ? hi : a + rows_per_task - 1});
      if (last) break;
    }
    return span_less_one + 1;
  }
  statement next(db.get(), db.path(), table,
                 "SELECT rowid FROM " + quote_identifier(table) +
                     " WHERE rowid >= ?1 ORDER BY rowid LIMIT 1 OFFSET " +
                     std::to_string(rows_per_task));
  std::uint64_t rows = 0;
  for (std::int64_t a = lo;;) {
    sqlite3_reset(next.get());
    next.bind(1, a);
    if (!next.step()) {
      tasks.push_back({plan, a, hi});
      return rows + rows_per_task;
    }
    std::int64_t const b = sqlite3_column_int64(next.get(), 0);  // > a: rowids are unique
    tasks.push_back({plan, a, b - 1});
    rows += rows_per_task;
    a = b;
  }
}

/// True when `table` has a row with both times present: the GPU-activity check for a device
/// table the caller did not ask to load (one indexed probe, stops at the first such row).
bool has_timed_row(connection& db, table_plan const& plan) {
  std::string const sql = "SELECT 1 FROM " + quote_identifier(plan.table) +
                          " WHERE start IS NOT NULL AND \"end\" IS NOT NULL LIMIT 1";
  statement probe(db.get(), db.path(), plan.table, sql);
  return probe.step();
}

/// Turns raw batches into events of the current input, resolving names in the main thread.
class appender {
 public:
  appender(event_table& table, string_ids& ids, nsys_labels const& labels)
      : _table(table), _ids(ids), _labels(labels) {}

  void append(table_plan const& plan, row_batch const& b) {
    for (auto const& [reason, n] : b.skipped) _table.skip(reason, n);
    for (auto const& d : b.domains) _domains[{d.pid, d.domain}] = d.name;
    auto const n = b.start.size();
    name_rows(plan, b);
    event_rows rows;
    rows.start = b.start, rows.end = b.end, rows.kind = plan.kind, rows.subkind = b.subkind;
    rows.ranks = b.rank, rows.device = b.device, rows.stream = b.stream, rows.name = _names;
    rows.category = _table.strings().intern(plan.table);
    rows.correlation = b.correlation, rows.bytes = b.bytes, rows.dropped = _unnamed;
    auto row = _table.size();
    _table.append_rows(rows, _kept);
    if (b.details.empty() && b.shapes.empty() && b.rowid.empty()) return;
    for (std::size_t i = 0; i < n; ++i) {
      if (_kept[i] == 0) continue;
      if (!b.details.empty()) _table.add_device_details(b.details[i], row);
      if (!b.shapes.empty()) _table.add_launch_shape(b.shapes[i], row);
      if (!b.rowid.empty()) _table.add_range_source({b.rowid[i], _domain_in_name[i] != 0}, row);
      ++row;
    }
  }

  /// NVTX names need the domain table, which may come in any batch: resolve them last.
  void append_nvtx(table_plan const& plan, std::vector<row_batch const*> const& batches) {
    for (auto const* b : batches)
      for (auto const& d : b->domains) _domains[{d.pid, d.domain}] = d.name;
    for (auto const* b : batches) append(plan, *b);
  }

 private:
  /// Each row's name in _names, whether an NVTX name starts with its domain's in
  /// _domain_in_name; _unnamed marks (and the table counts) the rows whose name id StringIds
  /// lacks: no name to give them. _unnamed stays empty when there are none.
  void name_rows(table_plan const& plan, row_batch const& b) {
    auto const n = b.start.size();
    _names.resize(n), _domain_in_name.assign(n, 0), _unnamed.clear();
    for (std::size_t i = 0; i < n; ++i) {
      bool domain_in_name = false;
      _names[i] = name_of(plan, b, i, domain_in_name);
      _domain_in_name[i] = domain_in_name ? 1 : 0;
      if (_names[i] != string_pool::npos) continue;
      _table.skip("unknown_string_id");
      if (_unnamed.empty()) _unnamed.assign(n, 0);
      _unnamed[i] = 1;
    }
  }

  /// The row's name, or string_pool::npos when it names a StringIds id the table lacks;
  /// `domain_in_name` says whether an NVTX name starts with its domain's name.
  string_id name_of(table_plan const& plan, row_batch const& b, std::size_t i,
                    bool& domain_in_name) {
    auto& pool = _table.strings();
    switch (plan.names) {
      case name_source::string_id: {
        auto raw = b.name_raw[i];
        if (raw < 0 && !b.name_fallback.empty()) raw = b.name_fallback[i];
        return raw < 0 ? pool.intern("<unnamed>") : _ids.intern(raw, pool);
      }
      case name_source::copy_kind:
        return _labels.memcpy_name(b.subkind[i], pool);
      case name_source::memset:
        return pool.intern("[CUDA memset]");
      case name_source::sync_type:
        return _labels.sync_name(b.subkind[i], pool);
      case name_source::nvtx: {
        std::string_view text;
        if (b.has_text[i]) {
          text = b.text[i];
        } else if (b.name_raw[i] >= 0 && !_ids.lookup(b.name_raw[i], text)) {
          return string_pool::npos;
        }
        auto it = _domains.find({b.rank[i], b.domain[i]});
        if (it == _domains.end() || it->second.empty()) return pool.intern(text);
        domain_in_name = true;
        return pool.intern(it->second + ":" + std::string(text));
      }
    }
    return 0;
  }

  event_table& _table;
  string_ids& _ids;
  nsys_labels const& _labels;
  std::map<std::pair<std::int32_t, std::int64_t>, std::string> _domains;
  // A batch's names and masks, their storage kept for the next batch.
  std::vector<string_id> _names;
  std::vector<std::uint8_t> _domain_in_name, _unnamed, _kept;
};

/// True when the database header says WAL mode (file format read/write versions, bytes 18 and
/// 19, equal to 2).
bool is_wal_mode(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 20> head{};
  in.read(head.data(), head.size());
  return in.gcount() == static_cast<std::streamsize>(head.size()) &&
         (head[18] == 2 || head[19] == 2);
}

void read_database(db_location const& where, std::uint64_t bytes, event_table& table,
                   read_options const& options);

void read_file(std::string const& path, event_table& table, read_options const& options) {
  configure_sqlite_once();
  // Nothing is ever written beside the input. A plain read-only connection on a WAL database
  // creates PATH-shm and PATH-wal, and the immutable ones below would not see the WAL's pages:
  // such a file is refused while its WAL holds pages, and read as immutable once it holds none.
  std::optional<connection> guard;
  if (is_wal_mode(path)) {
    std::error_code ec;
    auto const wal = path + "-wal";
    if (auto const n = std::filesystem::file_size(wal, ec); !ec && n > 0)
      throw input_error(path, "open",
                        "is in WAL mode with pages not yet in the main file in " + wal +
                            "; checkpoint it first: sqlite3 " + path +
                            " 'PRAGMA wal_checkpoint(TRUNCATE)'");
  } else {
    // A plain read-only connection holding a read transaction: it fails with SQLITE_BUSY when a
    // writer holds the file, and keeps writers from committing while we read.
    guard.emplace(path, false);
    guard->exec("PRAGMA busy_timeout = 0", "open");
    guard->exec("BEGIN", "open");
    statement probe(guard->get(), path, "open", "SELECT 1 FROM sqlite_master LIMIT 1");
    probe.step();
  }
  std::error_code ec;
  auto const bytes = std::filesystem::file_size(path, ec);
  read_database({path, "", {}}, ec ? 0 : bytes, table, options);
}

/// The plans of the tables `options.kinds` reads; `unread_gpu_activity` is set when a device
/// table it leaves out has a timed row.
std::vector<table_plan> plan_tables(connection& db, export_schema const& schema,
                                    std::string const& path, read_options const& options,
                                    bool& unread_gpu_activity) {
  std::vector<table_plan> plans;
  for (auto src :
       {source_table::kernel, source_table::memcpy, source_table::memset, source_table::runtime,
        source_table::synchronization, source_table::osrt, source_table::nvtx}) {
    auto p = plan_table(schema, path, src, options);
    if (!p) continue;
    if (!(options.kinds & kind_bit(p->kind))) {
      if (is_device_activity(p->kind) && !unread_gpu_activity)
        unread_gpu_activity = has_timed_row(db, *p);
      continue;
    }
    plans.push_back(std::move(*p));
  }
  return plans;
}

/// The rowid ranges the plans are read in, and the integrity check's evidence: device tables
/// should return exactly their dense rowid span.
struct task_plan {
  std::vector<read_task> tasks;
  std::uint64_t rows = 0;         ///< an upper bound of the rows the tasks hold
  std::uint64_t detail_rows = 0;  ///< the same for the plans whose rows carry launch details
  std::uint64_t shape_rows = 0;   ///< the same for the plans whose rows carry launch shapes
  std::uint64_t device_span = 0;
  bool device_dense = true;
};

task_plan plan_tasks(connection& db, std::vector<table_plan> const& plans, std::uint64_t max_rows) {
  task_plan out;
  for (std::size_t p = 0; p < plans.size(); ++p) {
    auto bounds = rowid_bounds(db, plans[p].table);
    if (!bounds) continue;
    bool dense = true;
    auto const span = plan_ranges(db, plans[p].table, p, *bounds, max_rows, out.tasks, dense);
    out.rows += span;
    if (plans[p].details) out.detail_rows += span;
    if (plans[p].shapes) out.shape_rows += span;
    if (is_device_activity(plans[p].kind)) out.device_span += span, out.device_dense &= dense;
  }
  return out;
}

/// Reads the database at `where`, `bytes` long (0 when unknown), into `table`.
void read_database(db_location const& where, std::uint64_t bytes, event_table& table,
                   read_options const& options) {
  auto const& path = where.path;
  connection db(where);
  db.exec(mmap_pragma, "open");
  db.exec("PRAGMA cache_size = -32768", "open");
  export_schema const schema(db);
  if (!schema.looks_like_nsys())
    throw input_error(path, "schema",
                      "not an Nsight Systems export (no StringIds with CUPTI_ACTIVITY_KIND_*, "
                      "NVTX_EVENTS or OSRT_API tables)");

  string_ids ids;
  ids.load(db);
  nsys_labels const labels(db, schema);
  bool unread_gpu_activity = false;  // a device table left out by options.kinds has rows
  auto const plans = plan_tables(db, schema, path, options, unread_gpu_activity);
  unsigned const threads = resolve_threads(options.threads);
  // No table holds more rows than the file has room for (a row takes at least 6 bytes).
  std::uint64_t const max_rows = bytes / 6;
  auto const split = plan_tasks(db, plans, max_rows);
  auto const& tasks = split.tasks;
  std::uint64_t device_rows = 0;
  table.reserve(table.size() + static_cast<std::size_t>(std::min(split.rows, max_rows)));
  // Launch details and shapes grow with the kernels: room for them at once, not by doubling (10 M
  // kernels of 80 bytes each copied about twice over, and as many fresh pages touched).
  auto const details = static_cast<std::size_t>(std::min(split.detail_rows, max_rows));
  table.launch_details.row.reserve(table.launch_details.size() + details);
  table.launch_details.values.reserve(table.launch_details.size() + details);
  auto const shapes = static_cast<std::size_t>(std::min(split.shape_rows, max_rows));
  table.launch_shapes.row.reserve(table.launch_shapes.size() + shapes);
  table.launch_shapes.values.reserve(table.launch_shapes.size() + shapes);
  table.begin_input(path, "nsys-sqlite");
  try {
    load_metadata(db, schema, ids, table.inputs().back());
    if (options.gpu_contexts) load_gpu_contexts(db, schema, ids, table.inputs().back());
    appender app(table, ids, labels);
    std::int64_t gpu_rows = 0;
    std::vector<std::unique_ptr<row_batch>> nvtx;  // held until the plan's last range
    stream_tasks(where, plans, tasks, threads, [&](std::size_t i, std::unique_ptr<row_batch>& b) {
      auto const& plan = plans[tasks[i].plan];
      bool const last = i + 1 == tasks.size() || tasks[i + 1].plan != tasks[i].plan;
      if (options.progress)  // the tasks share the rows about evenly: the file in proportion
        options.progress->bytes_done.store(bytes * (i + 1) / tasks.size(),
                                           std::memory_order_relaxed);
      if (plan.source == source_table::nvtx) {
        nvtx.push_back(std::move(b));
        if (!last) return;
        std::vector<row_batch const*> mine;
        for (auto const& h : nvtx) mine.push_back(h.get());
        app.append_nvtx(plan, mine);
        nvtx.clear();
        return;
      }
      app.append(plan, *b);
      if (!is_device_activity(plan.kind)) return;
      gpu_rows += static_cast<std::int64_t>(b->start.size());
      device_rows += b->start.size();
      for (auto const& [reason, n] : b->skipped) device_rows += static_cast<std::uint64_t>(n);
    });
    check_integrity(db, bytes, split.device_dense && device_rows == split.device_span);
    load_memory_usage(db, schema, table);
    if (gpu_rows == 0 && !unread_gpu_activity)
      throw input_error(path, "CUPTI_ACTIVITY_KIND_KERNEL",
                        "no GPU activity: the export has no kernel, memcpy or memset rows");
    table.finish_input(threads);
    rank_processes(table, launch_rank(db, schema), cuda_processes(db, schema), threads);
  } catch (...) {
    table.abandon_input();
    throw;
  }
}

}  // namespace

bool is_nsys_sqlite(std::string_view head) noexcept {
  constexpr std::string_view magic{"SQLite format 3\0", 16};
  return head.substr(0, magic.size()) == magic;
}

void read_nsys_sqlite(std::string const& path, event_table& table, read_options const& options) {
  read_file(path, table, options);
}

namespace nsys {

namespace {

/// The connection that creates a shared in-memory database and keeps it alive while open.
/// sqlite3_deserialize would not do: it always gives its one connection a private database
/// (memdb.c), and the reader opens several. So the image is written into the shared database's
/// file as it is, through the memdb file's own xWrite, before any connection reads a page.
class memdb_owner {
 public:
  memdb_owner(std::string const& name, std::string const& memdb) : _name(name) {
    int const rc =
        sqlite3_open_v2(("file:" + memdb + "?vfs=memdb").c_str(), &_db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) fail(rc);
  }
  memdb_owner(memdb_owner const&) = delete;
  memdb_owner& operator=(memdb_owner const&) = delete;
  ~memdb_owner() { sqlite3_close(_db); }

  /// Puts `bytes` into the database file as they are (no page of it has been read yet).
  void write(std::span<std::byte const> bytes) {
    sqlite3_file* file = nullptr;
    int rc = sqlite3_file_control(_db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
    if (rc != SQLITE_OK || file == nullptr || file->pMethods == nullptr) fail(rc);
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw input_error(_name, "open", "database image larger than 2 GiB");
    if (bytes.empty()) return;
    rc = file->pMethods->xWrite(file, bytes.data(), static_cast<int>(bytes.size()), 0);
    if (rc != SQLITE_OK) fail(rc);
  }

 private:
  [[noreturn]] void fail(int rc) {
    throw_sqlite(_name, "open", rc == SQLITE_OK ? SQLITE_ERROR : rc, _db);
  }

  std::string _name;
  sqlite3* _db = nullptr;
};

}  // namespace

void read_nsys_sqlite_image(std::string const& name, std::span<std::byte const> bytes,
                            event_table& table, read_options const& options) {
  configure_sqlite_once();
  static std::atomic<std::uint64_t> serial{0};
  db_location const where{name, "/tracesweep-image-" + std::to_string(++serial), bytes};
  memdb_owner owner(name, where.memdb);
  owner.write(bytes);
  read_database(where, bytes.size(), table, options);
}

}  // namespace nsys

}  // namespace tracesweep
