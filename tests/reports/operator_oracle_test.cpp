// SPDX-License-Identifier: Apache-2.0
// `overview --table operators --format json` on every real trace (Kineto .json.gz, nsys .sqlite)
// and on the hand-written Paddle fixture against a brute-force oracle written plainly here, from
// the event table alone (no trace model):
// - operators: host rows of kind cpu_op whose category is Operator / cpu_op; on nsys inputs NVTX
//   ranges (user_range, marks excluded);
// - launches: a device row (kernel, memcpy, memset) belongs to the first runtime call (by row) of
//   its input and rank with its correlation id;
// - row r lies inside range q when both are host rows of one thread (input, stream), q is not an
//   API call, q.start ≤ r.start < q.end and r.end ≤ q.end (an identical range: the earlier row is
//   the outer one);
// - r hangs under q (the trace model's documented nesting rule, restated): q is the last range
//   before r in the thread's order (start, −end, calls last, row) that is still open when r starts
//   (q.end > r.start), and for a call r also q.end ≥ r.end;
// - per operator instance o: host total = its duration; host self = duration − |∪ of the rows
//   hanging under o, each clipped to o|; device total = Σ device time of the calls inside o;
//   device self = Σ device time of the calls whose innermost enclosing operator is o (both by
//   containment: on these traces no call lies past the end of an operator it hangs under), found
//   by scanning back from each row through the rows of its thread.
// Per (rank, name): calls, sums, max / min / mean per instance, shares of the rank's totals.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <tracesweep/input_reader.hpp>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;
using ts::event_kind;

namespace operator_oracle_test {

bool is_call(ts::event_table const& t, std::size_t i) {
  return t.kind[i] == event_kind::api_call;
}

bool is_nsys(ts::event_table const& t, std::size_t i) {
  return t.inputs()[static_cast<std::size_t>(t.input_of(i))].format == "nsys-sqlite";
}

bool is_operator(ts::event_table const& t, std::size_t i) {
  if (t.device[i] >= 0) return false;
  auto const cat = t.strings().at(t.category[i]);
  if (t.kind[i] == event_kind::cpu_op) return cat == "Operator" || cat == "cpu_op";
  return t.kind[i] == event_kind::user_range && is_nsys(t, i) &&
         t.subkind[i] != static_cast<std::uint8_t>(ts::range_style::mark);
}

/// Whether host row r lies inside range q (same thread assumed).
bool inside(ts::event_table const& t, std::size_t q, std::size_t r) {
  if (q == r || is_call(t, q)) return false;
  auto const qs = t.start_ns[q], qe = t.end_ns[q], rs = t.start_ns[r], re = t.end_ns[r];
  if (!(qs <= rs && rs < qe && re <= qe)) return false;
  bool const same = qs == rs && qe == re;
  return !same || is_call(t, r) || q < r;
}

/// Per row: the device time it launched.
std::vector<std::int64_t> launched_by(ts::event_table const& t) {
  std::map<std::tuple<std::int32_t, std::int32_t, std::int64_t>, std::size_t> first_call;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_call(t, i) && t.correlation_of(i) >= 0)
      first_call.try_emplace({t.input_of(i), t.rank[i], t.correlation_of(i)}, i);
  std::vector<std::int64_t> out(t.size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    bool const device_row = t.kind[i] == event_kind::kernel || t.kind[i] == event_kind::memcpy ||
                            t.kind[i] == event_kind::memset;
    if (!device_row || t.correlation_of(i) < 0) continue;
    auto const it = first_call.find({t.input_of(i), t.rank[i], t.correlation_of(i)});
    if (it != first_call.end()) out[it->second] += t.end_ns[i] - t.start_ns[i];
  }
  return out;
}

struct instance {
  std::int64_t host = 0, host_self = 0, device = 0, device_self = 0;
};

/// Whether host row r hangs under range q in the trace model's documented rule: q is the last
/// range before r (nesting order) still open when r starts, and for a call it also holds r wholly.
bool opens_over(ts::event_table const& t, std::size_t q, std::size_t r) {
  if (is_call(t, q) || t.end_ns[q] <= t.start_ns[r]) return false;
  return !is_call(t, r) || t.end_ns[r] <= t.end_ns[q];
}

/// |∪ intervals|.
std::int64_t union_length(std::vector<std::pair<std::int64_t, std::int64_t>> v) {
  std::sort(v.begin(), v.end());
  std::int64_t sum = 0, end = INT64_MIN;
  for (auto const& [s, e] : v) {
    auto const from = std::max(s, end);
    if (e > from) sum += e - from;
    end = std::max(end, e);
  }
  return sum;
}

/// The rows of one thread, sorted as described above, with the scan back from a row.
struct thread_scan {
  ts::event_table const& t;
  std::vector<std::size_t> const& rows;
  std::vector<std::int64_t> max_end;  // max end over rows[0..k]

  thread_scan(ts::event_table const& table, std::vector<std::size_t> const& sorted)
      : t(table), rows(sorted), max_end(sorted.size()) {
    for (std::size_t k = 0; k < rows.size(); ++k)
      max_end[k] = std::max(k ? max_end[k - 1] : INT64_MIN, t.end_ns[rows[k]]);
  }
  /// The nearest row before rows[k] for which `holds(row)`; rows all ending by its start: none.
  template <class Holds>
  std::int64_t nearest(std::size_t k, Holds const& holds) const {
    for (auto j = k; j-- > 0 && max_end[j] > t.start_ns[rows[k]];)
      if (holds(rows[j])) return static_cast<std::int64_t>(rows[j]);
    return -1;
  }
  /// The innermost operator rows[k] lies inside, or -1.
  std::int64_t operator_around(std::size_t k) const {
    return nearest(k, [&](std::size_t q) { return is_operator(t, q) && inside(t, q, rows[k]); });
  }
};

/// The oracle's values of every operator row of one thread (rows sorted as described above).
void sweep_thread(ts::event_table const& t, std::vector<std::size_t> const& rows,
                  std::vector<std::int64_t> const& launched, std::map<std::size_t, instance>& out) {
  thread_scan const scan(t, rows);
  auto const& max_end = scan.max_end;
  auto nearest = [&](std::size_t k, auto const& holds) { return scan.nearest(k, holds); };
  std::map<std::size_t, std::vector<std::pair<std::int64_t, std::int64_t>>> children;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    auto const r = rows[k];
    if (is_operator(t, r)) out[r].host = t.end_ns[r] - t.start_ns[r];
    auto const p = nearest(k, [&](std::size_t q) { return opens_over(t, q, r); });
    if (p >= 0 && is_operator(t, static_cast<std::size_t>(p)))
      children[static_cast<std::size_t>(p)].emplace_back(
          t.start_ns[r], std::min(t.end_ns[r], t.end_ns[static_cast<std::size_t>(p)]));
    if (!is_call(t, r) || launched[r] == 0) continue;
    auto const op = scan.operator_around(k);
    if (op >= 0) out[static_cast<std::size_t>(op)].device_self += launched[r];
    for (auto j = k; j-- > 0 && max_end[j] >= t.end_ns[r];)  // every operator it lies inside
      if (is_operator(t, rows[j]) && inside(t, rows[j], r)) out[rows[j]].device += launched[r];
  }
  for (auto& [row, v] : out) v.host_self = v.host - union_length(children[row]);
}

struct expected_row {
  std::int64_t calls = 0, host = 0, host_self = 0, device = 0, device_self = 0;
  std::int64_t host_max = 0, host_min = INT64_MAX, device_max = 0, device_min = INT64_MAX;
};

/// (rank, name) → the oracle's row.
/// The host rows of each thread (input, stream), sorted as described above.
std::vector<std::vector<std::size_t>> sorted_threads(ts::event_table const& t) {
  std::map<std::tuple<std::int32_t, std::int64_t>, std::vector<std::size_t>> threads;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.device[i] < 0) threads[{t.input_of(i), t.stream[i]}].push_back(i);
  std::vector<std::vector<std::size_t>> out;
  for (auto& [key, rows] : threads) {
    std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      return std::tuple(t.start_ns[a], -t.end_ns[a], is_call(t, a), a) <
             std::tuple(t.start_ns[b], -t.end_ns[b], is_call(t, b), b);
    });
    out.push_back(std::move(rows));
  }
  return out;
}

std::map<std::pair<std::int32_t, std::string>, expected_row> oracle(ts::event_table const& t) {
  auto const launched = launched_by(t);
  std::map<std::size_t, instance> values;
  for (auto const& rows : sorted_threads(t)) {
    std::map<std::size_t, instance> part;
    sweep_thread(t, rows, launched, part);
    values.insert(part.begin(), part.end());
  }
  std::map<std::pair<std::int32_t, std::string>, expected_row> out;
  for (auto const& [row, v] : values) {
    auto& e = out[{t.rank[row], std::string(t.strings().at(t.name[row]))}];
    ++e.calls;
    e.host += v.host, e.host_self += v.host_self, e.device += v.device;
    e.device_self += v.device_self;
    e.host_max = std::max(e.host_max, v.host), e.host_min = std::min(e.host_min, v.host);
    e.device_max = std::max(e.device_max, v.device);
    e.device_min = std::min(e.device_min, v.device);
  }
  return out;
}

std::int64_t field(simdjson::dom::element row, char const* key) {
  return std::int64_t(row[key]);
}

/// Runs the CLI on `path` and checks every row against the oracle; returns the rows checked.
std::size_t check_file(std::filesystem::path const& path) {
  SCOPED_TRACE(path.string());
  ts::event_table t;
  ts::read_input(path.string(), t, {});
  auto const want = oracle(t);
  std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> rank_totals;  // host, device
  for (auto const& [key, e] : want) {
    rank_totals[key.first].first += e.host;
    rank_totals[key.first].second += e.device;
  }
  auto const r =
      ts::test::run_cli("overview --table operators --format json " + ts::test::quote(path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element const doc = p.parse(r.out);
  std::size_t seen = 0;
  for (auto rank : doc["operators"].get_array()) {
    auto const rk = static_cast<std::int32_t>(std::int64_t(rank["rank"]));
    std::pair<std::int64_t, std::string> previous{INT64_MAX, ""};  // default: device total desc
    for (auto row : rank["rows"].get_array()) {
      auto const name = std::string(std::string_view(row["name"]));
      std::pair<std::int64_t, std::string> const key{field(row, "device_total_ns"), name};
      EXPECT_TRUE(key.first < previous.first ||
                  (key.first == previous.first && key.second > previous.second))
          << "rows out of order at " << name;
      previous = key;
      auto const it = want.find({rk, name});
      if (it == want.end()) {
        ADD_FAILURE() << "operator the oracle does not know: rank " << rk << " " << name;
        continue;
      }
      auto const& e = it->second;
      SCOPED_TRACE(name);
      EXPECT_EQ(field(row, "calls"), e.calls);
      EXPECT_EQ(field(row, "host_total_ns"), e.host);
      EXPECT_EQ(field(row, "host_self_ns"), e.host_self);
      EXPECT_EQ(field(row, "device_total_ns"), e.device);
      EXPECT_EQ(field(row, "device_self_ns"), e.device_self);
      EXPECT_EQ(field(row, "host_max_ns"), e.host_max);
      EXPECT_EQ(field(row, "host_min_ns"), e.host_min);
      EXPECT_EQ(field(row, "device_max_ns"), e.device_max);
      EXPECT_EQ(field(row, "device_min_ns"), e.device_min);
      auto const calls = static_cast<double>(e.calls);
      EXPECT_DOUBLE_EQ(double(row["host_avg_ns"]), static_cast<double>(e.host) / calls);
      EXPECT_DOUBLE_EQ(double(row["device_avg_ns"]), static_cast<double>(e.device) / calls);
      auto const [host_total, device_total] = rank_totals[rk];
      auto share = [](std::int64_t x, std::int64_t total) {
        return total > 0 ? static_cast<double>(x) / static_cast<double>(total) : 0.0;
      };
      EXPECT_DOUBLE_EQ(double(row["host_ratio"]), share(e.host, host_total));
      EXPECT_DOUBLE_EQ(double(row["device_ratio"]), share(e.device, device_total));
      ++seen;
    }
  }
  EXPECT_EQ(seen, want.size()) << "operators the CLI left out";
  return seen;
}

// ---- op_detail -------------------------------------------------------------------------------
// Inner items: rows (not operators, not calls) hanging directly under an operator, by (operator
// name, row name): calls and durations. Device rows: each launched row's call, its innermost
// enclosing operator (containment) and the outermost non-operator range between them (its inner
// item; none: the operator's own), by (operator, inner item, device row name): calls and durations;
// an inner item's GPU time is the sum of its device rows.

using detail_key = std::tuple<std::int32_t, std::string, std::string, std::string>;
struct detail_values {
  std::int64_t calls = 0, cpu = 0, gpu = 0;
};

/// Per call row: the device rows it launched (first call of the correlation id).
std::map<std::size_t, std::vector<std::size_t>> launches_of(ts::event_table const& t) {
  std::map<std::tuple<std::int32_t, std::int32_t, std::int64_t>, std::size_t> first_call;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_call(t, i) && t.correlation_of(i) >= 0)
      first_call.try_emplace({t.input_of(i), t.rank[i], t.correlation_of(i)}, i);
  std::map<std::size_t, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!ts::is_device_activity(t.kind[i]) || t.correlation_of(i) < 0) continue;
    auto const it = first_call.find({t.input_of(i), t.rank[i], t.correlation_of(i)});
    if (it != first_call.end()) out[it->second].push_back(i);
  }
  return out;
}

std::map<detail_key, detail_values> detail_oracle(ts::event_table const& t) {
  auto const launches = launches_of(t);
  auto name = [&](std::size_t i) { return std::string(t.strings().at(t.name[i])); };
  std::map<detail_key, detail_values> out;
  for (auto const& rows : sorted_threads(t)) {
    thread_scan const scan(t, rows);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto const r = rows[k];
      auto const p = scan.nearest(k, [&](std::size_t q) { return opens_over(t, q, r); });
      if (p >= 0 && is_operator(t, static_cast<std::size_t>(p)) && !is_operator(t, r) &&
          !is_call(t, r)) {
        auto& v = out[{t.rank[r], name(static_cast<std::size_t>(p)), name(r), ""}];
        ++v.calls;
        v.cpu += t.end_ns[r] - t.start_ns[r];
      }
      auto const launched = launches.find(r);
      auto const op = scan.operator_around(k);
      if (launched == launches.end() || op < 0) continue;
      std::int64_t inner = -1;
      for (auto j = k; j-- > 0 && rows[j] != static_cast<std::size_t>(op);) {
        auto const q = rows[j];
        if (!is_operator(t, q) && inside(t, static_cast<std::size_t>(op), q) && inside(t, q, r))
          inner = static_cast<std::int64_t>(q);
      }
      auto const op_name = name(static_cast<std::size_t>(op));
      auto const inner_name = inner < 0 ? "" : name(static_cast<std::size_t>(inner));
      for (auto const d : launched->second) {
        auto& v = out[{t.rank[r], op_name, inner_name, name(d)}];
        ++v.calls;
        v.gpu += t.end_ns[d] - t.start_ns[d];
        if (inner >= 0)
          out[{t.rank[r], op_name, inner_name, ""}].gpu += t.end_ns[d] - t.start_ns[d];
      }
    }
  }
  return out;
}

double ratio_of(std::int64_t x, std::int64_t total) {
  return total > 0 ? static_cast<double>(x) / static_cast<double>(total) : 0.0;
}

/// --op-detail on `path` against the detail oracle; returns the rows checked.
std::size_t check_detail(std::filesystem::path const& path) {
  SCOPED_TRACE(path.string());
  ts::event_table t;
  ts::read_input(path.string(), t, {});
  auto const want = detail_oracle(t);
  auto const ops = oracle(t);
  auto const r = ts::test::run_cli("overview --table operators --op-detail --format json " +
                                   ts::test::quote(path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element const doc = p.parse(r.out);
  std::size_t seen = 0;
  for (auto row : doc["operator_detail"].get_array()) {
    auto str = [&](char const* k) { return std::string(std::string_view(row[k])); };
    detail_key const key{static_cast<std::int32_t>(field(row, "rank")), str("operator"),
                         str("inner"), str("kernel")};
    auto const it = want.find(key);
    if (it == want.end()) {
      ADD_FAILURE() << "item the oracle does not know: " << std::get<1>(key) << " / "
                    << std::get<2>(key) << " / " << std::get<3>(key);
      continue;
    }
    SCOPED_TRACE(std::get<1>(key) + " / " + std::get<2>(key) + " / " + std::get<3>(key));
    auto const& v = it->second;
    auto const& op = ops.at({std::get<0>(key), std::get<1>(key)});
    bool const device = !std::get<3>(key).empty();
    EXPECT_EQ(field(row, "calls"), v.calls);
    EXPECT_EQ(field(row, "gpu_total_ns"), v.gpu);
    if (!device) {
      EXPECT_EQ(field(row, "cpu_total_ns"), v.cpu);
      EXPECT_DOUBLE_EQ(double(row["cpu_ratio"]), ratio_of(v.cpu, op.host));
    } else {
      EXPECT_TRUE(row["cpu_total_ns"].is_null());
    }
    bool const under_inner = device && !std::get<2>(key).empty();
    auto const gpu_total =
        under_inner ? want.at({std::get<0>(key), std::get<1>(key), std::get<2>(key), ""}).gpu
                    : op.device;
    EXPECT_DOUBLE_EQ(double(row["gpu_ratio"]), ratio_of(v.gpu, gpu_total));
    ++seen;
  }
  EXPECT_EQ(seen, want.size()) << "items the CLI left out";
  return seen;
}

std::vector<std::filesystem::path> real_traces(std::filesystem::path const& dir) {
  std::vector<std::filesystem::path> files;
  for (auto const& e : std::filesystem::recursive_directory_iterator(dir)) {
    auto const s = e.path().string();
    if (e.is_regular_file() && (s.ends_with(".json.gz") || s.ends_with(".sqlite")))
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(OperatorOracle, EveryRealTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const files = real_traces(traces);
  ASSERT_GT(files.size(), 20u);
  std::size_t with_operators = 0;
  for (auto const& f : files) with_operators += check_file(f) > 0 ? 1 : 0;
  EXPECT_GT(with_operators, 10u);  // the oracle compared real operators, not empty tables
}

TEST(OperatorOracle, PaddleFixture) {
  auto const n = check_file(std::string(TABLES_FIXTURES) + "/paddle_small.paddle_trace.json");
  EXPECT_EQ(n, 4u);  // matmul, c_allreduce_sum, add (thread 7) and relu (thread 8), one rank
}

// CSV on a Paddle rank carries Paddle's columns; every integer cell equals the oracle's value.
TEST(OperatorOracle, PaddleCsvColumns) {
  std::string const fixture = std::string(TABLES_FIXTURES) + "/paddle_small.paddle_trace.json";
  ts::event_table t;
  ts::read_input(fixture, t, {});
  auto const want = oracle(t);
  auto const r = ts::test::run_cli("overview --table operators --format csv --sort name " +
                                   ts::test::quote(fixture));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    auto& cells = lines.emplace_back();
    std::istringstream fields(line);
    for (std::string c; std::getline(fields, c, ',');) cells.push_back(c);
  }
  ASSERT_EQ(lines.size(), 1 + want.size());
  std::vector<std::string> const header = {
      "rank",           "name",          "calls",         "host_total_ns", "host_self_ns",
      "host_avg_ns",    "host_max_ns",   "host_min_ns",   "host_ratio",    "device_total_ns",
      "device_self_ns", "device_avg_ns", "device_max_ns", "device_min_ns", "device_ratio"};
  EXPECT_EQ(lines[0], header);
  auto it = want.begin();  // --sort name: the oracle's (rank, name) order on one rank
  for (std::size_t k = 1; k < lines.size(); ++k, ++it) {
    auto const& c = lines[k];
    ASSERT_EQ(c.size(), header.size());
    auto const& e = it->second;
    EXPECT_EQ(c[1], it->first.second);
    std::vector<std::int64_t> const ints = {e.calls,       e.host,       e.host_self,
                                            e.host_max,    e.host_min,   e.device,
                                            e.device_self, e.device_max, e.device_min};
    std::vector<std::size_t> const at = {2, 3, 4, 6, 7, 9, 10, 12, 13};
    for (std::size_t j = 0; j < at.size(); ++j)
      EXPECT_EQ(std::stoll(c[at[j]]), ints[j]) << it->first.second << " " << header[at[j]];
  }
}

// --op-detail: every real trace and the Paddle fixture against the detail oracle.
TEST(OperatorOracle, OpDetailEveryTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  std::size_t items = 0;
  for (auto const& f : real_traces(traces)) items += check_detail(f);
  EXPECT_GT(items, 100u);
  // By hand from the fixture (µs): matmul::compute 26 ⊃ gemm 30, relu_kernel 20, Memcpy 2;
  // c_allreduce_sum: own nccl 10, c_allreduce_sum::compute 2 ⊃ scale 2; add::compute 8 ⊃ add 10;
  // relu: own relu_kernel 6: 4 inner items, 6 device rows.
  EXPECT_EQ(check_detail(std::string(TABLES_FIXTURES) + "/paddle_small.paddle_trace.json"), 10u);
}

}  // namespace operator_oracle_test
