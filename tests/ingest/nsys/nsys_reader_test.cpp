// SPDX-License-Identifier: Apache-2.0
// The nsys reader's columns on every real export against SQL counts and sums on the same file;
// the summary's per-device unions against a brute-force coverage sweep over the SQL rows; the
// result's independence of the thread count; and the writer → reader round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>

#include "generated_export.hpp"
#include "ingest/nsys/nsys_image.hpp"
#include "nsys_test_support.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_reader_test {

event_table read(std::filesystem::path const& f, unsigned threads,
                 kernel_naming naming = kernel_naming::demangled) {
  read_options o;
  o.kernel_names = naming;
  return read_export(f, threads, o);
}

struct kind_totals {
  std::int64_t rows = 0;
  std::int64_t duration = 0;
  std::int64_t bytes = 0;
};

std::map<event_kind, kind_totals> totals(event_table const& t) {
  std::map<event_kind, kind_totals> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    auto& k = out[t.kind[i]];
    ++k.rows;
    k.duration += t.end_ns[i] - t.start_ns[i];
    k.bytes += t.bytes_of(i);
  }
  return out;
}

kind_totals sql_totals(oracle_db& db, std::string const& table, std::string const& where = "1") {
  if (!db.has_table(table)) return {};
  bool const bytes = db.has_column(table, "bytes");
  auto const r = db.query("SELECT count(*), coalesce(sum(\"end\" - start), 0), " +
                          std::string(bytes ? "coalesce(sum(bytes), 0)" : "0") + " FROM " + table +
                          " WHERE " + where);
  return {r[0][0].i, r[0][1].i, r[0][2].i};
}

TEST(nsys_reader, columns_match_sql_counts_and_sums_on_every_real_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    auto const t = read(f, 1);
    auto got = totals(t);
    oracle_db db(f);
    auto check = [&](event_kind k, kind_totals const& want) {
      SCOPED_TRACE(std::string(to_string(k)));
      EXPECT_EQ(got[k].rows, want.rows);
      EXPECT_EQ(got[k].duration, want.duration);
      EXPECT_EQ(got[k].bytes, want.bytes);
    };
    check(event_kind::kernel, sql_totals(db, "CUPTI_ACTIVITY_KIND_KERNEL"));
    check(event_kind::memcpy, sql_totals(db, "CUPTI_ACTIVITY_KIND_MEMCPY"));
    check(event_kind::memset, sql_totals(db, "CUPTI_ACTIVITY_KIND_MEMSET"));
    check(event_kind::api_call, sql_totals(db, "CUPTI_ACTIVITY_KIND_RUNTIME"));
    check(event_kind::synchronization, sql_totals(db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
    check(event_kind::os_call, sql_totals(db, "OSRT_API"));
    auto ranges =
        sql_totals(db, "NVTX_EVENTS", "(eventType IN (59, 60, 70, 71) AND \"end\" IS NOT NULL)");
    ranges.rows += sql_totals(db, "NVTX_EVENTS", "eventType = 34").rows;
    check(event_kind::user_range, ranges);
    // No row of any other kind.
    std::int64_t checked = 0;
    for (auto k : {event_kind::kernel, event_kind::memcpy, event_kind::memset, event_kind::api_call,
                   event_kind::synchronization, event_kind::os_call, event_kind::user_range})
      checked += got[k].rows;
    EXPECT_EQ(checked, static_cast<std::int64_t>(t.size()));

    // Each row's rank maps back to the OS pid of globalPid / globalTid; device = deviceId.
    std::set<std::int32_t> sql_pids;
    for (auto const& r : db.query("SELECT DISTINCT (globalPid >> 24) & 16777215 FROM "
                                  "CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT DISTINCT (globalTid >> "
                                  "24) & 16777215 FROM CUPTI_ACTIVITY_KIND_RUNTIME"))
      sql_pids.insert(static_cast<std::int32_t>(r[0].i));
    std::set<std::int32_t> pids;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t.kind[i] == event_kind::kernel || t.kind[i] == event_kind::api_call)
        pids.insert(static_cast<std::int32_t>(t.inputs()[0].process_id(t.rank[i])));
    EXPECT_EQ(pids, sql_pids);
    ASSERT_EQ(t.inputs().size(), 1u);
    EXPECT_EQ(t.inputs()[0].format, "nsys-sqlite");
  }
}

TEST(nsys_reader, metadata_matches_sql_on_every_real_export) {
  // Session start, GPU names and thread names against the test's own queries; a table the
  // export lacks means an empty field. Repeated keys: the lowest rowid wins (SQLite's bare
  // column beside min(rowid)).
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  std::int64_t files_with_start = 0, files_with_gpus = 0, files_without_gpus = 0, threads = 0;
  std::int64_t files_with_properties = 0;
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    auto const t = read(f, 1);
    ASSERT_EQ(t.inputs().size(), 1u);
    auto const& info = t.inputs()[0];
    oracle_db db(f);

    std::optional<std::int64_t> start;
    if (db.has_table("TARGET_INFO_SESSION_START_TIME")) {
      auto const r = db.query(
          "SELECT utcEpochNs, min(rowid) FROM TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs IS "
          "NOT NULL");
      if (!r.empty() && r[0][0].type != SQLITE_NULL) start = r[0][0].i;
    }
    EXPECT_EQ(info.session_start_utc_ns, start);
    files_with_start += start.has_value();

    std::map<std::int32_t, std::string> gpus;
    std::string const gpu_table = db.has_table("TARGET_INFO_GPU")        ? "TARGET_INFO_GPU"
                                  : db.has_table("TARGET_INFO_CUDA_GPU") ? "TARGET_INFO_CUDA_GPU"
                                                                         : "";
    if (!gpu_table.empty()) {
      std::string const id = db.has_column(gpu_table, "id") ? "id" : "deviceId";
      for (auto const& r :
           db.query("SELECT " + id + ", name, min(rowid) FROM " + gpu_table + " WHERE " + id +
                    " IS NOT NULL AND name IS NOT NULL GROUP BY " + id))
        gpus[static_cast<std::int32_t>(r[0].i)] = r[1].s;
      // Properties of the same first rows: an absent column or a non-integer is unknown.
      auto col = [&](std::string const& a, std::string const& b = "") {
        if (db.has_column(gpu_table, a)) return a;
        return !b.empty() && db.has_column(gpu_table, b) ? b : std::string("NULL");
      };
      std::map<std::int32_t, input_info::gpu_properties> props;
      for (auto const& r :
           db.query("SELECT g." + id + ", g." + col("totalMemory") + ", g." +
                    col("smCount", "numMultiprocessors") + ", g." + col("computeMajor") + ", g." +
                    col("computeMinor") + " FROM " + gpu_table +
                    " g WHERE g.rowid IN (SELECT min(rowid) FROM " + gpu_table + " WHERE " + id +
                    " IS NOT NULL AND name IS NOT NULL GROUP BY " + id + ")")) {
        auto v = [&](std::size_t k) {
          return r[k].type == SQLITE_INTEGER && r[k].i >= 0 ? r[k].i : std::int64_t{-1};
        };
        props[static_cast<std::int32_t>(r[0].i)] = {v(1), static_cast<std::int32_t>(v(2)),
                                                    static_cast<std::int32_t>(v(3)),
                                                    static_cast<std::int32_t>(v(4))};
        if (v(1) > 0 && v(2) > 0) ++files_with_properties;
      }
      EXPECT_EQ(info.device_properties, props);
    }
    EXPECT_EQ(info.device_names, gpus);
    (gpus.empty() ? files_without_gpus : files_with_gpus) += 1;
    // Every GPU the events name has a name when the export has the table.
    if (!gpus.empty()) {
      std::set<std::int32_t> used;
      for (auto const d : t.device)
        if (d >= 0) used.insert(d);
      for (auto const d : used) EXPECT_TRUE(gpus.contains(d)) << "device " << d;
    }

    std::map<std::int64_t, std::string> names;
    if (db.has_table("ThreadNames"))
      for (auto const& r :
           db.query("SELECT n.globalTid & 16777215, s.value, min(n.rowid) FROM ThreadNames n JOIN "
                    "StringIds s ON s.id = n.nameId WHERE n.globalTid IS NOT NULL "
                    "GROUP BY n.globalTid & 16777215"))
        names[r[0].i] = r[1].s;
    EXPECT_EQ(info.thread_names, names);
    threads += static_cast<std::int64_t>(names.size());
  }
  // The sample set covers both sides: files with and without each table.
  EXPECT_GT(files_with_start, 0);
  EXPECT_GT(files_with_gpus, 0);
  EXPECT_GT(files_without_gpus, 0);
  EXPECT_GT(threads, 0);
  EXPECT_GT(files_with_properties, 0);
}

TEST(nsys_reader, metadata_from_the_early_2021_gpu_table_and_repeated_keys) {
  // No sample predates nsys 2021.3.1, so build one: TARGET_INFO_CUDA_GPU(deviceId, name) instead
  // of TARGET_INFO_GPU, an id and a thread id repeated (first row wins), a NULL start skipped.
  event_table generated;
  temp_dir dir("metadata");
  auto const path = write_generated_export({1, 1, 1, 5}, generated, dir, "early.sqlite");
  {
    oracle_db db(path, true);
    db.exec(
        "DROP TABLE TARGET_INFO_GPU; DELETE FROM TARGET_INFO_SESSION_START_TIME; DELETE FROM "
        "ThreadNames;"
        "CREATE TABLE TARGET_INFO_CUDA_GPU (deviceId INTEGER, name TEXT);"
        "INSERT INTO TARGET_INFO_CUDA_GPU VALUES (1, 'B'), (0, 'A'), (1, 'B again'), (NULL, 'C');"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME (utcEpochNs) VALUES (NULL), (42), (43);"
        "INSERT INTO StringIds (id, value) VALUES (900001, 'main'), (900002, 'worker');"
        "INSERT INTO ThreadNames (nameId, priority, globalTid) VALUES "
        "(900001, 0, (7 << 24) | 5), (900002, 0, (8 << 24) | 5), (900002, 0, (7 << 24) | 6), "
        "(999999, 0, (7 << 24) | 9);");
  }
  auto const t = read(path, 1);
  auto const& info = t.inputs().at(0);
  EXPECT_EQ(info.session_start_utc_ns, std::optional<std::int64_t>(42));
  EXPECT_EQ(info.device_names, (std::map<std::int32_t, std::string>{{0, "A"}, {1, "B"}}));
  // The early table has no property columns: known names, unknown properties.
  EXPECT_EQ(info.device_properties.at(1), input_info::gpu_properties{});
  // tid 5 in two processes: the first row's name; nameId 999999 is not in StringIds.
  EXPECT_EQ(info.thread_names, (std::map<std::int64_t, std::string>{{5, "main"}, {6, "worker"}}));
}

TEST(nsys_reader, kernel_api_links_follow_correlation_within_the_process) {
  // Every kernel whose correlationId has a runtime row in the same process (SQL join) links to
  // exactly that API row's name through the table's columns.
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
  auto const t = read(f, 1);
  std::map<std::pair<std::int32_t, std::int64_t>, std::string> api;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == event_kind::api_call)
      api[{t.rank[i], t.correlation_of(i)}] = std::string(t.strings().at(t.name[i]));
  std::map<std::string, std::int64_t> ours;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == event_kind::kernel)
      if (auto it = api.find({t.rank[i], t.correlation_of(i)}); it != api.end()) ++ours[it->second];
  oracle_db db(f);
  std::map<std::string, std::int64_t> sql;
  for (auto const& r : db.query(
           "SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
           "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND k.globalPid = "
           "(r.globalTid & ~16777215) JOIN StringIds s ON s.id = r.nameId GROUP BY s.value"))
    sql[r[0].s] = r[1].i;
  EXPECT_FALSE(sql.empty());
  EXPECT_EQ(ours, sql);
}

void expect_same_rows(event_table const& a, event_table const& b) {
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.correlation, b.correlation);
  EXPECT_EQ(a.name, b.name);
}

TEST(nsys_reader, result_does_not_depend_on_thread_count) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    expect_same_rows(read(f, 1), read(f, 3));
  }
}

TEST(nsys_reader, a_database_image_in_memory_reads_as_its_file) {
  // The fuzz target's entry point: the bytes in a shared in-memory database, here on 3 threads
  // (3 connections to it). Same rows, same metadata, and nothing created beside the input.
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    std::ifstream in(f, std::ios::binary);
    std::vector<char> const bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    event_table image;
    read_options o;
    o.threads = 3;
    nsys::read_nsys_sqlite_image("image of " + f.filename().string(),
                                 std::as_bytes(std::span(bytes)), image, o);
    auto const file = read(f, 1);
    expect_same_rows(file, image);
    ASSERT_EQ(image.inputs().size(), 1u);
    EXPECT_EQ(image.inputs()[0].path, "image of " + f.filename().string());
    EXPECT_EQ(image.inputs()[0].device_names, file.inputs()[0].device_names);
    EXPECT_EQ(image.inputs()[0].skipped, file.inputs()[0].skipped);
  }
  // A damaged image is an input_error naming it, as a damaged file is.
  std::vector<char> junk(4096, 'x');
  event_table t;
  EXPECT_THROW(nsys::read_nsys_sqlite_image("junk", std::as_bytes(std::span(junk)), t, {}),
               input_error);
  EXPECT_EQ(t.size(), 0u);
}

/// Length covered by at least one interval: a +1/−1 coverage sweep over all endpoints.
std::int64_t covered(std::vector<std::pair<std::int64_t, std::int64_t>> const& iv) {
  std::vector<std::pair<std::int64_t, int>> ev;
  for (auto [s, e] : iv)
    if (e > s) ev.push_back({s, +1}), ev.push_back({e, -1});
  std::sort(ev.begin(), ev.end());
  std::int64_t total = 0, last = 0;
  int depth = 0;
  for (auto [x, d] : ev) {
    if (depth > 0) total += x - last;
    depth += d;
    last = x;
  }
  return total;
}

/// Length covered by both sets: a two-counter sweep.
std::int64_t covered_by_both(std::vector<std::pair<std::int64_t, std::int64_t>> const& a,
                             std::vector<std::pair<std::int64_t, std::int64_t>> const& b) {
  std::vector<std::tuple<std::int64_t, int, int>> ev;
  for (auto [s, e] : a)
    if (e > s) ev.push_back({s, 0, +1}), ev.push_back({e, 0, -1});
  for (auto [s, e] : b)
    if (e > s) ev.push_back({s, 1, +1}), ev.push_back({e, 1, -1});
  std::sort(ev.begin(), ev.end());
  std::int64_t total = 0, last = 0;
  int da = 0, db = 0;
  for (auto [x, which, d] : ev) {
    if (da > 0 && db > 0) total += x - last;
    (which == 0 ? da : db) += d;
    last = x;
  }
  return total;
}

TEST(nsys_summary, device_unions_match_a_brute_force_sweep_on_every_real_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    auto const t = read(f, 1);
    auto be = make_cpu_backend(1);
    auto const s = compute_summary(trace_model(t), *be, summary_options{});
    oracle_db db(f);
    // Every GPU op from SQL, keyed by (pid, deviceId).
    using iv = std::vector<std::pair<std::int64_t, std::int64_t>>;
    struct device_ops {
      iv all, kernels, memcpys, memsets, comm, comp;
      std::int64_t kernel_count = 0;
    };
    std::map<std::pair<std::int32_t, std::int32_t>, device_ops> ops;
    auto load = [&](std::string const& table, iv device_ops::*set, bool kernels) {
      if (!db.has_table(table)) return;
      auto const rows = db.query(
          "SELECT (globalPid >> 24) & 16777215, deviceId, start, \"end\", " +
          std::string(kernels ? "(SELECT value FROM StringIds WHERE id = demangledName)" : "''") +
          " FROM " + table);
      for (auto const& r : rows) {
        auto& d = ops[{static_cast<std::int32_t>(r[0].i), static_cast<std::int32_t>(r[1].i)}];
        d.all.push_back({r[2].i, r[3].i});
        (d.*set).push_back({r[2].i, r[3].i});
        if (kernels) {
          ++d.kernel_count;
          std::string lower = r[4].s;
          for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          bool const comm =
              lower.find("nccl") != std::string::npos || lower.find("rccl") != std::string::npos;
          (comm ? d.comm : d.comp).push_back({r[2].i, r[3].i});
        }
      }
    };
    load("CUPTI_ACTIVITY_KIND_KERNEL", &device_ops::kernels, true);
    load("CUPTI_ACTIVITY_KIND_MEMCPY", &device_ops::memcpys, false);
    load("CUPTI_ACTIVITY_KIND_MEMSET", &device_ops::memsets, false);
    ASSERT_EQ(s.devices.size(), ops.size());
    for (auto const& d : s.devices) {
      auto const pid = static_cast<std::int32_t>(t.inputs()[0].process_id(d.rank));
      SCOPED_TRACE("pid " + std::to_string(pid) + " device " + std::to_string(d.device));
      auto it = ops.find({pid, d.device});
      ASSERT_NE(it, ops.end());
      auto const& o = it->second;
      std::int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (auto [a, b] : o.all) lo = std::min(lo, a), hi = std::max(hi, b);
      EXPECT_EQ(d.window_start_ns, lo);
      EXPECT_EQ(d.window_end_ns, hi);
      EXPECT_EQ(d.busy_ns, covered(o.all));
      EXPECT_EQ(d.idle_ns, hi - lo - covered(o.all));
      EXPECT_EQ(d.kernel_ns, covered(o.kernels));
      EXPECT_EQ(d.memcpy_ns, covered(o.memcpys));
      EXPECT_EQ(d.memset_ns, covered(o.memsets));
      EXPECT_EQ(d.communication_ns, covered(o.comm));
      EXPECT_EQ(d.computation_ns, covered(o.comp));
      EXPECT_EQ(d.overlap_ns, covered_by_both(o.comm, o.comp));
      EXPECT_EQ(d.kernel_count, o.kernel_count);
    }
  }
}

TEST(nsys_writer, synthetic_trace_round_trips_through_the_nsys_schema) {
  event_table generated;
  temp_dir dir("roundtrip");
  auto const path = write_generated_export({2, 2, 2, 50}, generated, dir, "synthetic.sqlite");
  auto const back = read(path, 2);

  // Kernels, copies, memsets and API calls come back one for one with names, ranks, devices,
  // streams, correlation ids and durations; NVTX-like rows come back as ranges.
  auto key = [](event_table const& t, std::size_t i) {
    return std::tuple{t.kind[i],
                      std::string(t.strings().at(t.name[i])),
                      t.rank[i],
                      t.device[i],
                      t.stream[i],
                      t.correlation_of(i),
                      t.end_ns[i] - t.start_ns[i],
                      t.bytes_of(i)};
  };
  std::multiset<decltype(key(generated, 0))> want, got;
  for (std::size_t i = 0; i < generated.size(); ++i)
    if (is_device_activity(generated.kind[i]) || generated.kind[i] == event_kind::api_call)
      want.insert(key(generated, i));
  for (std::size_t i = 0; i < back.size(); ++i)
    if (is_device_activity(back.kind[i]) || back.kind[i] == event_kind::api_call)
      got.insert(key(back, i));
  EXPECT_FALSE(want.empty());
  // memcpy/memset names differ by design (nsys labels "[CUDA memcpy …]", "[CUDA memset]"): compare
  // them by count instead.
  auto strip_memcpy = [](auto s) {
    decltype(s) out;
    for (auto e : s) {
      if (std::get<0>(e) == event_kind::memcpy || std::get<0>(e) == event_kind::memset)
        std::get<1>(e).clear();
      out.insert(e);
    }
    return out;
  };
  auto const g = strip_memcpy(got), w = strip_memcpy(want);
  EXPECT_EQ(g.size(), w.size());
  std::vector<decltype(key(generated, 0))> only_got, only_want;
  std::set_difference(g.begin(), g.end(), w.begin(), w.end(), std::back_inserter(only_got));
  std::set_difference(w.begin(), w.end(), g.begin(), g.end(), std::back_inserter(only_want));
  EXPECT_TRUE(only_got.empty() && only_want.empty())
      << only_got.size() << " rows read back that were not generated, e.g. "
      << (only_got.empty()
              ? ""
              : std::get<1>(only_got[0]) + " stream " + std::to_string(std::get<4>(only_got[0])))
      << "; " << only_want.size() << " generated rows not read back, e.g. "
      << (only_want.empty()
              ? ""
              : std::get<1>(only_want[0]) + " stream " + std::to_string(std::get<4>(only_want[0])) +
                    " dev " + std::to_string(std::get<3>(only_want[0])) + " corr " +
                    std::to_string(std::get<5>(only_want[0])));
  // Times are relative to the earliest event, as in a real export.
  EXPECT_EQ(*std::min_element(back.start_ns.begin(), back.start_ns.end()), 0);
  // --name base gives the function name without scope, template or parameters.
  auto const base = read(path, 1, kernel_naming::base);
  for (std::size_t i = 0; i < base.size(); ++i)
    if (base.kind[i] == event_kind::kernel) {
      auto const n = base.strings().at(base.name[i]);
      EXPECT_EQ(n.find_first_of("<(: "), std::string_view::npos) << n;
    }
}

}  // namespace nsys_reader_test

}  // namespace tracesweep::test
