// SPDX-License-Identifier: Apache-2.0
// The row filters end to end on every real trace, against oracles that apply the same rule
// themselves: on the nsys exports SQL with the matching WHERE clause (kernel and API sums per
// name), on the Kineto traces a JSON oracle that parses the events with exact decimal times.
// Also: a whole-trace range equals no filter, an empty range gives empty reports and exit 0,
// and an NVTX name that matches nothing is exit 2 with one line.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ingest/chrome/test_json.hpp"
#include "ingest/nsys/nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace {

namespace fs = std::filesystem;
using tracesweep::test::oracle_db;
using tracesweep::test::quote;
using tracesweep::test::run_cli;

/// Per name: (total ns, count).
using sums = std::map<std::string, std::pair<std::int64_t, std::int64_t>>;

/// The rows of every table of `stats --report REPORT --format json ARGS`, summed per name.
sums cli_sums(std::string const& report, std::string const& args, int expect_exit = 0) {
  auto const r = run_cli("stats --report " + report + " --format json " + args);
  EXPECT_EQ(r.exit_code, expect_exit) << args << "\n" << r.err;
  sums out;
  if (r.exit_code != 0) return out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  for (auto table : doc.get_array())
    for (auto row : table["rows"].get_array()) {
      auto& s = out[std::string(std::string_view(row["Name"]))];
      auto const count = report == "cuda_api_sum" ? row["Num Calls"] : row["Instances"];
      s.first += std::int64_t(row["Total Time (ns)"]);
      s.second += std::int64_t(count);
    }
  return out;
}

/// `text` as an SQL string literal.
std::string sql_text(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

/// `text` as a regex matching it literally (every non-alphanumeric byte escaped).
std::string regex_literal(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool const plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       static_cast<unsigned char>(c) >= 0x80;
    if (!plain) out += '\\';
    out += c;
  }
  return out;
}

sums sql_sums(oracle_db& db, std::string const& sql) {
  sums out;
  for (auto const& row : db.query(sql)) out[row[0].s] = {row[1].i, row[2].i};
  return out;
}

constexpr char const* pid_of_kernel = "((k.globalPid >> 24) & 16777215)";

/// Kernel sums per demangled name, for kernels passing `where` (on alias k); `with`: a WITH
/// clause the condition may use.
sums sql_kernels(oracle_db& db, std::string const& where, std::string const& with = "") {
  return sql_sums(db, with +
                          "SELECT s.value, SUM(k.\"end\" - k.start), COUNT(*) FROM "
                          "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
                          "WHERE " +
                          where + " GROUP BY s.value");
}

/// Runtime API sums per name without its _vNNNNN suffix, for calls passing `where` (alias r).
sums sql_api(oracle_db& db, std::string const& where) {
  return sql_sums(db,
                  "SELECT CASE WHEN substr(s.value, -6, 2) = '_v' THEN substr(s.value, 1, "
                  "length(s.value) - 6) ELSE s.value END AS n, SUM(r.\"end\" - r.start), "
                  "COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
                  "r.nameId WHERE " +
                      where + " GROUP BY n");
}

std::vector<fs::path> kernel_exports(fs::path const& traces) {
  std::vector<fs::path> out;
  for (auto const& f : tracesweep::test::nsys_exports(traces)) {
    oracle_db db(f);
    if (db.has_table("CUPTI_ACTIVITY_KIND_KERNEL")) out.push_back(f);
  }
  return out;
}

TEST(FiltersOnNsys, NameTimeRangeAndRanksMatchSql) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const files = kernel_exports(traces);
  ASSERT_GE(files.size(), 8u);
  for (auto const& f : files) {
    SCOPED_TRACE(f.string());
    oracle_db db(f);
    ASSERT_EQ(cli_sums("cuda_gpu_kern_sum", quote(f)), sql_kernels(db, "1"));

    // --filter-name: the most frequent kernel's first 12 bytes, anchored.
    auto const top =
        db.query(
              "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
              "k.demangledName GROUP BY s.value ORDER BY COUNT(*) DESC, s.value LIMIT 1")[0][0]
            .s;
    auto const prefix = top.substr(0, 12);
    auto const by_name = sql_kernels(
        db, "substr(s.value, 1, " + std::to_string(prefix.size()) + ") = " + sql_text(prefix));
    EXPECT_FALSE(by_name.empty());
    EXPECT_EQ(cli_sums("cuda_gpu_kern_sum",
                       "--filter-name " + quote("^" + regex_literal(prefix)) + " " + quote(f)),
              by_name);

    // --time-range: 30 % to 60 % of the kernels' span, absolute ns; kernels and API calls.
    auto const span =
        db.query("SELECT MIN(start), MAX(\"end\") FROM CUPTI_ACTIVITY_KIND_KERNEL")[0];
    auto const s = span[0].i + (span[1].i - span[0].i) * 3 / 10;
    auto const e = span[0].i + (span[1].i - span[0].i) * 6 / 10;
    auto const range = "--time-range " + std::to_string(s) + ":" + std::to_string(e) + " ";
    auto const overlap = [&](std::string const& alias) {
      return alias + ".start < " + std::to_string(e) + " AND " + alias +
             ".\"end\" >= " + std::to_string(s);
    };
    EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", range + quote(f)), sql_kernels(db, overlap("k")));
    if (db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME")) {
      EXPECT_EQ(cli_sums("cuda_api_sum", range + quote(f)), sql_api(db, overlap("r")));
    }

    // --ranks: each process of the export; nsys rank k is the k-th process with CUDA streams
    // in process-id order.
    auto const pids =
        db.query("SELECT DISTINCT processId FROM TARGET_INFO_CUDA_STREAM ORDER BY processId");
    for (std::size_t k = 0; k < pids.size(); ++k) {
      auto const p = std::to_string(pids[k][0].i);
      EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--ranks " + std::to_string(k) + " " + quote(f)),
                sql_kernels(db, std::string(pid_of_kernel) + " = " + p))
          << "rank " << k << ", process " << p;
    }
  }
}

TEST(FiltersOnNsys, NvtxRangeMatchesSql) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  int tested = 0;
  for (auto const& f : kernel_exports(traces)) {
    oracle_db db(f);
    if (!db.has_table("NVTX_EVENTS") || !db.has_column("NVTX_EVENTS", "domainId")) continue;
    SCOPED_TRACE(f.string());
    // Ranges of the default domain, named by text or textId.
    std::string const ranges =
        "(SELECT n.start, n.\"end\", (n.globalTid >> 24) & 16777215 AS pid, coalesce(n.text, "
        "t.value) AS name FROM NVTX_EVENTS n LEFT JOIN StringIds t ON t.id = n.textId WHERE "
        "n.eventType IN (59, 60, 70, 71) AND n.\"end\" IS NOT NULL AND coalesce(n.domainId, 0) "
        "= 0)";
    // The longest range whose name the filter text can spell (no '@', no "/digits" ending).
    auto const pick = db.query("SELECT name FROM " + ranges +
                               " WHERE name <> '' AND instr(name, '@') = 0 AND instr(name, '/') "
                               "= 0 ORDER BY \"end\" - start DESC, name LIMIT 1");
    if (pick.empty()) continue;
    auto const name = pick[0][0].s;
    // The windows: every instance of the name, or the first per process (by start).
    auto const windows = [&](bool first_only) {
      std::string w =
          "WITH w AS MATERIALIZED (SELECT * FROM " + ranges + " x WHERE x.name = " + sql_text(name);
      if (first_only)
        w += " AND x.start = (SELECT MIN(v.start) FROM " + ranges +
             " v WHERE v.name = x.name AND v.pid = x.pid)";
      return w + ") ";
    };
    std::string const within = std::string("EXISTS (SELECT 1 FROM w WHERE w.pid = ") +
                               pid_of_kernel + " AND k.start < w.\"end\" AND k.\"end\" >= w.start)";
    EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--filter-nvtx " + quote(name) + " " + quote(f)),
              sql_kernels(db, within, windows(false)));
    EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--filter-nvtx " + quote(name + "/0") + " " + quote(f)),
              sql_kernels(db, within, windows(true)));
    ++tested;
  }
  EXPECT_GE(tested, 4);
}

TEST(FiltersOnNsys, WholeRangeEqualsNoFilterAndEmptyRangeIsEmpty) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : tracesweep::test::nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    for (std::string const cmd :
         {"stats --report cuda_gpu_kern_sum --format json",
          "stats --report cuda_api_sum --format json", "stats --report nvtx_sum --format json",
          "summary --format json", "diagnose --format json"}) {
      auto const plain = run_cli(cmd + " " + quote(f));
      auto const whole = run_cli(cmd + " --time-range +0: " + quote(f));
      EXPECT_EQ(whole.exit_code, plain.exit_code) << cmd;
      EXPECT_EQ(whole.out, plain.out) << cmd;
      auto const empty = run_cli(cmd + " --time-range +100000s: " + quote(f));
      EXPECT_EQ(empty.exit_code, 0) << cmd << "\n" << empty.err;
    }
    EXPECT_TRUE(cli_sums("cuda_gpu_kern_sum", "--time-range +100000s: " + quote(f)).empty());
    auto const none =
        run_cli("stats --report cuda_gpu_kern_sum --filter-nvtx no-such-range " + quote(f));
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(std::count(none.err.begin(), none.err.end(), '\n'), 1) << none.err;
    EXPECT_NE(none.err.find(f.string()), std::string::npos) << none.err;
    EXPECT_NE(none.err.find("no-such-range"), std::string::npos) << none.err;
  }
}

// ---- Kineto: a JSON oracle ----

/// A JSON number token in µs → ns exactly: the integer part × 1000 plus the first three
/// decimals, rounded half to even on the rest (the tokens in these traces have no exponent).
std::int64_t exact_ns(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n')) token.remove_suffix(1);
  bool const negative = !token.empty() && token.front() == '-';
  if (negative) token.remove_prefix(1);
  auto const dot = token.find('.');
  std::int64_t v = std::stoll(std::string(token.substr(0, dot))) * 1000;
  if (dot != std::string_view::npos) {
    auto const frac = token.substr(dot + 1);
    std::int64_t f = 0;
    for (std::size_t i = 0; i < 3; ++i) f = f * 10 + (i < frac.size() ? frac[i] - '0' : 0);
    if (frac.size() > 3) {
      auto const rest = frac.substr(3);
      bool const above = rest[0] > '5' || (rest[0] == '5' && rest.find_first_not_of('0', 1) !=
                                                                 std::string_view::npos);
      if (above || (rest[0] == '5' && !above && (f % 2 == 1))) ++f;
    }
    v += f;
  }
  return negative ? -v : v;
}

struct span_event {
  std::string name;
  std::int64_t start = 0, end = 0;
};

struct kineto_trace {
  std::vector<span_event> kernels, steps, annotations;
};

bool is_step_name(std::string_view n) {
  if (!n.starts_with("ProfilerStep#") || n.size() == 13) return false;
  return std::all_of(n.begin() + 13, n.end(), [](char c) { return c >= '0' && c <= '9'; });
}

kineto_trace parse_kineto(std::string const& text) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(text);
  auto doc = parser.iterate(padded);
  kineto_trace out;
  std::int64_t base = 0;
  std::vector<std::pair<std::string, span_event>> spans;  // (cat, event)
  for (auto field : doc.get_object()) {
    std::string_view const key = field.unescaped_key().value();
    if (key == "baseTimeNanoseconds") {
      base = std::int64_t(field.value().get_int64());
      continue;
    }
    if (key != "traceEvents") continue;
    for (auto ev : field.value().get_array()) {
      std::string ph, cat, name;
      std::string ts, dur;
      for (auto f : ev.get_object()) {
        std::string_view const k = f.unescaped_key().value();
        auto v = f.value();
        if (k == "ph")
          ph = std::string(std::string_view(v.get_string().value()));
        else if (k == "cat")
          cat = std::string(std::string_view(v.get_string().value()));
        else if (k == "name")
          name = std::string(std::string_view(v.get_string().value()));
        else if (k == "ts")
          ts = std::string(v.raw_json_token().value());
        else if (k == "dur")
          dur = std::string(v.raw_json_token().value());
      }
      if (ph != "X" || ts.empty() || dur.empty()) continue;
      auto const start = exact_ns(ts);
      spans.push_back({cat, {name, start, start + exact_ns(dur)}});
    }
  }
  for (auto& [cat, e] : spans) {
    e.start += base, e.end += base;
    bool const host = cat == "cpu_op" || cat == "Operator" || cat == "user_annotation";
    if (cat == "kernel" || cat == "Kernel")
      out.kernels.push_back(e);
    else if (host && is_step_name(e.name))
      out.steps.push_back(e);
    else if (cat == "user_annotation" && !e.name.starts_with("enumerate(DataLoader)#") &&
             !e.name.starts_with("Optimizer.step#") && !e.name.starts_with("Optimizer.zero_grad#"))
      out.annotations.push_back(e);
  }
  auto by_start = [](auto const& a, auto const& b) { return a.start < b.start; };
  std::stable_sort(out.steps.begin(), out.steps.end(), by_start);
  std::stable_sort(out.annotations.begin(), out.annotations.end(), by_start);
  return out;
}

/// Kernel sums of the kernels that overlap one of `windows` ([S, E): start < E, end ≥ S).
sums kernel_sums(kineto_trace const& t,
                 std::vector<std::pair<std::int64_t, std::int64_t>> const& windows) {
  sums out;
  for (auto const& k : t.kernels) {
    bool const in = windows.empty() || std::any_of(windows.begin(), windows.end(), [&](auto w) {
                      return k.start < w.second && k.end >= w.first;
                    });
    if (!in) continue;
    auto& s = out[k.name];
    s.first += k.end - k.start, ++s.second;
  }
  return out;
}

/// A time between the boundaries of `t`'s kernels near `fraction` of their span, at least 1 µs
/// from any boundary (so the oracle's and the reader's times need not agree below that).
std::int64_t quiet_point(kineto_trace const& t, double fraction) {
  std::vector<std::int64_t> b;
  for (auto const& k : t.kernels) b.push_back(k.start), b.push_back(k.end);
  std::sort(b.begin(), b.end());
  auto i = static_cast<std::size_t>(fraction * static_cast<double>(b.size() - 1));
  for (; i + 1 < b.size(); ++i)
    if (b[i + 1] - b[i] > 2000) return b[i] + (b[i + 1] - b[i]) / 2;
  return b.back() + 1000;
}

std::vector<fs::path> kineto_files(fs::path const& traces) {
  std::vector<fs::path> out;
  for (auto const& e : fs::recursive_directory_iterator(traces / "kineto"))
    if (e.is_regular_file() && e.path().string().ends_with(".json.gz")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FiltersOnKineto, EveryFilterMatchesAJsonOracle) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  int with_steps = 0, with_annotations = 0;
  for (auto const& f : kineto_files(traces)) {
    auto const t = parse_kineto(tracesweep::test::load_text(f));
    if (t.kernels.empty()) continue;
    SCOPED_TRACE(f.string());
    auto const file = " " + quote(f);
    ASSERT_EQ(cli_sums("cuda_gpu_kern_sum", file), kernel_sums(t, {}));

    // --filter-name: the first kernel's first 10 bytes, anchored.
    auto const prefix = t.kernels.front().name.substr(0, 10);
    sums named;
    for (auto const& [name, s] : kernel_sums(t, {}))
      if (name.starts_with(prefix)) named[name] = s;
    EXPECT_EQ(
        cli_sums("cuda_gpu_kern_sum", "--filter-name " + quote("^" + regex_literal(prefix)) + file),
        named);

    // --time-range between quiet points near 30 % and 60 % of the kernels' span.
    auto const s = quiet_point(t, 0.3), e = quiet_point(t, 0.6);
    EXPECT_EQ(cli_sums("cuda_gpu_kern_sum",
                       "--time-range " + std::to_string(s) + ":" + std::to_string(e) + file),
              kernel_sums(t, {{s, e}}));

    // --steps 1:2 (or 0:0 with fewer steps): from the first step's start to the last's end.
    if (!t.steps.empty()) {
      std::size_t const a = t.steps.size() >= 3 ? 1 : 0, b = t.steps.size() >= 3 ? 2 : 0;
      auto const spec = std::to_string(a) + ":" + std::to_string(b);
      EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--steps " + spec + file),
                kernel_sums(t, {{t.steps[a].start, t.steps[b].end}}))
          << "--steps " << spec;
      ++with_steps;
    }

    // --filter-nvtx: the most frequent user annotation, every instance and instance 0.
    std::map<std::string, int> counts;
    for (auto const& u : t.annotations) ++counts[u.name];
    std::string pick;
    int most = 0;
    for (auto const& [name, n] : counts)
      if (n > most && name.find('@') == std::string::npos && name.find('/') == std::string::npos)
        pick = name, most = n;
    if (!pick.empty()) {
      std::vector<std::pair<std::int64_t, std::int64_t>> all, first;
      for (auto const& u : t.annotations)
        if (u.name == pick) all.push_back({u.start, u.end});
      first.push_back(all.front());
      EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--filter-nvtx " + quote(pick) + file),
                kernel_sums(t, all))
          << pick;
      EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--filter-nvtx " + quote(pick + "/0") + file),
                kernel_sums(t, first))
          << pick;
      ++with_annotations;
    }
  }
  EXPECT_GE(with_steps, 8);
  EXPECT_GE(with_annotations, 6);
}

TEST(FiltersOnKineto, RanksOfATwoRankJob) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const dir = traces / "kineto" / "hta_trace_filter_2rank";
  auto const r0 = dir / "sampled_rank-0.json.gz", r1 = dir / "sampled_rank-1.json.gz";
  auto const both = " " + quote(r0) + " " + quote(r1);
  EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--ranks 1" + both),
            kernel_sums(parse_kineto(tracesweep::test::load_text(r1)), {}));
  EXPECT_EQ(cli_sums("cuda_gpu_kern_sum", "--ranks 0" + both),
            kernel_sums(parse_kineto(tracesweep::test::load_text(r0)), {}));
  auto const absent = run_cli("stats --report cuda_gpu_kern_sum --ranks 7" + both);
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("--ranks"), std::string::npos) << absent.err;
}

}  // namespace
