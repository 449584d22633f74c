// SPDX-License-Identifier: Apache-2.0
// Every Kineto trace in ../shared/traces/kineto, read by the streaming reader at 1 and 3
// threads, against an independent oracle: the whole file inflated by gzread, parsed by the
// plain recursive parser of test_json.hpp, ts/dur converted by digit-string arithmetic, and
// the column contract of chrome_trace_reader.hpp re-derived here row by row.
#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include <gtest/gtest.h>

#include "support/trace_paths.hpp"
#include "test_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace tracesweep::test {
namespace {

namespace fs = std::filesystem;

struct row {
  std::int64_t start, end;
  event_kind kind;
  std::uint8_t subkind;
  std::int32_t rank, device;
  std::int64_t stream;
  std::string name, category;
  std::int64_t correlation, bytes;
  auto tie() const {
    return std::tie(start, end, kind, subkind, rank, device, stream, name, category, correlation,
                    bytes);
  }
  bool operator==(row const& o) const { return tie() == o.tie(); }
};

std::optional<std::int64_t> integer_of(json const* v) {
  if (!v) return std::nullopt;
  if (v->t == json::type::number) {
    if (v->text.find_first_of(".eE") != std::string::npos) {
      // integral float such as 7.0
      auto const ns = literal_us_to_ns(v->text);
      if (ns % 1000 != 0) return std::nullopt;
      return ns / 1000;
    }
    return std::stoll(v->text);
  }
  if (v->t == json::type::string && !v->text.empty()) {
    if (v->text.rfind("0x", 0) == 0) return std::stoll(v->text.substr(2), nullptr, 16);
    if (v->text.find_first_not_of("0123456789") == std::string::npos) return std::stoll(v->text);
  }
  return std::nullopt;
}

std::optional<std::int64_t> first_digits(std::string const& s) {
  auto const p = s.find_first_of("0123456789");
  if (p == std::string::npos) return std::nullopt;
  return std::stoll(s.substr(p));
}

std::vector<row> oracle_rows(json const& doc, event_table const& table, std::int32_t fallback) {
  std::int32_t rank = fallback;
  std::int64_t base = 0;
  json const* events = &doc;
  if (doc.t == json::type::object) {
    if (auto d = doc.find("distributedInfo"))
      if (auto r = integer_of(d->find("rank"))) rank = static_cast<std::int32_t>(*r);
    if (auto b = doc.find("baseTimeNanoseconds")) base = std::stoll(b->text);
    events = doc.find("traceEvents");
  }
  static std::map<std::string, event_kind> const kinds{
      {"kernel", event_kind::kernel},
      {"Kernel", event_kind::kernel},
      {"gpu_memcpy", event_kind::memcpy},
      {"Memcpy", event_kind::memcpy},
      {"gpu_memset", event_kind::memset},
      {"Memset", event_kind::memset},
      {"cuda_runtime", event_kind::api_call},
      {"cuda_driver", event_kind::api_call},
      {"Runtime", event_kind::api_call},
      {"cuda_sync", event_kind::synchronization},
      {"cpu_op", event_kind::cpu_op},
      {"Operator", event_kind::cpu_op},
      {"user_annotation", event_kind::user_range},
      {"gpu_user_annotation", event_kind::user_range}};
  static std::set<std::string> const device_side{
      "kernel",     "Kernel", "gpu_memcpy", "Memcpy",
      "gpu_memset", "Memset", "cuda_sync",  "gpu_user_annotation"};
  static std::set<std::string> const named{"cpu_op", "Operator", "user_annotation",
                                           "python_function"};
  static std::map<std::string, copy_kind> const copies{{"HtoD", copy_kind::host_to_device},
                                                       {"DtoH", copy_kind::device_to_host},
                                                       {"DtoD", copy_kind::device_to_device},
                                                       {"HtoH", copy_kind::host_to_host},
                                                       {"PtoP", copy_kind::peer_to_peer}};
  std::vector<row> rows;
  for (auto const& e : events->items) {
    auto ph = e.find("ph");
    if (!ph || ph->text != "X") continue;
    auto const cat = e.find("cat") ? e.find("cat")->text : std::string();
    auto const name = e.find("name") ? e.find("name")->text : std::string();
    row r{};
    r.start = literal_us_to_ns(e.find("ts")->text) + base;
    r.end = r.start + literal_us_to_ns(e.find("dur")->text);
    r.kind = kinds.contains(cat) ? kinds.at(cat) : event_kind::other;
    if (named.contains(cat)) {
      if (name.rfind("ProfilerStep#", 0) == 0) r.kind = event_kind::profiler_step;
      if (name.rfind("enumerate(DataLoader)#", 0) == 0) r.kind = event_kind::data_loader;
      if (name.rfind("Optimizer.step#", 0) == 0) r.kind = event_kind::optimizer;
    }
    if (r.kind == event_kind::memcpy && name.size() > 11 && copies.contains(name.substr(7, 4)))
      r.subkind = static_cast<std::uint8_t>(copies.at(name.substr(7, 4)));
    r.rank = rank;
    json const* args = e.find("args");
    auto arg = [&](char const* k) { return args ? args->find(k) : nullptr; };
    json const* tid = e.find("tid");
    if (device_side.contains(cat)) {
      auto d = integer_of(arg("device"));
      if (!d) d = integer_of(e.find("pid"));
      r.device = d ? static_cast<std::int32_t>(*d) : -1;
      auto s = integer_of(arg("stream"));
      if (!s && tid) s = tid->t == json::type::number ? integer_of(tid) : first_digits(tid->text);
      r.stream = s.value_or(-1);
    } else {
      r.device = -1;
      r.stream = -1;
      if (tid && tid->t == json::type::number) {
        r.stream = std::stoll(tid->text);
      } else if (tid && tid->t == json::type::string) {
        if (!tid->text.empty() && std::isdigit(static_cast<unsigned char>(tid->text[0])))
          r.stream = std::stoll(tid->text);
        else
          r.stream = -2 - static_cast<std::int64_t>(table.strings().find(tid->text));
      }
    }
    auto corr = integer_of(arg("correlation"));
    if (!corr) corr = integer_of(arg("correlation id"));
    r.correlation = corr.value_or(-1);
    r.bytes = integer_of(arg("bytes")).value_or(0);
    r.name = name;
    r.category = cat;
    rows.push_back(std::move(r));
  }
  return rows;
}

/// Launch metrics (kernel rows only), as the table's side table would hold them.
struct metric {
  std::uint64_t row;
  double blocks_per_sm, occupancy_pct;
};

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

std::vector<metric> oracle_metrics(json const& doc, std::vector<row> const& rows) {
  json const* events = doc.t == json::type::object ? doc.find("traceEvents") : &doc;
  double const nan = std::numeric_limits<double>::quiet_NaN();
  auto real = [&](json const* args, char const* key) {
    json const* v = args ? args->find(key) : nullptr;
    return v && v->t == json::type::number ? std::strtod(v->text.c_str(), nullptr) : nan;
  };
  std::vector<metric> out;
  std::uint64_t i = 0;
  for (auto const& e : events->items) {
    auto ph = e.find("ph");
    if (!ph || ph->text != "X") continue;
    auto const r = i++;
    if (rows[r].kind != event_kind::kernel) continue;
    json const* args = e.find("args");
    double const bps = real(args, "blocks per SM");
    double occ = real(args, "est. achieved occupancy %");
    if (std::isnan(occ)) occ = real(args, "theoretical achieved occupancy %");
    if (!std::isnan(bps) || !std::isnan(occ)) out.push_back({r, bps, occ});
  }
  return out;
}

std::vector<row> table_rows(event_table const& t) {
  std::vector<row> rows(t.size());
  for (std::size_t i = 0; i < t.size(); ++i)
    rows[i] = row{t.start_ns[i],
                  t.end_ns[i],
                  t.kind[i],
                  t.subkind[i],
                  t.rank[i],
                  t.device[i],
                  t.stream[i],
                  std::string(t.strings().at(t.name[i])),
                  std::string(t.strings().at(t.category[i])),
                  t.correlation_of(i),
                  t.bytes_of(i)};
  return rows;
}

std::string describe(row const& r) {
  return std::to_string(r.start) + ".." + std::to_string(r.end) + " kind " +
         std::string(to_string(r.kind)) + "/" + std::to_string(r.subkind) + " rank " +
         std::to_string(r.rank) + " dev " + std::to_string(r.device) + " stream " +
         std::to_string(r.stream) + " corr " + std::to_string(r.correlation) + " bytes " +
         std::to_string(r.bytes) + " [" + r.category + "] " + r.name.substr(0, 60);
}

TEST(ChromeKinetoTraces, EveryTraceMatchesTheOracle) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::vector<fs::path> files;
  for (auto const& entry : fs::recursive_directory_iterator(dir / "kineto")) {
    auto const name = entry.path().filename().string();
    if (entry.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.gz")))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 19u);
  for (auto const& file : files) {
    SCOPED_TRACE(file.string());
    auto const doc = json_reader(load_text(file)).parse_document();
    for (unsigned threads : {1u, 3u}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      event_table table;
      read_options options;
      options.threads = threads;
      read_input(file.string(), table, options);
      auto const expected = oracle_rows(doc, table, 0);
      auto const actual = table_rows(table);
      ASSERT_EQ(table.inputs().size(), 1u);
      EXPECT_EQ(table.inputs()[0].format, "kineto-json");
      EXPECT_TRUE(table.inputs()[0].skipped.empty());
      EXPECT_EQ(table.inputs()[0].events, static_cast<std::int64_t>(expected.size()));
      ASSERT_EQ(actual.size(), expected.size());
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < actual.size() && mismatches < 5; ++i) {
        if (!(actual[i] == expected[i])) {
          ++mismatches;
          ADD_FAILURE() << "row " << i << "\n  reader: " << describe(actual[i])
                        << "\n  oracle: " << describe(expected[i]);
        }
      }
      // Per (kind, device) totals, the figures everything downstream builds on.
      std::map<std::pair<event_kind, std::int32_t>,
               std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>
          want, got;
      auto add = [](auto& m, row const& r) {
        auto [it, fresh] = m.try_emplace({r.kind, r.device}, 0, 0, r.start, r.end);
        auto& [n, sum, lo, hi] = it->second;
        ++n, sum += r.end - r.start, lo = std::min(lo, r.start), hi = std::max(hi, r.end);
        (void)fresh;
      };
      for (auto const& r : expected) add(want, r);
      for (auto const& r : actual) add(got, r);
      EXPECT_EQ(got, want);
      // Launch metrics ("blocks per SM", "est. achieved occupancy %") of kernel rows.
      auto const want_metrics = oracle_metrics(doc, expected);
      auto const& m = table.launch_metrics;
      ASSERT_EQ(m.size(), want_metrics.size());
      ASSERT_EQ(m.blocks_per_sm.size(), m.size());
      ASSERT_EQ(m.est_occupancy_pct.size(), m.size());
      for (std::size_t j = 0, bad = 0; j < m.size() && bad < 5; ++j) {
        auto const& w = want_metrics[j];
        if (m.row[j] != w.row || !same(m.blocks_per_sm[j], w.blocks_per_sm) ||
            !same(m.est_occupancy_pct[j], w.occupancy_pct)) {
          ++bad;
          ADD_FAILURE() << "launch metric " << j << ": reader row " << m.row[j] << " "
                        << m.blocks_per_sm[j] << " / " << m.est_occupancy_pct[j] << ", oracle row "
                        << w.row << " " << w.blocks_per_sm << " / " << w.occupancy_pct;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tracesweep::test
