// SPDX-License-Identifier: Apache-2.0
// frames_of on hand-made result sets: typed columns as JSON has them (fixed decimals as published,
// nulls), each distinct text once with an index per row, nested tables of rows as frames of
// their own on request (other nested cells as JSON text), generated rows, object tables.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/output/frames.hpp>

#include "output/write_format.hpp"

namespace out = tracesweep::output;
using out::cell;
using out::value_type;
using tracesweep::test::generated;
using tracesweep::test::one;

namespace frame_writer_test {

constexpr auto no_text = out::frame_column::no_text;

/// Kernels: a name repeated, a null name, a real published with 2 decimals, a real as stored.
out::result_table kernels() {
  out::result_table t;
  t.name = "kernels";
  t.add("name", value_type::string);
  t.add("calls", value_type::integer);
  auto& share = t.add("share", value_type::real, "%");
  share.decimals = 2;
  share.fixed = true;
  t.add("mean", value_type::real);
  t.add_row({std::string("gemm"), std::int64_t{3}, 12.3456, 0.125});
  t.add_row({std::string("nccl"), cell{}, 0.004, cell{}});
  t.add_row({std::string("gemm"), std::int64_t{-7}, cell{}, 1.0 / 3});
  t.add_row({cell{}, std::int64_t{0}, 87.6, 2.5});
  return t;
}

/// Reports of rows as JSON writes them (stats): an id column and a nested table of rows each;
/// the last report's cell is null, the one before holds a list.
out::result_table reports() {
  out::result_table t;
  t.name = "reports";
  t.add("report", value_type::string);
  t.add("rows", value_type::nested);
  t.add_row({std::string("first"), out::nest(kernels())});
  auto second = kernels();
  second.rows.resize(1);
  t.add_row({std::string("second"), out::nest(std::move(second))});
  out::result_table ranks;
  ranks.shape = out::json_shape::list;
  ranks.add("rank", value_type::integer);
  ranks.add_row({std::int64_t{4}});
  t.add_row({std::string("list"), out::nest(std::move(ranks))});
  t.add_row({std::string("none"), cell{}});
  return t;
}

out::frame_column const& column(out::frame const& f, std::string const& name) {
  for (auto const& c : f.columns)
    if (c.name == name) return c;
  throw std::runtime_error("no column " + name);
}

TEST(output_frames, typed_columns_with_nulls_and_published_decimals) {
  auto const frames = out::frames_of(one(kernels()));
  ASSERT_EQ(frames.size(), 1u);
  auto const& f = frames[0];
  EXPECT_EQ(f.name, "kernels");
  EXPECT_EQ(f.rows, 4u);
  auto const& calls = column(f, "calls");
  EXPECT_EQ(calls.integers, (std::vector<std::int64_t>{3, 0, -7, 0}));
  EXPECT_EQ(calls.present, (std::vector<std::uint8_t>{1, 0, 1, 1}));
  auto const& share = column(f, "share");
  EXPECT_EQ(share.unit, "%");
  ASSERT_EQ(share.reals.size(), 4u);
  EXPECT_EQ(share.reals[0], 12.35);  // as JSON prints it: "12.35"
  EXPECT_EQ(share.reals[1], 0.0);    // "0.00"
  EXPECT_TRUE(std::isnan(share.reals[2]));
  EXPECT_EQ(share.reals[3], 87.6);
  auto const& mean = column(f, "mean");
  EXPECT_EQ(mean.reals[2], 1.0 / 3);  // not fixed: as stored
  EXPECT_EQ(mean.present, (std::vector<std::uint8_t>{1, 0, 1, 1}));
}

TEST(output_frames, each_distinct_text_once_with_an_index_per_row) {
  auto t = kernels();
  t.add_row({std::string("bad\xff"), std::int64_t{1}, 1.0, 1.0});
  auto const f = out::frames_of(one(std::move(t)))[0];
  auto const& name = column(f, "name");
  EXPECT_EQ(name.texts, (std::vector<std::string>{"gemm", "nccl", "bad\xEF\xBF\xBD"}));
  EXPECT_EQ(name.text_index, (std::vector<std::uint32_t>{0, 1, 0, no_text, 2}));
  EXPECT_EQ(name.present, (std::vector<std::uint8_t>{1, 1, 1, 0, 1}));
  EXPECT_TRUE(name.tables.empty());
}

TEST(output_frames, nested_rows_as_frames_on_request) {
  auto const f = out::frames_of(one(reports()), {}, {.nested_rows = true})[0];
  ASSERT_EQ(f.rows, 4u);
  auto const& rows = column(f, "rows");
  ASSERT_EQ(rows.tables.size(), 4u);
  EXPECT_EQ(rows.present, (std::vector<std::uint8_t>{1, 1, 1, 0}));
  // A table of rows: a frame of its own, no text.
  EXPECT_EQ(rows.tables[0].rows, 4u);
  EXPECT_EQ(column(rows.tables[0], "calls").integers, (std::vector<std::int64_t>{3, 0, -7, 0}));
  EXPECT_EQ(rows.tables[1].rows, 1u);
  EXPECT_EQ(column(rows.tables[1], "name").texts, (std::vector<std::string>{"gemm"}));
  EXPECT_EQ(rows.text_index[0], no_text);
  EXPECT_EQ(rows.text_index[1], no_text);
  // A list stays JSON text; a null cell has neither.
  EXPECT_TRUE(rows.tables[2].columns.empty());
  ASSERT_NE(rows.text_index[2], no_text);
  EXPECT_EQ(rows.texts.at(rows.text_index[2]), "[4]");
  EXPECT_TRUE(rows.tables[3].columns.empty());
  EXPECT_EQ(rows.text_index[3], no_text);
}

TEST(output_frames, nested_cells_as_json_text_by_default) {
  auto const f = out::frames_of(one(reports()))[0];
  auto const& rows = column(f, "rows");
  EXPECT_TRUE(rows.tables.empty());
  ASSERT_EQ(rows.text_index.size(), 4u);
  EXPECT_EQ(rows.texts.at(rows.text_index[2]), "[4]");
  EXPECT_EQ(rows.texts.at(rows.text_index[0]),
            "[\n"
            "  {\"name\": \"gemm\", \"calls\": 3, \"share\": 12.35, \"mean\": 0.125},\n"
            "  {\"name\": \"nccl\", \"calls\": null, \"share\": 0.00, \"mean\": null},\n"
            "  {\"name\": \"gemm\", \"calls\": -7, \"share\": null, \"mean\": "
            "0.3333333333333333},\n"
            "  {\"name\": null, \"calls\": 0, \"share\": 87.60, \"mean\": 2.5}\n"
            "]");
  EXPECT_EQ(rows.text_index[3], no_text);
}

TEST(output_frames, generated_rows_and_object_tables) {
  std::size_t calls = 0;
  auto const f = out::frames_of(one(generated(kernels(), calls)))[0];
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(f.rows, 4u);
  EXPECT_EQ(column(f, "calls").integers, (std::vector<std::int64_t>{3, 0, -7, 0}));

  auto object = kernels();
  object.shape = out::json_shape::object;
  auto const o = out::frames_of(one(std::move(object)))[0];
  EXPECT_EQ(o.rows, 1u);  // JSON writes the first row only
  EXPECT_EQ(column(o, "calls").integers, (std::vector<std::int64_t>{3}));
}

}  // namespace frame_writer_test
