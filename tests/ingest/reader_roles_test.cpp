// SPDX-License-Identifier: Apache-2.0
// Roles are decided by the readers: the Chrome reader's category families (any case, as the
// TensorBoard plugin reads them), Paddle's phases and communication ranges; nsys rows have none.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <tracesweep/input_reader.hpp>

namespace ts = tracesweep;
using ts::category_role;

namespace reader_roles_test {

/// The role of the first row named `name` (the name as stored: Paddle's suffix removed).
ts::event_role role_of(ts::event_table const& t, std::string_view name) {
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.strings().at(t.name[i]) == name) return t.role[i];
  ADD_FAILURE() << "no row named " << name;
  return {};
}

TEST(ReaderRoles, KinetoCategoryFamilies) {
  auto const path = std::filesystem::temp_directory_path() /
                    ("tracesweep_roles_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << R"({"traceEvents": [
  {"ph": "X", "name": "a", "cat": "cpu_op", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "b", "cat": "Operator", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "c", "cat": "CPU_OP", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "d", "cat": "python_function", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "e", "cat": "Python", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "f", "cat": "user_annotation", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "g", "cat": "gpu_user_annotation", "ts": 1, "dur": 1, "pid": 0, "tid": 7},
  {"ph": "X", "name": "h", "cat": "cuda_runtime", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "i", "cat": "Runtime", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "j", "cat": "cuda_driver", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "k", "cat": "kernel", "ts": 1, "dur": 1, "pid": 0, "tid": 7},
  {"ph": "X", "name": "ProfilerStep#3", "cat": "user_annotation", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "allreduce_op", "cat": "cpu_op", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
  {"ph": "X", "name": "m", "cat": "something_else", "ts": 1, "dur": 1, "pid": 1, "tid": 1}
]})";
  }
  ts::event_table t;
  ts::read_input(path.string(), t, {});
  std::filesystem::remove(path);
  ASSERT_EQ(t.inputs()[0].format, "kineto-json");
  std::map<std::string, category_role> const want = {
      {"a", category_role::op},         {"b", category_role::op},
      {"c", category_role::op},         {"d", category_role::python},
      {"e", category_role::python},     {"f", category_role::annotation},
      {"g", category_role::annotation}, {"h", category_role::runtime},
      {"i", category_role::runtime},    {"j", category_role::none},
      {"k", category_role::none},       {"ProfilerStep#3", category_role::annotation},
      {"m", category_role::none}};
  for (auto const& [name, family] : want) {
    SCOPED_TRACE(name);
    EXPECT_EQ(role_of(t, name).family(), family);
    EXPECT_FALSE(role_of(t, name).communication_range());
  }
  // Only Paddle's Operator category is a communication range by name.
  EXPECT_FALSE(role_of(t, "allreduce_op").communication_range());
}

// fixtures/paddle_small (see tests/reports/paddle_tables_test.cpp): Communication allreduce_op,
// Operator c_allreduce_sum are communication ranges; Operator matmul and add are not; the step
// and stage categories are phases; CudaRuntime is not the plugin's runtime.
TEST(ReaderRoles, PaddlePhasesAndCommunication) {
  ts::event_table t;
  ts::read_input(std::string(TABLES_FIXTURES) + "/paddle_small.paddle_trace.json", t, {});
  ASSERT_EQ(t.inputs()[0].format, "paddle-json");
  EXPECT_TRUE(role_of(t, "allreduce_op").communication_range());
  EXPECT_TRUE(role_of(t, "c_allreduce_sum").communication_range());
  EXPECT_FALSE(role_of(t, "matmul").communication_range());
  EXPECT_FALSE(role_of(t, "c_allreduce_sum::compute").communication_range());
  EXPECT_EQ(role_of(t, "matmul").family(), category_role::op);
  EXPECT_EQ(role_of(t, "matmul::compute").family(), category_role::none);
  for (auto name : {"ProfileStep#0", "Dataloader", "Forward", "Backward", "Optimization Step"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(role_of(t, name).family(), category_role::phase);
  }
  EXPECT_EQ(role_of(t, "cudaLaunchKernel").family(), category_role::none);
}

// Only PythonUserDefined ranges are Python ranges (the UserDefined Summary lists them).
TEST(ReaderRoles, PaddlePythonUserRanges) {
  ts::event_table t;
  ts::read_input(std::string(TABLES_FIXTURES) + "/paddle_summaries.paddle_trace.json", t, {});
  std::size_t python = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    bool const from_python = t.strings().at(t.category[i]) == "PythonUserDefined";
    EXPECT_EQ(t.role[i].python_range(), from_python) << t.strings().at(t.name[i]);
    python += from_python;
  }
  EXPECT_GT(python, 0u);
}

TEST(ReaderRoles, NsysRowsHaveNone) {
  ts::event_table t;
  ts::read_input(std::string(TRACESWEEP_SOURCE_DIR) + "/datasets/samples/train_2rank.sqlite", t,
                 {});
  ASSERT_GT(t.size(), 0u);
  for (std::size_t i = 0; i < t.size(); ++i) ASSERT_EQ(t.role[i], ts::event_role{}) << i;
}

}  // namespace reader_roles_test
