// SPDX-License-Identifier: Apache-2.0
// Writes an event table as an Nsight Systems SQLite export with the tables and columns real
// exports have (schema 3.16-like): StringIds, CUPTI_ACTIVITY_KIND_{KERNEL,MEMCPY,MEMSET,RUNTIME,
// SYNCHRONIZATION}, NVTX_EVENTS, OSRT_API, TARGET_INFO_GPU, TARGET_INFO_SESSION_START_TIME,
// ThreadNames, PROCESSES, META_DATA_EXPORT and the ENUM tables the reports use. Times are written
// relative to the earliest event (nsys's session start), ranks become process ids. One
// transaction, prepared statements, no journal: millions of rows per second.
#include <tracesweep/generator/nsys_sqlite_writer.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tracesweep/memcpy_labels.hpp>

namespace tracesweep {

namespace {

constexpr char const* schema_sql = R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,
  memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT,
  luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxId INTEGER, ctxSwitchType INTEGER,
  computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL,
  eventId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData BLOB);
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  nestingLevel INTEGER, callchainId INTEGER);
)sql";

// CUDA memory usage, as `nsys profile --cuda-memory-usage=true` exports it; written only when
// the table holds memory events.
constexpr char const* memory_schema_sql = R"sql(
CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL,
  label TEXT);
INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES (0, 'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION',
  'Allocation'), (1, 'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION', 'Deallocation');
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL,
  pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL,
  memoryOperationType INTEGER NOT NULL, name TEXT, correlationId INTEGER,
  localMemoryPoolAddress INTEGER, localMemoryPoolReleaseThreshold INTEGER,
  localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER,
  importedMemoryPoolAddress INTEGER, importedMemoryPoolProcessId INTEGER);
)sql";

class db_writer {
 public:
  explicit db_writer(std::string const& path) : _path(path) {
    std::filesystem::remove(path);
    try {
      if (sqlite3_open_v2(path.c_str(), &_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                          nullptr) != SQLITE_OK)
        fail("open");
      exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;");
      exec(schema_sql);
      exec("BEGIN");
    } catch (...) {
      sqlite3_close(_db);  // a failed open still allocates a handle; no destructor runs here
      throw;
    }
  }
  ~db_writer() {
    for (auto* s : _statements) sqlite3_finalize(s);
    sqlite3_close(_db);
  }
  void commit() { exec("COMMIT"); }

  void exec(char const* sql) {
    if (sqlite3_exec(_db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
  }
  sqlite3_stmt* prepare(std::string const& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) fail(sql);
    _statements.push_back(s);
    return s;
  }
  void run(sqlite3_stmt* s) {
    if (sqlite3_step(s) != SQLITE_DONE) fail("insert");
    sqlite3_reset(s);
  }
  [[noreturn]] void fail(std::string const& what) {
    throw std::runtime_error(_path + ": " + what + ": " + sqlite3_errmsg(_db));
  }

 private:
  std::string _path;
  sqlite3* _db = nullptr;
  std::vector<sqlite3_stmt*> _statements;
};

std::string insert_sql(char const* table, int columns, char const* names) {
  std::string sql = std::string("INSERT INTO ") + table + " (" + names + ") VALUES (";
  for (int i = 1; i <= columns; ++i) sql += (i > 1 ? ",?" : "?") + std::to_string(i);
  return sql + ")";
}

void bind(sqlite3_stmt* s, int i, std::int64_t v) {
  sqlite3_bind_int64(s, i, v);
}
void bind(sqlite3_stmt* s, int i, std::string_view v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

/// nsys's shortName: the function name without return type, scope, template or parameters.
std::string base_name(std::string_view full) {
  std::string name(full);
  for (std::string_view const anon : {"(anonymous namespace)::", "<unnamed>::"})
    for (auto p = name.find(anon); p != std::string::npos; p = name.find(anon))
      name.erase(p, anon.size());
  std::string_view head = name;
  if (auto const cut = head.find_first_of("<("); cut != std::string_view::npos && cut > 0)
    head = head.substr(0, cut);
  if (auto const sp = head.rfind(' '); sp != std::string_view::npos) head = head.substr(sp + 1);
  if (auto const sc = head.rfind("::"); sc != std::string_view::npos) head = head.substr(sc + 2);
  return head.empty() ? std::string(full) : std::string(head);
}

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

constexpr std::int64_t global_pid(std::int32_t pid) {
  return (std::int64_t{1} << 48) | (static_cast<std::int64_t>(pid & 0xFFFFFF) << 24);
}

/// The device memory events (host ones have no place in the table), times shifted like rows:
/// memKind 2 (Device), memoryOperationType 0 for an allocation and 1 for a free, bytes ≥ 0.
void write_memory_usage(db_writer& db, event_table const& table, std::int64_t session) {
  auto const& m = table.memory;
  if (m.size() == 0) return;
  db.exec(memory_schema_sql);
  auto* usage = db.prepare(insert_sql(
      "CUDA_GPU_MEMORY_USAGE_EVENTS", 9,
      "start,globalPid,deviceId,contextId,address,pc,bytes,memKind,memoryOperationType"));
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m.device[i] < 0) continue;
    bind(usage, 1, m.time_ns[i] - session), bind(usage, 2, global_pid(m.rank[i]));
    bind(usage, 3, std::int64_t{m.device[i]}), bind(usage, 4, 1);
    bind(usage, 5, static_cast<std::int64_t>(0x7f0000000000 + 4096 * i)), bind(usage, 6, 0);
    bind(usage, 7, m.bytes[i] < 0 ? -m.bytes[i] : m.bytes[i]), bind(usage, 8, 2);
    bind(usage, 9, m.bytes[i] < 0 ? 1 : 0);
    db.run(usage);
  }
}

/// The table's rows by start, ties in row order, whatever order the table holds them in: nsys
/// writes its tables in start order, the processes, devices, streams and threads interleaved (the
/// KERNEL tables of the ten real exports in ../shared/traces are, the RUNTIME ones but for a few
/// rows).
std::vector<std::size_t> rows_by_start(event_table const& table) {
  std::vector<std::size_t> rows(table.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    return table.start_ns[a] < table.start_ns[b];
  });
  return rows;
}

}  // namespace

void write_nsys_sqlite(event_table const& table, std::string const& path) {
  db_writer db(path);
  auto const& pool = table.strings();

  // StringIds: every pool string keeps its pool id; derived names (shortName, mangledName,
  // thread and process names) follow.
  std::vector<std::string> extra;
  std::unordered_map<std::string, std::int64_t> extra_ids;
  auto const pool_size = static_cast<std::int64_t>(pool.size());
  auto string_id_of = [&](std::string s) {
    if (auto const f = pool.find(s); f != string_pool::npos) return static_cast<std::int64_t>(f);
    auto [it, fresh] =
        extra_ids.try_emplace(s, pool_size + static_cast<std::int64_t>(extra.size()));
    if (fresh) extra.push_back(std::move(s));
    return it->second;
  };
  std::vector<std::int64_t> short_of(pool.size(), -1), mangled_of(pool.size(), -1);

  std::int64_t session = std::numeric_limits<std::int64_t>::max();
  for (auto s : table.start_ns) session = std::min(session, s);
  if (table.empty()) session = 0;

  auto* kernel = db.prepare(insert_sql(
      "CUPTI_ACTIVITY_KIND_KERNEL", 27,
      "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,demangledName,"
      "shortName,mangledName,launchType,cacheConfig,registersPerThread,gridX,gridY,gridZ,blockX,"
      "blockY,blockZ,staticSharedMemory,dynamicSharedMemory,localMemoryPerThread,localMemoryTotal,"
      "gridId,sharedMemoryExecuted,sharedMemoryLimitConfig"));
  auto* memcpy = db.prepare(insert_sql(
      "CUPTI_ACTIVITY_KIND_MEMCPY", 17,
      "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,bytes,copyKind,"
      "srcKind,dstKind,srcDeviceId,srcContextId,dstDeviceId,dstContextId,migrationCause"));
  auto* memset = db.prepare(insert_sql(
      "CUPTI_ACTIVITY_KIND_MEMSET", 11,
      "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,value,bytes,"
      "memKind"));
  auto* runtime =
      db.prepare(insert_sql("CUPTI_ACTIVITY_KIND_RUNTIME", 7,
                            "start,end,eventClass,globalTid,correlationId,nameId,returnValue"));
  auto* sync = db.prepare(insert_sql(
      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", 10,
      "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,syncType,"
      "eventId"));
  auto* nvtx =
      db.prepare(insert_sql("NVTX_EVENTS", 6, "start,end,eventType,text,globalTid,domainId"));
  auto* osrt = db.prepare(
      insert_sql("OSRT_API", 7, "start,end,eventClass,globalTid,nameId,returnValue,nestingLevel"));

  std::set<std::pair<std::int32_t, std::int32_t>> gpus;     // (pid, device)
  std::set<std::pair<std::int32_t, std::int64_t>> threads;  // (pid, tid)
  std::int64_t grid_id = 0;
  for (auto const i : rows_by_start(table)) {
    std::int64_t const start = table.start_ns[i] - session;
    std::int64_t const end = table.end_ns[i] - session;
    std::int32_t const pid = table.rank[i];
    std::int64_t const gpid = global_pid(pid);
    std::int64_t const corr = table.correlation_of(i);
    auto const name = table.name[i];
    auto device_columns = [&](sqlite3_stmt* s) {
      bind(s, 1, start), bind(s, 2, end), bind(s, 3, std::max(0, table.device[i]));
      bind(s, 4, 1), bind(s, 5, 0), bind(s, 6, std::max<std::int64_t>(0, table.stream[i]));
      if (corr >= 0)
        bind(s, 7, corr);
      else
        sqlite3_bind_null(s, 7);
      bind(s, 8, gpid);
      gpus.emplace(pid, std::max(0, table.device[i]));
    };
    auto host_tid = [&] {
      std::int64_t const tid = table.stream[i] >= 0 ? (table.stream[i] & 0xFFFFFF) : pid;
      threads.emplace(pid, tid);
      return gpid | tid;
    };
    switch (table.kind[i]) {
      case event_kind::kernel: {
        if (short_of[name] < 0) {
          std::string const base = base_name(pool.at(name));
          short_of[name] = string_id_of(base);
          mangled_of[name] = string_id_of("_Z" + std::to_string(base.size()) + base + "v");
        }
        auto const h = mix(name);
        device_columns(kernel);
        bind(kernel, 9, std::int64_t{name}), bind(kernel, 10, short_of[name]);
        bind(kernel, 11, mangled_of[name]), bind(kernel, 12, 1), bind(kernel, 13, 0);
        bind(kernel, 14, static_cast<std::int64_t>(16 + (h % 8) * 16));
        bind(kernel, 15, static_cast<std::int64_t>(1 + (h >> 8) % 4096)), bind(kernel, 16, 1);
        bind(kernel, 17, 1), bind(kernel, 18, static_cast<std::int64_t>(64 << ((h >> 20) % 4)));
        bind(kernel, 19, 1), bind(kernel, 20, 1);
        bind(kernel, 21, static_cast<std::int64_t>(((h >> 24) % 4) * 4096));
        bind(kernel, 22, static_cast<std::int64_t>(((h >> 28) % 3) * 16384)), bind(kernel, 23, 0);
        bind(kernel, 24, 0), bind(kernel, 25, ++grid_id), bind(kernel, 26, 233472);
        bind(kernel, 27, 1);
        db.run(kernel);
        break;
      }
      case event_kind::memcpy: {
        device_columns(memcpy);
        auto const kind = table.subkind[i];
        bool const host_src = kind == 1 || kind == 9, host_dst = kind == 2 || kind == 9;
        bind(memcpy, 9, table.bytes_of(i)), bind(memcpy, 10, std::int64_t{kind});
        bind(memcpy, 11, host_src ? 1 : 2), bind(memcpy, 12, host_dst ? 1 : 2);
        bind(memcpy, 13, std::max(0, table.device[i])), bind(memcpy, 14, 1);
        bind(memcpy, 15, std::max(0, table.device[i])), bind(memcpy, 16, 1);
        bind(memcpy, 17, 0);
        db.run(memcpy);
        break;
      }
      case event_kind::memset:
        device_columns(memset);
        bind(memset, 9, 0), bind(memset, 10, table.bytes_of(i)), bind(memset, 11, 2);
        db.run(memset);
        break;
      case event_kind::synchronization:
        device_columns(sync);
        bind(sync, 9, std::int64_t{table.subkind[i] <= 4 ? table.subkind[i] : std::uint8_t{3}});
        bind(sync, 10, 0);
        db.run(sync);
        break;
      case event_kind::api_call: {
        auto const text = pool.at(name);
        bool const driver = text.starts_with("cu") && !text.starts_with("cuda");
        bind(runtime, 1, start), bind(runtime, 2, end), bind(runtime, 3, driver ? 1 : 0);
        bind(runtime, 4, host_tid());
        if (corr >= 0)
          bind(runtime, 5, corr);
        else
          sqlite3_bind_null(runtime, 5);
        bind(runtime, 6, std::int64_t{name}), bind(runtime, 7, 0);
        db.run(runtime);
        break;
      }
      case event_kind::os_call:
        bind(osrt, 1, start), bind(osrt, 2, end), bind(osrt, 3, 27), bind(osrt, 4, host_tid());
        bind(osrt, 5, std::int64_t{name}), bind(osrt, 6, 0), bind(osrt, 7, 0);
        db.run(osrt);
        break;
      default: {  // ranges, framework operators, steps: NVTX ranges as PyTorch emits them
        bool const mark = table.kind[i] == event_kind::user_range &&
                          table.subkind[i] == static_cast<std::uint8_t>(range_style::mark);
        bool const start_end =
            table.kind[i] == event_kind::user_range &&
            table.subkind[i] == static_cast<std::uint8_t>(range_style::start_end);
        bind(nvtx, 1, start);
        if (mark)
          sqlite3_bind_null(nvtx, 2);
        else
          bind(nvtx, 2, end);
        bind(nvtx, 3, mark ? 34 : start_end ? 60 : 59), bind(nvtx, 4, pool.at(name));
        bind(nvtx, 5, host_tid()), bind(nvtx, 6, 0);
        db.run(nvtx);
        break;
      }
    }
  }

  // Metadata tables.
  auto* strings = db.prepare("INSERT INTO StringIds (id, value) VALUES (?1, ?2)");
  std::vector<std::int64_t> thread_names;
  for (auto const& [pid, tid] : threads)
    thread_names.push_back(
        string_id_of(tid == pid ? "python" : "pt_thread_" + std::to_string(tid)));
  for (std::size_t id = 0; id < pool.size(); ++id) {
    bind(strings, 1, static_cast<std::int64_t>(id)),
        bind(strings, 2, pool.at(static_cast<string_id>(id)));
    db.run(strings);
  }
  for (std::size_t k = 0; k < extra.size(); ++k) {
    bind(strings, 1, pool_size + static_cast<std::int64_t>(k)), bind(strings, 2, extra[k]);
    db.run(strings);
  }
  auto* thread =
      db.prepare("INSERT INTO ThreadNames (nameId, priority, globalTid) VALUES (?1, 0, ?2)");
  std::size_t t = 0;
  for (auto const& [pid, tid] : threads) {
    bind(thread, 1, thread_names[t++]), bind(thread, 2, global_pid(pid) | tid);
    db.run(thread);
  }
  auto* process =
      db.prepare("INSERT INTO PROCESSES (globalPid, pid, name) VALUES (?1, ?2, 'python3')");
  std::set<std::int32_t> pids;
  for (auto const& [pid, tid] : threads) pids.insert(pid);
  for (auto const& [pid, dev] : gpus) pids.insert(pid);
  for (auto pid : pids) {
    bind(process, 1, global_pid(pid)), bind(process, 2, pid);
    db.run(process);
  }
  auto* gpu = db.prepare(
      "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, l2CacheSize, "
      "totalMemory, memoryBandwidth, clockRate, smCount, pwGpuId, uuid, luid, chipName, cuDevice, "
      "ctxId, ctxSwitchType, computeMajor, computeMinor, smMajor, smMinor) VALUES (1, ?1, "
      "'NVIDIA H100 80GB HBM3', ?2, 1, 52428800, 85520809984, 3352320000000, 1980000000, 132, ?1, "
      "?3, 0, 'GH100', ?1, 1, 0, 9, 0, 9, 0)");
  std::set<std::int32_t> devices;
  for (auto const& [pid, dev] : gpus) devices.insert(dev);
  for (auto dev : devices) {
    char bus[32], uuid[64];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x18 + dev);
    std::snprintf(uuid, sizeof uuid, "GPU-5e1f3c2a-0000-4000-8000-%012d", dev);
    bind(gpu, 1, std::int64_t{dev}), bind(gpu, 2, std::string_view(bus)),
        bind(gpu, 3, std::string_view(uuid));
    db.run(gpu);
  }
  auto* session_row = db.prepare(
      "INSERT INTO TARGET_INFO_SESSION_START_TIME (utcEpochNs, utcTime, localTime) VALUES (?1, "
      "'synthetic', 'synthetic')");
  bind(session_row, 1, session);
  db.run(session_row);
  db.exec(
      "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION_MAJOR', '3'), "
      "('EXPORT_SCHEMA_VERSION_MINOR', '16'), ('EXPORT_SCHEMA_VERSION_MICRO', '1'), "
      "('EXPORT_PARAM_LAZY', 'false'), ('DERIVED_BY', 'tracesweep generate (synthetic)');"
      "INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN', "
      "'Unknown'), (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'), "
      "(2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync'), "
      "(3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'), "
      "(4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');"
      "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'), "
      "(1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'), (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', "
      "'Device'), (3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'), (4, "
      "'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'), (7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', "
      "'Unknown');"
      "INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (0, 'TRACE_PROCESS_EVENT_CUDA_RUNTIME', 'CUDA "
      "Runtime'), (1, 'TRACE_PROCESS_EVENT_CUDA_DRIVER', 'CUDA Driver'), (27, "
      "'TRACE_PROCESS_EVENT_OS_RUNTIME', 'OS Runtime');");
  static constexpr char const* memcpy_names[] = {
      "UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH",     "ATOA",     "ATOD",
      "DTOA",    "DTOD", "HTOH", "PTOP", "UVM_HTOD", "UVM_DTOH", "UVM_DTOD"};
  auto* oper =
      db.prepare("INSERT INTO ENUM_CUDA_MEMCPY_OPER (id, name, label) VALUES (?1, ?2, ?3)");
  for (std::uint8_t k = 0; k < 14; ++k) {
    bind(oper, 1, std::int64_t{k});
    bind(oper, 2, std::string("CUDA_MEMCPY_KIND_") + memcpy_names[k]);
    bind(oper, 3, memcpy_label(k));
    db.run(oper);
  }
  write_memory_usage(db, table, session);
  db.commit();
}

}  // namespace tracesweep
