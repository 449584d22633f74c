// SPDX-License-Identifier: Apache-2.0
// What leaves the tool from hostile trace content, end to end: an nsys export whose kernel names
// hold terminal escapes (ESC[2J, an OSC title ended by BEL, CR, LF), bytes that are not UTF-8 and
// a spreadsheet formula. Text output and error lines show control characters escaped; every
// output and the fleet store hold valid UTF-8; CSV keeps the exact strings, and with --csv-safe
// prefixes the formula with '.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include <tracesweep/output/safe_text.hpp>

#include "fleet/fleet_test_support.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using tracesweep::test::quote;
using tracesweep::test::run_cli;

using tracesweep::output::is_valid_utf8;

namespace safe_output_test {

constexpr std::string_view escapes = "clear\x1b[2J\x1b]0;owned\x07 row\rsplit\nhere";
constexpr std::string_view escapes_shown = "clear\\x1b[2J\\x1b]0;owned\\x07 row\\rsplit\\nhere";
constexpr std::string_view formula = "=HYPERLINK(\"http://x\")";

bool has_control_characters(std::string_view s) {
  for (char c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

/// Sets the text of string `id` of the export at `db` to the bytes of `value`, as nsys would
/// store a name it was given (SQLite does not check that TEXT is UTF-8).
void set_string(fs::path const& db, int id, std::string_view value) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "UPDATE StringIds SET value = ? WHERE id = ?", -1, &q, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(q, 1, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int(q, 2, id);
  EXPECT_EQ(sqlite3_step(q), SQLITE_DONE) << sqlite3_errmsg(h);
  sqlite3_finalize(q);
  sqlite3_close(h);
}

class safe_output : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(trace.parent_path());
    auto const g = run_cli("generate --ranks 1 --steps 2 --kernels-per-step 20 -o " + quote(trace));
    ASSERT_EQ(g.exit_code, 0) << g.err;
    auto const ids = tracesweep::test::sql_rows(
        trace, "SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1 LIMIT 3");
    ASSERT_EQ(ids.size(), 3u);
    set_string(trace, std::stoi(ids[0]), escapes);
    set_string(trace, std::stoi(ids[1]), "bad\xff\xc0name");
    set_string(trace, std::stoi(ids[2]), formula);
  }
  tracesweep::test::scratch_dir dir{"safe_output"};
  fs::path const trace = dir / "job" / "hostile.sqlite";
};

TEST_F(safe_output, text_shows_control_characters_escaped_and_only_valid_utf8) {
  for (auto const* cmd :
       {"summary --table kernels", "stats --report cuda_gpu_kern_sum", "diagnose", "overview"}) {
    auto const r = run_cli(std::string(cmd) + " --wide " + quote(trace));
    ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    EXPECT_FALSE(has_control_characters(r.out)) << cmd;
    EXPECT_TRUE(is_valid_utf8(r.out)) << cmd;
    if (!std::string_view(cmd).starts_with("summary") &&
        !std::string_view(cmd).starts_with("stats"))
      continue;
    EXPECT_NE(r.out.find(escapes_shown), std::string::npos) << cmd << ":\n" << r.out;
  }
}

TEST_F(safe_output, csv_keeps_exact_strings_in_valid_utf8) {
  auto const r = run_cli("stats --report cuda_gpu_kern_sum --format csv " + quote(trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_valid_utf8(r.out));
  EXPECT_NE(r.out.find("bad\xef\xbf\xbd\xef\xbf\xbdname"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(escapes), std::string::npos) << "CSV keeps the exact string";
}

TEST_F(safe_output, csv_safe_prefixes_the_formula) {
  auto const plain = run_cli("summary --table kernels --format csv " + quote(trace));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("\n\"=HYPERLINK("), std::string::npos) << "off by default";
  auto const safe = run_cli("--csv-safe summary --table kernels --format csv " + quote(trace));
  ASSERT_EQ(safe.exit_code, 0) << safe.err;
  EXPECT_NE(safe.out.find("\n\"'=HYPERLINK("), std::string::npos) << safe.out;
  EXPECT_EQ(safe.out.find("\n\"=HYPERLINK("), std::string::npos);
}

TEST_F(safe_output, the_store_holds_valid_utf8) {
  auto const db = dir / "store.db";
  auto const s = run_cli("scan --db " + quote(db) + " " + quote(dir / "job"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  auto const names = tracesweep::test::sql_rows(db, "SELECT name FROM kernels");
  ASSERT_FALSE(names.empty());
  bool replaced = false;
  for (auto const& n : names) {
    EXPECT_TRUE(is_valid_utf8(n)) << n;
    replaced = replaced || n == "bad\xef\xbf\xbd\xef\xbf\xbdname";
  }
  EXPECT_TRUE(replaced) << "the name with bytes that are not UTF-8 stored with U+FFFD";
}

TEST_F(safe_output, error_lines_show_control_characters_escaped) {
  auto const bad = dir / "job" / "bad\x1b[2J\x07.json";
  std::ofstream(bad) << "{\"traceEvents\": [";
  auto const r = run_cli("summary " + quote(bad));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(has_control_characters(r.err)) << r.err;
  EXPECT_NE(r.err.find("bad\\x1b[2J\\x07.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

}  // namespace safe_output_test
