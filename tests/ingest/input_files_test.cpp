// SPDX-License-Identifier: Apache-2.0
// Format detection by content, directory expansion and the keep-going rule of read_inputs.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <tracesweep/error.hpp>
#include <tracesweep/input_reader.hpp>

namespace ts = tracesweep;
namespace fs = std::filesystem;

namespace input_files_test {

class input_files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("ts_core_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string file(std::string const& name, std::string const& bytes) {
    auto const p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  fs::path dir;
};

TEST_F(input_files, detect_format_looks_at_content_not_names) {
  EXPECT_EQ(ts::detect_format(file("a.json", std::string("SQLite format 3\0rest", 20))),
            "nsys-sqlite");
  EXPECT_EQ(ts::detect_format(file("b.sqlite", "{\"traceEvents\": []}")), "chrome-json");
  EXPECT_EQ(ts::detect_format(file("c", "\xEF\xBB\xBF \n\t[]")), "chrome-json");
  EXPECT_EQ(ts::detect_format(file("d.gz", "\x1f\x8b\x08\x00")), "chrome-json");
  EXPECT_EQ(ts::detect_format(file("e.json", "hello world")), "");
  EXPECT_EQ(ts::detect_format(file("f.sqlite", "SQLite format 2")), "");
}

TEST_F(input_files, detect_format_errors_name_the_file) {
  auto const empty = file("empty.json", "");
  try {
    (void)ts::detect_format(empty);
    FAIL() << "empty file accepted";
  } catch (ts::input_error const& e) {
    EXPECT_EQ(e.path(), empty);
    EXPECT_EQ(std::string(e.what()).find(empty), 0u);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  auto const missing = (dir / "missing.sqlite").string();
  EXPECT_THROW((void)ts::detect_format(missing), ts::input_error);
  EXPECT_THROW((void)ts::detect_format(dir.string()), ts::input_error);
}

TEST_F(input_files, expand_inputs_sorts_directory_contents_and_keeps_files) {
  file("run/b.json", "{}");
  file("run/a.sqlite", "x");
  file("run/sub/c.json.gz", "x");
  file("run/notes.txt", "x");
  auto const single = file("z.json", "{}");
  auto const got = ts::expand_inputs({single, (dir / "run").string()});
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], single);
  EXPECT_EQ(fs::path(got[1]).filename(), "a.sqlite");
  EXPECT_EQ(fs::path(got[2]).filename(), "b.json");
  EXPECT_EQ(fs::path(got[3]).filename(), "c.json.gz");
  fs::create_directories(dir / "nothing");
  file("nothing/readme.md", "x");
  EXPECT_THROW((void)ts::expand_inputs({(dir / "nothing").string()}), ts::input_error);
}

TEST_F(input_files, read_inputs_stops_at_the_first_bad_file_unless_keep_going) {
  auto const garbage = file("1_garbage.json", "not a trace at all");
  auto const missing = (dir / "2_missing.sqlite").string();
  ts::event_table t;
  try {
    ts::read_inputs({garbage, missing}, t, {}, false);
    FAIL() << "no error";
  } catch (ts::input_error const& e) {
    EXPECT_EQ(e.path(), garbage);
  }
  EXPECT_TRUE(t.inputs().empty());
  EXPECT_EQ(t.size(), 0u);

  ts::event_table k;
  auto const failures = ts::read_inputs({garbage, missing}, k, {}, true);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].path(), garbage);
  EXPECT_EQ(failures[1].path(), missing);
  EXPECT_TRUE(k.inputs().empty());
  EXPECT_EQ(k.size(), 0u);
}

TEST_F(input_files, keep_going_keeps_the_good_files_and_their_rows) {
  auto const good =
      file("2_good.json", R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"gemm","pid":0,)"
                          R"("tid":7,"ts":1.000,"dur":2.500,"args":{"device":0,"stream":7}}]})");
  auto const bad = file("1_bad.json", "garbage");
  ts::event_table t;
  auto const failures = ts::read_inputs({bad, good}, t, {}, true);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].path(), bad);
  ASSERT_EQ(t.inputs().size(), 1u);
  EXPECT_EQ(t.inputs()[0].path, good);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.input_of(0), 0);
  EXPECT_EQ(t.end_ns[0] - t.start_ns[0], 2500);
  ts::event_table strict;
  EXPECT_THROW(ts::read_inputs({good, bad}, strict, {}, false), ts::input_error);
}

}  // namespace input_files_test
