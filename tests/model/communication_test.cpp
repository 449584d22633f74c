// SPDX-License-Identifier: Apache-2.0
// The model's one definition of communication and its named policies, on names that separate
// them: the kernel pattern (any case, searched), TensorBoard's fixed NCCL and Gloo op names,
// Paddle's "nccl"/"xccl" substrings, the diagnosis's host-row pattern (any case, searched).
#include <gtest/gtest.h>

#include <array>
#include <string_view>

#include <tracesweep/model/trace_model.hpp>

#include "support/table_builder.hpp"

namespace ts = tracesweep;
using ts::communication_policy;
using ts::event_kind;

namespace communication_test {

struct verdicts {
  std::string_view name;
  bool by_pattern, tb_nccl, tb_gloo, paddle, host_rows;
};

constexpr std::array<verdicts, 12> cases{{
    {"nccl:all_reduce", true, true, false, true, true},
    {"ncclKernel_AllReduce_RING_LL_Sum_float", true, false, false, true, true},
    {"xccl_allreduce", false, false, false, true, true},
    {"gloo:all_reduce", false, false, true, false, true},
    {"rcclKernel_AllGather", true, false, false, false, true},
    {"NCCL:all_reduce", true, false, false, true, true},  // TensorBoard's names are exact
    {"nccl:send", true, false, false, true, true},        // not one of TensorBoard's five ops
    {"gloo:all_reduce_coalesced", false, false, false, false, true},
    {"c_allreduce_XCCL", false, false, false, true, true},  // Paddle's rule ignores case
    {"record_param_comms", false, false, false, false, true},
    {"c10d::barrier", false, false, false, false, true},
    {"aten::mm", false, false, false, false, false},
}};

TEST(Communication, EachPolicyOnNamesThatSeparateThem) {
  ts::test::table_builder b;
  b.input("kineto-json").host(event_kind::cpu_op, 0, 1, 1);
  ts::trace_model const m(b.done());
  for (auto const& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(m.is_communication(c.name, communication_policy::kernels_by_pattern), c.by_pattern);
    EXPECT_EQ(m.is_communication(c.name, communication_policy::tensorboard_nccl_ops), c.tb_nccl);
    EXPECT_EQ(m.is_communication(c.name, communication_policy::tensorboard_gloo_ops), c.tb_gloo);
    EXPECT_EQ(m.is_communication(c.name, communication_policy::paddle_names), c.paddle);
    EXPECT_EQ(m.is_communication(c.name, communication_policy::host_rows_by_pattern), c.host_rows);
  }
}

// The pattern policies follow their model options, each its own; the profilers' rules take none.
TEST(Communication, ThePatternPoliciesTakeTheirPatterns) {
  ts::test::table_builder b;
  b.input("kineto-json").host(event_kind::cpu_op, 0, 1, 1);
  ts::model_options o;
  o.comm_pattern = "^gloo:";
  o.host_comm_pattern = "^my_collective$";
  ts::trace_model const m(b.done(), o);
  EXPECT_TRUE(m.is_communication("gloo:all_reduce", communication_policy::kernels_by_pattern));
  EXPECT_FALSE(m.is_communication("nccl:all_reduce", communication_policy::kernels_by_pattern));
  EXPECT_TRUE(m.is_communication("MY_COLLECTIVE", communication_policy::host_rows_by_pattern));
  EXPECT_FALSE(m.is_communication("nccl:all_reduce", communication_policy::host_rows_by_pattern));
  EXPECT_TRUE(m.is_communication("nccl:all_reduce", communication_policy::tensorboard_nccl_ops));
  EXPECT_TRUE(m.is_communication("xccl_allreduce", communication_policy::paddle_names));
}

// The per-string-id flags are the kernel policy on the names kernels carry, and only those.
TEST(Communication, KernelFlagsAreTheKernelPolicy) {
  ts::test::table_builder b;
  b.input("kineto-json");
  b.host(event_kind::cpu_op, 0, 10, 1, 0, -1, "nccl:all_reduce");
  b.device(event_kind::kernel, 0, 5, 0, 7, 0, -1, "ncclKernel_AllReduce");
  b.device(event_kind::kernel, 5, 9, 0, 7, 0, -1, "xccl_allreduce");
  auto const& t = b.done();
  ts::trace_model const m(t);
  EXPECT_TRUE(m.is_communication(t.strings().find("ncclKernel_AllReduce")));
  EXPECT_FALSE(m.is_communication(t.strings().find("xccl_allreduce")));
  EXPECT_FALSE(m.is_communication(t.strings().find("nccl:all_reduce")));  // no kernel's name
}

}  // namespace communication_test
