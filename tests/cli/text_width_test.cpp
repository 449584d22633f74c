// SPDX-License-Identifier: Apache-2.0
// Text made for a terminal: on real traces with long templated kernel names, the kernel tables
// fit COLUMNS=160 with --names short (and with full names, elided), every elided name is a
// prefix and a suffix of a name in the JSON output, and --wide prints every name whole.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/summary_text.hpp"
#include "support/trace_paths.hpp"

namespace text_width_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

/// The lines of the table titled `title` ("Kernels (" …) up to the blank line after it; for an
/// nsys-style report, the lines after its "** " title.
std::vector<std::string> table_lines(std::string const& text, std::string const& title) {
  std::istringstream in(text);
  std::vector<std::string> out;
  bool on = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(title)) {
      on = true;
      continue;
    }
    if (on && line.empty() && !out.empty()) break;
    if (on && !line.empty()) out.push_back(line);
  }
  return out;
}

std::set<std::string> json_kernel_names(fs::path const& f) {
  auto const names = summary_kernel_names(f);
  return {names.begin(), names.end()};
}

std::vector<fs::path> traces_with_long_names(fs::path const& traces) {
  return {traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite",
          traces / "kineto" / "tb_plugin_samples_resnet50_v100" /
              "resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz",
          fs::path(TRACESWEEP_SOURCE_DIR) / "datasets/samples/train_2rank.sqlite"};
}

TEST(TextWidth, KernelTablesFit160ColumnsAndElideOnlyNames) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : traces_with_long_names(traces)) {
    SCOPED_TRACE(f.string());
    auto const names = json_kernel_names(f);
    std::size_t longest = 0;
    for (auto const& n : names) longest = std::max(longest, n.size());
    EXPECT_GT(longest, 160u) << "a trace whose names do not fit proves nothing";
    for (auto const* style : {"short", "full"}) {
      auto const r =
          run_cli(std::string("--names ") + style + " summary " + quote(f), 0, "COLUMNS=160 ");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      auto const lines = table_lines(r.out, "Kernels (");
      ASSERT_EQ(lines.size(), names.size() + 1) << "header and one line per kernel";
      for (auto const& line : lines) EXPECT_LE(line.size(), 160u) << line;
      if (std::string(style) == "short") continue;
      for (std::size_t i = 1; i < lines.size(); ++i) {
        auto shown = kernel_name_cell(lines[i]);
        if (names.count(shown)) continue;
        // Names the cut makes alike end in their number (issue 26, item 4): " #N".
        static std::regex const numbered(R"((.*\.\.\..*) #[0-9]+)");
        if (std::smatch m; std::regex_match(shown, m, numbered)) shown = m[1];
        auto const dots = shown.find("...");
        ASSERT_NE(dots, std::string::npos) << shown;
        auto const head = shown.substr(0, dots), tail = shown.substr(dots + 3);
        bool found = false;
        for (auto const& n : names)
          found |= n.starts_with(head) && n.ends_with(tail) && n.size() > shown.size();
        EXPECT_TRUE(found) << shown;
      }
    }
    // The nsys-style report too.
    if (f.extension() == ".sqlite") {
      auto const r =
          run_cli("--names short stats --report cuda_gpu_kern_sum " + quote(f), 0, "COLUMNS=160 ");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      for (auto const& line : table_lines(r.out, "** ")) EXPECT_LE(line.size(), 160u) << line;
    }
  }
}

TEST(TextWidth, WidePrintsEveryNameWhole) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : traces_with_long_names(traces)) {
    SCOPED_TRACE(f.string());
    auto const names = json_kernel_names(f);
    auto const r = run_cli("--wide summary " + quote(f), 0, "COLUMNS=160 ");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> shown;
    auto const lines = table_lines(r.out, "Kernels (");
    for (std::size_t i = 1; i < lines.size(); ++i) shown.insert(kernel_name_cell(lines[i]));
    EXPECT_EQ(shown, names);
    // Without COLUMNS and not on a terminal, text is the same as --wide.
    EXPECT_EQ(run_cli("summary " + quote(f)).out, r.out);
  }
}

/// "+S.mmm uuu s" of `d` ns, to the microsecond (half away from zero).
std::string offset(std::int64_t d) {  // ms to the µs, as text shows offsets
  auto const us = ((d < 0 ? -d : d) + 500) / 1000;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%c%lld.%03lld", d < 0 ? '-' : '+',
                static_cast<long long>(us / 1000), static_cast<long long>(us % 1000));
  return buf;
}

TEST(TextTimes, GapsAreOffsetsFromTheFirstGpuOperationPrintedOnce) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "kineto" / "hta_nccl_allreduce_a100" / "nccl_data.json.gz";
  auto const text = run_cli("summary " + quote(f));
  auto const json = run_cli("summary --format json " + quote(f));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::string const lead = "Times are offsets from the first GPU operation, ";
  auto const at = text.out.find(lead);
  ASSERT_NE(at, std::string::npos) << text.out;
  EXPECT_EQ(at, text.out.rfind(lead));
  auto const origin = std::stoll(text.out.substr(at + lead.size()));
  simdjson::dom::parser parser;
  auto const doc = parser.parse(json.out);
  // The origin is the earliest device's first operation.
  auto first = std::numeric_limits<std::int64_t>::max();
  for (auto d : doc["devices"].get_array())
    first = std::min(first, std::int64_t(d["window_start_ns"]));
  EXPECT_EQ(origin, first);
  auto const lines = table_lines(text.out, "Idle gaps (");
  std::size_t k = 1;
  for (auto g : doc["gaps"].get_array()) {
    ASSERT_LT(k, lines.size());
    auto const& line = lines[k++];
    EXPECT_NE(line.find(offset(std::int64_t(g["start_ns"]) - origin)), std::string::npos) << line;
    EXPECT_NE(line.find(offset(std::int64_t(g["end_ns"]) - origin)), std::string::npos) << line;
  }
  EXPECT_GT(k, 5u);
}

}  // namespace text_width_test
