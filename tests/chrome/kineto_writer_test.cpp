// SPDX-License-Identifier: Apache-2.0
// The Kineto JSON writer round-trips a synthetic multi-rank table through the reader: every
// row comes back with the same times, device, stream, names, correlation and bytes (the writer
// adds one aten cpu_op around each runtime call, as PyTorch traces have; those are checked
// separately), plain and gzip alike.
#include <tracesweep/event_table.hpp>
#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <set>

namespace tracesweep::test {
namespace {

namespace fs = std::filesystem;

TEST(KinetoWriter, RoundTripsThroughTheReader) {
  synthetic_options options;
  options.ranks = 2;
  options.steps = 3;
  options.kernels_per_step = 40;
  event_table source;
  generate_synthetic_trace(options, source);
  ASSERT_GT(source.size(), 100u);
  std::int64_t api_calls = 0;
  for (auto k : source.kind) api_calls += k == event_kind::api_call;

  auto const dir = fs::temp_directory_path() / ("tracesweep_kwriter_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (bool gzip : {false, true}) {
    SCOPED_TRACE(gzip ? "gzip" : "plain");
    auto const paths = write_kineto_json(source, (dir / (gzip ? "gz-" : "plain-")).string(), gzip);
    ASSERT_EQ(paths.size(), 2u);
    event_table back;
    read_options ro;
    ro.threads = 2;
    EXPECT_TRUE(read_inputs(paths, back, ro, false).empty());
    std::set<std::string_view> const parents{"aten::mm", "aten::copy_", "aten::zero_", "aten::item",
                                             "record_param_comms"};
    std::size_t j = 0;  // row in `source`, rank by rank in order
    std::vector<std::size_t> order;
    for (std::int32_t r = 0; r < 2; ++r)
      for (std::size_t i = 0; i < source.size(); ++i)
        if (source.rank[i] == r) order.push_back(i);
    std::int64_t added = 0;
    for (std::size_t i = 0; i < back.size(); ++i) {
      auto const name = back.strings().at(back.name[i]);
      if (back.strings().at(back.category[i]) == "cpu_op" && parents.contains(name)) {
        ++added;
        continue;
      }
      ASSERT_LT(j, order.size());
      auto const s = order[j++];
      ASSERT_EQ(name, source.strings().at(source.name[s])) << i;
      EXPECT_EQ(back.start_ns[i], source.start_ns[s]);
      EXPECT_EQ(back.end_ns[i], source.end_ns[s]);
      EXPECT_EQ(back.rank[i], source.rank[s]);
      EXPECT_EQ(back.device[i], source.device[s]);
      EXPECT_EQ(back.stream[i], source.stream[s]);
      EXPECT_EQ(back.correlation[i], source.correlation[s]);
      EXPECT_EQ(back.bytes[i], source.bytes[s]);
      EXPECT_EQ(back.strings().at(back.category[i]), source.strings().at(source.category[s]));
      auto want = source.kind[s];
      if (want == event_kind::forward || want == event_kind::backward)
        want = event_kind::user_range;
      EXPECT_EQ(back.kind[i], want) << name;
    }
    EXPECT_EQ(j, source.size());
    EXPECT_EQ(added, api_calls);
    EXPECT_EQ(back.inputs()[0].format, "kineto-json");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tracesweep::test
