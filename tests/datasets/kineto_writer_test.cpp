// SPDX-License-Identifier: Apache-2.0
// The Kineto JSON writer round-trips a synthetic multi-rank table through the reader: every
// row comes back with the same times, device, stream, names, correlation and bytes (the writer
// adds one aten cpu_op around each runtime call, as PyTorch traces have; those are checked
// separately), plain and gzip alike; with and without the Kineto host mix (event polling with
// flow ends only, launch-free aten ops, device copies).
#include <tracesweep/event_table.hpp>
#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace tracesweep::test {
namespace kineto_writer_test {

namespace fs = std::filesystem;

std::int64_t count(std::string const& text, std::string_view what) {
  std::int64_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

class KinetoWriter : public ::testing::TestWithParam<bool> {};

TEST_P(KinetoWriter, RoundTripsThroughTheReader) {
  bool const host_mix = GetParam();
  synthetic_options options;
  options.ranks = 2;
  options.steps = 3;
  options.kernels_per_step = 40;
  if (host_mix) options = with_kineto_host_mix(options);
  event_table source;
  generate_synthetic_trace(options, source);
  ASSERT_GT(source.size(), 100u);
  EXPECT_EQ(static_cast<std::int64_t>(source.size()),
            synthetic_events_per_step(options) * options.steps * options.ranks);
  // Runtime calls with device work (same correlation on a device row of the rank) get an aten
  // parent and a flow start; the others (event polling) get neither, only a flow end.
  std::set<std::pair<std::int32_t, std::int64_t>> device_corr;
  std::int64_t device_flows = 0;
  for (std::size_t i = 0; i < source.size(); ++i)
    if (source.device[i] >= 0 && source.correlation_of(i) >= 0) {
      device_corr.emplace(source.rank[i], source.correlation_of(i));
      device_flows += source.kind[i] != event_kind::synchronization;
    }
  std::int64_t api_calls = 0, polls = 0, host_ops = 0, d2d = 0;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source.kind[i] == event_kind::api_call) {
      if (device_corr.contains({source.rank[i], source.correlation_of(i)}))
        ++api_calls;
      else
        ++polls;
    }
    host_ops += source.kind[i] == event_kind::cpu_op;
    d2d += source.kind[i] == event_kind::memcpy &&
           source.subkind[i] == static_cast<std::uint8_t>(copy_kind::device_to_device);
  }
  // The mix: per 1000 launches (40 per step: 12 forward, 24 backward, 4 optimizer) 4350 polls,
  // 2900 host ops, 200 copies → per step 174, 116, 8; × 3 steps × 2 ranks.
  EXPECT_EQ(polls, host_mix ? 174 * 6 : 0);
  EXPECT_EQ(host_ops, host_mix ? 116 * 6 : 0);
  EXPECT_EQ(d2d, host_mix ? 8 * 6 : 0);

  auto const dir = fs::temp_directory_path() /
                   ("tracesweep_kwriter_" + std::to_string(::getpid()) + (host_mix ? "_mix" : ""));
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
      EXPECT_EQ(back.correlation_of(i), source.correlation_of(s));
      EXPECT_EQ(back.bytes_of(i), source.bytes_of(s));
      EXPECT_EQ(back.strings().at(back.category[i]), source.strings().at(source.category[s]));
      auto want = source.kind[s];
      if (want == event_kind::forward || want == event_kind::backward)
        want = event_kind::user_range;
      EXPECT_EQ(back.kind[i], want) << name;
    }
    EXPECT_EQ(j, source.size());
    EXPECT_EQ(added, api_calls);
    EXPECT_EQ(back.inputs()[0].format, "kineto-json");
    if (!gzip) {
      std::string text;
      for (auto const& p : paths) {
        std::ifstream in(p, std::ios::binary);
        text += std::string(std::istreambuf_iterator<char>(in), {});
      }
      EXPECT_EQ(count(text, R"("ph": "s")"), api_calls);
      EXPECT_EQ(count(text, R"("ph": "f")"), device_flows + polls);
      EXPECT_EQ(count(text, R"("name": "cudaEventQuery")"), polls);
    }
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(HostMix, KinetoWriter, ::testing::Bool(),
                         [](auto const& info) { return info.param ? "KinetoHostMix" : "Plain"; });

}  // namespace kineto_writer_test

}  // namespace tracesweep::test
