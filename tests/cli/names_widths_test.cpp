// SPDX-License-Identifier: Apache-2.0
// What a new user tripped on (issue 26), second set, on the real traces: short names kept apart
// (item 4), every text table fitting the width (item 5), diff pairing ranks whose numbers differ
// (item 10), and one stated origin and no nonzero time shown as zero (item 17).
#include <gtest/gtest.h>

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"
#include "support/summary_text.hpp"
#include "support/trace_paths.hpp"

namespace names_widths_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

fs::path filter_rank0(fs::path const& traces) {
  return traces / "kineto/hta_trace_filter_2rank/sampled_rank-0.json.gz";
}
fs::path diff_control(fs::path const& traces) {
  return traces / "kineto/hta_trace_diff_control_a100/control.json.gz";
}
fs::path diff_test(fs::path const& traces) {
  return traces / "kineto/hta_trace_diff_test_v100/test.json.gz";
}

std::vector<std::string> lines_of(std::string const& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// The lines of the listing titled `title` ("Kernels (" …) after its header, up to the blank
/// line after it.
std::vector<std::string> rows_of(std::string const& text, std::string const& title) {
  std::vector<std::string> out;
  bool on = false, header = false;
  for (auto const& line : lines_of(text)) {
    if (line.starts_with(title)) {
      on = true, header = true;
      continue;
    }
    if (!on) continue;
    if (line.empty()) break;
    if (header) {
      header = false;
      continue;
    }
    out.push_back(line);
  }
  return out;
}

/// The words of a line (split at runs of two or more spaces: cells may hold single spaces).
std::vector<std::string> cells_of(std::string const& line) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ' && (i + 1 == line.size() || line[i + 1] == ' ')) {
      if (!cell.empty()) out.push_back(cell);
      cell.clear();
      while (i + 1 < line.size() && line[i + 1] == ' ') ++i;
      continue;
    }
    cell += line[i];
  }
  if (!cell.empty()) out.push_back(cell);
  return out;
}

/// Whether shown → full is one to one over the pairs.
void expect_one_to_one(std::vector<std::pair<std::string, std::string>> const& shown_full) {
  std::map<std::string, std::set<std::string>> fulls_of;
  std::map<std::string, std::set<std::string>> shown_of;
  for (auto const& [shown, full] : shown_full) {
    fulls_of[shown].insert(full);
    shown_of[full].insert(shown);
  }
  for (auto const& [shown, fulls] : fulls_of)
    EXPECT_EQ(fulls.size(), 1u) << shown << " stands for " << fulls.size() << " names";
  for (auto const& [full, shown] : shown_of)
    EXPECT_EQ(shown.size(), 1u) << full << " shown " << shown.size() << " ways";
}

// ---- item 4: --names short keeps names distinct ------------------------------------------------

TEST(ShortNames, FiftyThreeCutlassKernelsNoLongerAllReadKernel) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = filter_rank0(traces);
  auto const names = summary_kernel_names(f);
  std::size_t cutlass = 0;
  for (auto const& n : names) cutlass += n.starts_with("void cutlass::Kernel<");
  ASSERT_EQ(cutlass, 53u) << "the trace the issue names";
  // Unlimited, and narrow enough that short names are elided too.
  for (auto const* columns : {"", "COLUMNS=100 "}) {
    SCOPED_TRACE(columns);
    auto const r = run_cli("--names short summary " + quote(f), 0, columns);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const rows = rows_of(r.out, "Kernels (");
    ASSERT_EQ(rows.size(), names.size());
    std::vector<std::pair<std::string, std::string>> pairs;
    std::size_t plain = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      pairs.emplace_back(kernel_name_cell(rows[i]), names[i]);
      plain += pairs.back().first == "Kernel";
    }
    EXPECT_EQ(plain, 0u);
    expect_one_to_one(pairs);
  }
}

TEST(ShortNames, DiffListsEachKernelOnce) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const args = quote(diff_control(traces)) + " " + quote(diff_test(traces));
  // By number every kernel is new or vanished: the case the issue saw.
  auto const json = run_cli("diff --pair-ranks number --format json " + args);
  auto const text = run_cli("--names short diff --pair-ranks number " + args);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  ASSERT_EQ(text.exit_code, 0) << text.err;
  simdjson::dom::parser parser;
  std::vector<std::pair<std::string, std::string>> pairs;  // (shown, full + rank + status)
  auto const rows = rows_of(text.out, "Kernels that changed (per rank) (");
  std::size_t k = 0;
  std::size_t elementwise = 0;
  for (auto row : parser.parse(json.out)["kernels"].get_array()) {
    ASSERT_LT(k, rows.size());
    auto const cells = cells_of(rows[k++]);
    ASSERT_GE(cells.size(), 3u);
    auto const full = std::string(std::string_view(row["name"]));
    elementwise += full.find("::elementwise_kernel<") != std::string::npos;
    // rank, name, status: one name per (rank, status) shown once.
    pairs.emplace_back(cells[0] + " " + cells[1] + " " + cells[2],
                       cells[0] + " " + full + " " + cells[2]);
  }
  EXPECT_EQ(k, rows.size());
  EXPECT_GE(elementwise, 7u);
  expect_one_to_one(pairs);
}

// ---- item 5: every text table fits the width ---------------------------------------------------

/// A results store of one scan of `dir`, in `folder`.
fs::path scanned(scratch const& folder, fs::path const& dir) {
  auto const db = folder.file("fleet.sqlite");
  auto const r = run_cli("scan --db " + quote(db) + " " + quote(dir));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return db;
}

void expect_fits(std::string const& out, std::size_t width) {
  for (auto const& line : lines_of(out)) EXPECT_LE(line.size(), width) << line;
}

TEST(TextWidth, ReportAndDiffFitTheWidthCuttingOnlyNames) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  scratch const folder("names_widths");
  auto const db = scanned(folder, traces / "kineto/hta_trace_filter_2rank");
  auto const json = run_cli("report --db " + quote(db) + " --table top_kernels --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto const wide = run_cli("--wide report --db " + quote(db) + " --table top_kernels");
  std::size_t longest = 0;
  for (auto const& line : lines_of(wide.out)) longest = std::max(longest, line.size());
  ASSERT_GT(longest, 400u) << "a report whose names fit proves nothing";
  for (auto const* names : {"full", "short"}) {
    SCOPED_TRACE(names);
    auto const r = run_cli(
        std::string("--names ") + names + " report --db " + quote(db) + " --table top_kernels", 0,
        "COLUMNS=160 ");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_fits(r.out, 160);
    // Every number is in its line whole: jobs and calls as the JSON has them.
    auto const rows = rows_of(r.out, "Most expensive kernels across the fleet (");
    simdjson::dom::parser parser;
    std::size_t k = 0;
    for (auto row : parser.parse(json.out)["top_kernels"].get_array()) {
      ASSERT_LT(k, rows.size());
      auto const cells = cells_of(rows[k++]);
      ASSERT_EQ(cells.size(), 7u) << rows[k - 1];
      EXPECT_EQ(cells[1], std::to_string(std::int64_t(row["jobs"]))) << rows[k - 1];
      EXPECT_EQ(cells[2], std::to_string(std::int64_t(row["calls"]))) << rows[k - 1];
    }
    EXPECT_EQ(k, rows.size());
  }
  auto const all = run_cli("report --db " + quote(db), 0, "COLUMNS=120 ");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  expect_fits(all.out, 120);
  // diff's kernel table has eleven data columns (about 160 characters): at 200 its names are cut.
  for (auto const* names : {"full", "short"}) {
    auto const diff = run_cli(std::string("--names ") + names + " diff " +
                                  quote(diff_control(traces)) + " " + quote(diff_test(traces)),
                              0, "COLUMNS=200 ");
    ASSERT_EQ(diff.exit_code, 0) << diff.err;
    expect_fits(diff.out, 200);
    EXPECT_NE(diff.out.find("..."), std::string::npos);
  }
}

// ---- item 10: diff pairs ranks by order where their numbers differ ----------------------------

TEST(DiffRanks, TracesOfDifferentRanksArePairedByOrderAndSaySo) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const before = summary_kernel_names(diff_control(traces)),
             after = summary_kernel_names(diff_test(traces));
  std::set<std::string> const a(before.begin(), before.end()), b(after.begin(), after.end());
  std::size_t only_before = 0, only_after = 0;
  for (auto const& n : a) only_before += !b.contains(n);
  for (auto const& n : b) only_after += !a.contains(n);
  auto const args = quote(diff_control(traces)) + " " + quote(diff_test(traces));
  simdjson::dom::parser parser;
  auto count = [&](std::string const& json, std::string const& status) {
    std::size_t n = 0;
    for (auto row : parser.parse(json)["kernels"].get_array())
      n += std::string_view(row["status"]) == status;
    return n;
  };
  for (auto const* how : {"", "--pair-ranks order "}) {
    SCOPED_TRACE(how);
    auto const r = run_cli("diff --threshold 0 --format json " + std::string(how) + args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count(r.out, "new"), only_after);
    EXPECT_EQ(count(r.out, "vanished"), only_before);
    EXPECT_GT(count(r.out, "slower") + count(r.out, "faster"), 0u);
    EXPECT_NE(r.err.find("ranks paired by order, before=after: 3=1"), std::string::npos) << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  }
  auto const r = run_cli("diff --threshold 0 --format json --pair-ranks number " + args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "new"), b.size());
  EXPECT_EQ(count(r.out, "vanished"), a.size());
  EXPECT_NE(r.err.find("ranks paired by number (before: 3; after: 1)"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli("diff --pair-ranks rank " + args).exit_code, 1);
  // Equal rank numbers: no note.
  auto const same = run_cli("diff --format json " + args.substr(0, args.find(' ')) + " " +
                            args.substr(0, args.find(' ')));
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.err, "");
}

// ---- item 17: one origin, said; no nonzero value shown as zero ---------------------------------

TEST(TextTimes, DiagnoseGapsCountFromOneStatedOrigin) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite";
  auto const text = run_cli("diagnose " + quote(f));
  auto const json = run_cli("diagnose --format json " + quote(f));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  auto const doc = parser.parse(json.out);
  auto first = std::numeric_limits<std::int64_t>::max();
  std::set<std::int64_t> starts;
  for (auto v : doc["verdicts"].get_array())
    if (v["step"].is_null()) {
      first = std::min(first, std::int64_t(v["window_start_ns"]));
      starts.insert(std::int64_t(v["window_start_ns"]));
    }
  ASSERT_GT(starts.size(), 1u) << "devices starting apart prove the one origin";
  std::string const lead = "Times are offsets from the first GPU operation, ";
  auto const at = text.out.find(lead);
  ASSERT_NE(at, std::string::npos) << text.out;
  EXPECT_LT(at, text.out.find("Largest idle gaps ("));
  EXPECT_EQ(std::stoll(text.out.substr(at + lead.size())), first);
  auto const rows = rows_of(text.out, "Largest idle gaps (");
  std::size_t k = 0;
  for (auto g : doc["gaps"].get_array()) {
    if (k == rows.size()) break;
    auto const expected = static_cast<double>(std::int64_t(g["start_ns"]) - first) / 1e6;
    auto const cells = cells_of(rows[k++]);
    ASSERT_GE(cells.size(), 3u);
    // rank, device, at (ms): to the microsecond.
    EXPECT_NEAR(std::stod(cells[2]), expected, 0.0005 + 1e-9) << rows[k - 1];
  }
  EXPECT_GT(k, 3u);
}

/// Whether `cell` is a number all of whose digits are zero ("0.000", "-0.0").
bool reads_as_zero(std::string const& cell) {
  return !cell.empty() && cell.find_first_of("123456789") == std::string::npos &&
         cell.find_first_of("0") != std::string::npos &&
         cell.find_first_not_of("-0.,") == std::string::npos;
}

TEST(TextTimes, NoNonzeroValuePrintsAsZero) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  scratch const folder("names_zero");
  auto const db = scanned(folder, traces / "kineto/hta_trace_filter_2rank");
  auto const json =
      run_cli("report --db " + quote(db) + " --top 0 --table top_kernels --format json");
  auto const text = run_cli("--wide report --db " + quote(db) + " --top 0 --table top_kernels");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  auto const rows = rows_of(text.out, "Most expensive kernels across the fleet (");
  std::size_t k = 0, tiny = 0;
  for (auto row : parser.parse(json.out)["top_kernels"].get_array()) {
    ASSERT_LT(k, rows.size());
    auto const cells = cells_of(rows[k++]);
    double const share = row["share"];
    tiny += share > 0 && share < 0.0005;
    auto const shown = cells[cells.size() - 3];
    EXPECT_FALSE(share > 0 && reads_as_zero(shown)) << rows[k - 1];
    EXPECT_NEAR(std::stod(shown), share * 100, share * 100 * 0.05 + 0.05) << rows[k - 1];
  }
  EXPECT_GT(tiny, 10u) << "shares under 0.05 % prove the rule";
  // Operators under 500 ns on the nsys trace the issue names (their ms columns).
  auto const f = traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite";
  auto const ov = run_cli("--wide overview --table operators " + quote(f));
  auto const csv = run_cli("overview --table operators --format csv " + quote(f));
  ASSERT_EQ(ov.exit_code, 0) << ov.err;
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  // The text rows are the CSV's, in order; the last four columns of both are the host and device
  // totals and selves (ns in CSV, ms in text).
  auto const text_rows = lines_of(ov.out), csv_rows = lines_of(csv.out);
  ASSERT_GT(text_rows.size(), 5u);
  std::size_t const first_text = 4, below_500 = [&] {
    std::size_t n = 0;
    for (std::size_t i = 1; i < csv_rows.size(); ++i) {
      auto const& row = csv_rows[i];
      auto at = row.size();
      std::vector<std::int64_t> ns;
      for (int k = 0; k < 4; ++k) {
        auto const comma = row.rfind(',', at - 1);
        ns.insert(ns.begin(), std::stoll(row.substr(comma + 1, at - comma - 1)));
        at = comma;
      }
      auto const cells = cells_of(text_rows[first_text + i - 1]);
      for (int k = 0; k < 4; ++k) {
        auto const& shown = cells[cells.size() - 4 + static_cast<std::size_t>(k)];
        n += ns[static_cast<std::size_t>(k)] > 0 && ns[static_cast<std::size_t>(k)] < 500;
        EXPECT_EQ(ns[static_cast<std::size_t>(k)] == 0, reads_as_zero(shown))
            << text_rows[first_text + i - 1] << " | " << row;
        EXPECT_NEAR(std::stod(shown), static_cast<double>(ns[static_cast<std::size_t>(k)]) / 1e6,
                    0.0005 + 1e-12);
      }
    }
    return n;
  }();
  EXPECT_GT(below_500, 100u) << "times under 500 ns prove the rule";
}

}  // namespace names_widths_test
