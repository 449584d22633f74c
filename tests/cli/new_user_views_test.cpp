// SPDX-License-Identifier: Apache-2.0
// What a new user tripped on (issue 26, items 8, 9, 11, 13, 18), on the real traces the issue
// names: unknown gaps that name the host work overlapping them, long tails grouped by launch
// configuration without communication kernels (against an oracle reading the trace itself),
// overview rows named as users know them, one time unit per text output (--time-unit), and the
// HTML gap chart weighing idle time.
#include <gtest/gtest.h>

#include <simdjson.h>
#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"
#include "support/trace_paths.hpp"

namespace new_user_views_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

fs::path resnet50(fs::path const& traces, int workers) {
  auto const dir = traces / "kineto/tb_plugin_samples_resnet50_v100";
  return dir / (workers == 0 ? "resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz"
                             : "resnet50_num_workers_4.worker0.1623212756351.pt.trace.json.gz");
}

/// A whole file, gzip inflated by zlib.
std::string load(fs::path const& path) {
  gzFile f = gzopen(path.string().c_str(), "rb");
  if (!f) return {};
  std::string out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

std::string fixed3(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::vector<std::string> lines(std::string const& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// ---- item 8: unknown gaps name the host work that overlaps them --------------------------------

TEST(NewUserViews, UnknownGapsNameTheHostWorkOverlappingThem) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  std::size_t checked = 0;
  for (int workers : {0, 4}) {
    auto const f = quote(resnet50(traces, workers));
    auto const text = run_cli("diagnose --top 0 " + f);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    auto const json = run_cli("diagnose --format json --top 0 " + f);
    simdjson::dom::parser parser;
    auto const doc = parser.parse(json.out);
    std::set<std::string> host;  // the host rows of the unknown gaps, from the JSON
    for (auto g : doc["gaps"].get_array()) {
      if (std::string_view(g["cause"]) != "unknown") continue;
      for (auto h : g["host"].get_array()) host.insert(std::string(std::string_view(h["name"])));
    }
    auto const all = lines(text.out);
    for (std::size_t i = 0; i + 1 < all.size(); ++i) {
      if (!std::regex_search(all[i], std::regex("^  [0-9]+\\. [0-9]+ unknown gaps? on"))) continue;
      auto const& why = all[i + 1];
      EXPECT_EQ(why.find("no traced host activity"), std::string::npos) << all[i] << '\n' << why;
      if (host.empty()) continue;
      auto const at = why.find("unclassified host work: ");
      ASSERT_NE(at, std::string::npos) << all[i] << '\n' << why;
      // Every op it names is a host row of an unknown gap.
      auto ops = why.substr(at + 24, why.find(" (traced host rows") - at - 24);
      std::istringstream in(ops);
      for (std::string op; std::getline(in, op, ',');) {
        op.erase(0, op.find_first_not_of(' '));
        EXPECT_TRUE(host.contains(op)) << op;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u) << "no unknown gap with host rows on either ResNet-50 trace";
}

// ---- item 9: long tails by name and launch configuration, no communication kernels -------------

struct tail_group {
  std::int64_t instances = 0;
  double median_ns = 0;
};
using group_key = std::pair<std::string, std::string>;  // name, "grid …, block …"

std::string dims_text(simdjson::dom::element a) {
  std::vector<std::int64_t> v;
  for (auto x : a.get_array()) v.push_back(std::int64_t(x));
  return std::to_string(v.at(0)) + "x" + std::to_string(v.at(1)) + "x" + std::to_string(v.at(2));
}

/// The long-tail groups of a Kineto trace, computed from the trace's own events: kernels grouped
/// by (name, grid, block); ≥ 20 instances; instances longer than 3 × the group's median.
std::map<group_key, tail_group> oracle_long_tails(fs::path const& trace) {
  simdjson::dom::parser parser;
  auto const text = load(trace);
  auto const doc = parser.parse(text);
  std::map<group_key, std::vector<std::int64_t>> durations;
  for (auto e : doc["traceEvents"].get_array()) {
    std::string_view cat, ph;
    if (e["cat"].get(cat) || e["ph"].get(ph) || cat != "Kernel" || ph != "X") continue;
    auto const args = e["args"];
    std::string launch;
    if (!args["grid"].error() && !args["block"].error())
      launch = "grid " + dims_text(args["grid"]) + ", block " + dims_text(args["block"]);
    auto const dur = std::int64_t(e["dur"]) * 1000;  // whole µs in these traces
    durations[{std::string(std::string_view(e["name"])), launch}].push_back(dur);
  }
  std::map<group_key, tail_group> out;
  for (auto& [k, d] : durations) {
    if (d.size() < 20) continue;
    std::sort(d.begin(), d.end());
    double const median =
        d.size() % 2
            ? static_cast<double>(d[d.size() / 2])
            : (static_cast<double>(d[d.size() / 2 - 1]) + static_cast<double>(d[d.size() / 2])) / 2;
    std::int64_t n = 0;
    for (auto x : d) n += median > 0 && static_cast<double>(x) > 3 * median;
    if (n > 0) out[k] = {n, median};
  }
  return out;
}

std::map<group_key, tail_group> reported_long_tails(std::string const& json) {
  simdjson::dom::parser parser;
  auto const doc = parser.parse(json);
  std::map<group_key, tail_group> out;
  for (auto n : doc["long_tail_names"].get_array()) {
    std::string_view launch;
    if (n["launch"].is_null())
      launch = "";
    else
      launch = n["launch"];
    out[{std::string(std::string_view(n["name"])), std::string(launch)}] = {
        std::int64_t(n["instances"]), static_cast<double>(std::int64_t(n["median_ns"]))};
  }
  return out;
}

TEST(NewUserViews, LongTailsAreGroupedByLaunchConfiguration) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (int workers : {0, 4}) {
    SCOPED_TRACE(workers);
    auto const trace = resnet50(traces, workers);
    auto const r = run_cli("diagnose --format json " + quote(trace));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const got = reported_long_tails(r.out);
    auto const want = oracle_long_tails(trace);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(got.size(), want.size());
    for (auto const& [k, w] : want) {
      SCOPED_TRACE(k.first + " [" + k.second + "]");
      ASSERT_TRUE(got.contains(k));
      EXPECT_EQ(got.at(k).instances, w.instances);
      EXPECT_EQ(got.at(k).median_ns, std::round(w.median_ns));
    }
    // What the issue saw at the top: one generic elementwise kernel run on tensors of every size.
    for (auto const& [k, g] : got)
      EXPECT_EQ(k.first.find("vectorized_elementwise_kernel<4, at::native::AddFunctor<float>"),
                std::string::npos)
          << k.second << ' ' << g.instances;
    auto const text = run_cli("diagnose " + quote(trace));
    EXPECT_EQ(text.out.find("costliest: void at::native::vectorized_elementwise_kernel"),
              std::string::npos)
        << text.out;
  }
}

TEST(NewUserViews, CommunicationKernelsAreNoLongTail) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "kineto/hta_df_index_resolver_v100/df_index_resolver.json.gz";
  auto const r = run_cli("diagnose --format json --top 0 " + quote(f));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto const doc = parser.parse(r.out);
  std::size_t names = 0;
  for (auto n : doc["long_tail_names"].get_array()) {
    ++names;
    EXPECT_EQ(std::string_view(n["name"]).find("nccl"), std::string_view::npos)
        << std::string_view(n["name"]);
  }
  for (auto l : doc["long_tail"].get_array())
    EXPECT_EQ(std::string_view(l["name"]).find("nccl"), std::string_view::npos);
  EXPECT_GT(names, 0u) << "the other kernels are still examined";
}

// ---- item 11: overview rows named as users know them; no profiler span ------------------------

/// Every (start, end, globalPid) row of an nsys export's table, by sqlite3.
std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> rows_by_process(
    fs::path const& db, std::string const& table) {
  sqlite3* h = nullptr;
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> out;
  if (sqlite3_open_v2(db.string().c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    return out;
  }
  sqlite3_stmt* st = nullptr;
  auto const sql = "SELECT start, \"end\", globalPid FROM " + table;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW)
      out[sqlite3_column_int64(st, 2)].emplace_back(sqlite3_column_int64(st, 0),
                                                    sqlite3_column_int64(st, 1));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

/// The length of the union of some intervals, by brute force over their sorted ends.
std::int64_t union_length(std::vector<std::pair<std::int64_t, std::int64_t>> v) {
  std::sort(v.begin(), v.end());
  std::int64_t total = 0, from = 0, to = 0;
  bool open = false;
  for (auto const& [s, e] : v) {
    if (open && s <= to) {
      to = std::max(to, e);
      continue;
    }
    if (open) total += to - from;
    from = s, to = e, open = true;
  }
  return open ? total + to - from : 0;
}

TEST(NewUserViews, OverviewRowsAreNamedAsUsersKnowThem) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const nsys = traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite";
  auto const r = run_cli("overview --format json " + quote(nsys));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto const doc = parser.parse(r.out);
  std::set<std::string> const known{"Kernel",   "Memcpy", "Memset",    "Synchronization",
                                    "CUDA API", "NVTX",   "OS runtime"};
  std::vector<std::int64_t> sync;
  for (auto rank : doc["overview"].get_array())
    for (auto row : rank["rows"].get_array()) {
      std::string const type{std::string_view(row["type"])};
      EXPECT_TRUE(known.contains(type)) << type;
      if (type == "Synchronization") sync.push_back(std::int64_t(row["time_ns"]));
    }
  // The Synchronization rows' time: the union of each process's synchronization records.
  std::vector<std::int64_t> want;
  for (auto const& [pid, rows] : rows_by_process(nsys, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"))
    want.push_back(union_length(rows));
  std::sort(sync.begin(), sync.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sync, want);
  EXPECT_EQ(want.size(), 2u);
  auto const text = run_cli("overview " + quote(nsys));
  EXPECT_EQ(text.out.find("CUPTI_ACTIVITY_KIND"), std::string::npos) << text.out;
}

TEST(NewUserViews, OverviewLeavesTheProfilerSpanOut) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f :
       {resnet50(traces, 0), traces / "kineto/hta_ns_resolution_v100/"
                                      "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"}) {
    SCOPED_TRACE(f.string());
    ASSERT_NE(load(f).find("\"cat\": \"Trace\""), std::string::npos) << "the trace has a span";
    auto const r = run_cli("overview --format json " + quote(f));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    simdjson::dom::parser parser;
    auto const doc = parser.parse(r.out);
    std::size_t rows = 0;
    for (auto rank : doc["overview"].get_array())
      for (auto row : rank["rows"].get_array()) {
        ++rows;
        EXPECT_NE(std::string_view(row["type"]), "Trace");
      }
    EXPECT_GT(rows, 3u);
  }
  // Where a ratio may pass 100 %, the metric docs say why.
  auto const docs = slurp(fs::path(TRACESWEEP_SOURCE_DIR) / "docs/metrics.md");
  EXPECT_NE(docs.find("A ratio can exceed 100 %"), std::string::npos);
}

// ---- item 13: one time unit per text output, --time-unit, memory in binary units --------------

/// The text of a table (from its title line to the blank line after it).
std::string text_table(std::string const& out, std::string const& title) {
  auto const at = out.find(title);
  if (at == std::string::npos) return {};
  auto const end = out.find("\n\n", at);
  return out.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

TEST(NewUserViews, SummaryTextShowsOneTimeUnit) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = quote(traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite");
  auto const json = run_cli("summary --format json " + f);
  simdjson::dom::parser parser;
  auto const doc = parser.parse(json.out);
  for (std::string const unit : {"", "ns", "us", "ms", "s"}) {
    SCOPED_TRACE(unit);
    auto const text = run_cli((unit.empty() ? "" : "--time-unit " + unit + " ") + "summary " + f);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    auto const shown = unit.empty() ? std::string("ms") : unit;
    // Every time header names the one unit; no other time unit appears in a header.
    std::smatch m;
    std::string rest = text.out;
    std::size_t headers = 0;
    while (std::regex_search(rest, m, std::regex("\\((ns|us|ms|s)\\)"))) {
      EXPECT_EQ(m[1].str(), shown);
      ++headers;
      rest = m.suffix();
    }
    EXPECT_GT(headers, 10u);
    EXPECT_EQ(text.out.find(" s  "), std::string::npos) << "no offsets in seconds";
    // The values are the JSON's ns in that unit.
    double const div = shown == "ns" ? 1 : shown == "us" ? 1e3 : shown == "ms" ? 1e6 : 1e9;
    auto const devices = text_table(text.out, "Devices (");
    for (auto d : doc["devices"].get_array()) {
      auto const busy = static_cast<double>(std::int64_t(d["busy_ns"])) / div;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", shown == "ns" ? 0 : shown == "s" ? 6 : 3, busy);
      EXPECT_NE(devices.find(std::string(" ") + buf + " "), std::string::npos) << buf << devices;
    }
    // JSON does not change with the unit.
    if (!unit.empty()) {
      EXPECT_EQ(run_cli("--time-unit " + unit + " summary --format json " + f).out, json.out);
    }
  }
  auto const first = doc["gaps"].get_array().at(0);
  auto const gaps = text_table(run_cli("summary " + f).out, "Idle gaps (");
  auto const origin = std::min(std::int64_t(doc["devices"].get_array().at(0)["window_start_ns"]),
                               std::int64_t(doc["devices"].get_array().at(1)["window_start_ns"]));
  auto const start = static_cast<double>(std::int64_t(first["start_ns"]) - origin) / 1e6;
  EXPECT_NE(gaps.find("+" + fixed3(start)), std::string::npos) << gaps;
  EXPECT_EQ(run_cli("--time-unit minutes summary " + f).exit_code, 1);
}

TEST(NewUserViews, MemoryInBinaryUnits) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = quote(traces / "kineto/hta_df_index_resolver_v100/df_index_resolver.json.gz");
  auto const text = run_cli("overview --table memory " + f);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Peak Allocated (GiB)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(",0"), std::string::npos) << "no byte counts with separators";
  auto const json = run_cli("overview --format json --table memory " + f);
  simdjson::dom::parser parser;
  auto const doc = parser.parse(json.out);
  std::size_t checked = 0;
  for (auto row : doc["memory"].get_array()) {
    auto const peak = static_cast<double>(std::int64_t(row["peak_allocated_bytes"]));
    if (peak < 1073741824.0) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", peak / 1073741824.0);
    EXPECT_NE(text.out.find(std::string(" ") + buf + " "), std::string::npos) << buf;
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

// ---- item 18: the gap chart weighs idle time; report's kernel table in one unit ----------------

/// The (series, category) → value of every bar of an HTML section's chart (from the bars'
/// tooltips, "series, category: value").
std::map<std::pair<std::string, std::string>, double> bars_of(std::string const& page,
                                                              std::string const& id) {
  std::map<std::pair<std::string, std::string>, double> out;
  auto const a = page.find("<section id=\"" + id + "\">");
  if (a == std::string::npos) return out;
  auto const section = page.substr(a, page.find("</section>", a) - a);
  std::regex const bar("<rect class=\"bar\"[^>]*><title>([^,<]+), ([^:<]+): ([0-9.]+)</title>");
  for (std::sregex_iterator it(section.begin(), section.end(), bar), end; it != end; ++it)
    out[{(*it)[1].str(), (*it)[2].str()}] = std::stod((*it)[3].str());
  return out;
}

TEST(NewUserViews, GapChartShowsIdleTimeByCauseAndDuration) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = quote(resnet50(traces, 0));
  auto const page = run_cli("diagnose --format html " + f);
  ASSERT_EQ(page.exit_code, 0) << page.err;
  auto const time = bars_of(page.out, "gap_time");
  auto const count = bars_of(page.out, "gap_histogram");
  ASSERT_FALSE(time.empty()) << "no idle-time chart";
  ASSERT_FALSE(count.empty()) << "the count view stays beside it";
  // The oracle: every examined gap of the JSON, summed by cause and 1-2-5 duration bin.
  auto const json = run_cli("diagnose --format json --top 0 " + f);
  simdjson::dom::parser parser;
  auto const doc = parser.parse(json.out);
  auto bin = [](std::int64_t ns) {
    std::int64_t edge = 1;
    for (std::int64_t decade = 1; decade <= ns; decade *= 10)
      for (std::int64_t m : {1, 2, 5})
        if (decade * m <= ns) edge = decade * m;
    char buf[32];
    if (edge >= 1'000'000)
      std::snprintf(buf, sizeof buf, "%g ms+", static_cast<double>(edge) / 1e6);
    else if (edge >= 1000)
      std::snprintf(buf, sizeof buf, "%g us+", static_cast<double>(edge) / 1e3);
    else
      std::snprintf(buf, sizeof buf, "%lld ns+", static_cast<long long>(edge));
    return std::string(buf);
  };
  std::map<std::pair<std::string, std::string>, std::int64_t> want;
  std::int64_t data_loading = 0, all = 0;
  for (auto g : doc["gaps"].get_array()) {
    auto const d = std::int64_t(g["end_ns"]) - std::int64_t(g["start_ns"]);
    std::string const cause{std::string_view(g["cause"])};
    want[{cause, bin(d)}] += d;
    all += d;
    if (cause == "data_loading") data_loading += d;
  }
  ASSERT_EQ(time.size(), want.size());
  for (auto const& [k, ns] : want) {
    SCOPED_TRACE(k.first + ", " + k.second);
    ASSERT_TRUE(time.contains(k));
    EXPECT_EQ(fixed3(time.at(k)), fixed3(static_cast<double>(ns) / 1e6));
  }
  // The verdict's data-loading gaps are the tallest bar by time, though few by count.
  auto const tallest = std::max_element(
      time.begin(), time.end(), [](auto const& a, auto const& b) { return a.second < b.second; });
  EXPECT_EQ(tallest->first.first, "data_loading");
  EXPECT_GT(data_loading * 2, all);
  EXPECT_LT(count.at(tallest->first), 10.0);
  EXPECT_NE(page.out.find(">idle time (ms)</text>"), std::string::npos);
}

TEST(NewUserViews, ReportKernelTableInOneUnit) {
  scratch const dir("new_user_report");
  auto const db = quote(dir.file("store.sqlite"));
  auto const sample = quote(fs::path(TRACESWEEP_SOURCE_DIR) / "datasets/samples");
  auto const scan = run_cli("scan --db " + db + " " + sample);
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  for (std::string const unit : {"", "us"}) {
    auto const r = run_cli((unit.empty() ? "" : "--time-unit " + unit + " ") +
                           "report --table top_kernels --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    std::set<std::string> units;
    for (std::string rest = r.out.substr(0, r.out.find("\n-"));
         std::regex_search(rest, m, std::regex("\\((ns|us|ms|s)\\)")); rest = m.suffix())
      units.insert(m[1].str());
    EXPECT_EQ(units, std::set<std::string>{unit.empty() ? "ms" : unit}) << r.out.substr(0, 600);
  }
}

}  // namespace new_user_views_test
