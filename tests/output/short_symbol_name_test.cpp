// SPDX-License-Identifier: Apache-2.0
// Short kernel names as nsys's shortName: no return type, template arguments, parameters or
// namespaces; names from the real traces' kernels. Host range names without emit_nvtx's
// suffixes. Short names of one column kept apart (issue 26, item 4).
#include <gtest/gtest.h>

#include <tracesweep/output/range_names.hpp>
#include <tracesweep/output/writer.hpp>

#include <string>
#include <vector>

namespace short_symbol_name_test {

using tracesweep::output::short_symbol_name;

TEST(ShortSymbolName, DropsReturnTypeTemplatesParametersAndScopes) {
  EXPECT_EQ(short_symbol_name(
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  EXPECT_EQ(
      short_symbol_name("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_"
                        "align4>(cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_align4::Params)"),
      "Kernel2");
  EXPECT_EQ(
      short_symbol_name(
          "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::"
          "AddFunctor<float> >(at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::"
          "{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::AddFunctor<float> "
          ">(at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::{lambda(int)#1})"),
      "elementwise_kernel");
  EXPECT_EQ(short_symbol_name("void at::native::(anonymous namespace)::softmax_warp_forward<float, "
                              "float, float, 8, false>(float*, float const*, int, int, int)"),
            "softmax_warp_forward");
  // A name without any of it stays as it is.
  EXPECT_EQ(short_symbol_name("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"),
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
  EXPECT_EQ(short_symbol_name("[CUDA memcpy Host-to-Device]"), "[CUDA memcpy Host-to-Device]");
  EXPECT_EQ(short_symbol_name(""), "");
}

// Kernel names of kineto/hta_trace_filter_2rank (53 cutlass::Kernel<…> kernels there).
TEST(DistinctShortNames, DifferentNamesThatShortenAlikeKeepWhatTellsThemApart) {
  using tracesweep::output::distinct_short_names;
  std::string const a =
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_"
      "align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4::Params)";
  std::string const b =
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_"
      "align1>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align1::Params)";
  std::string const relu = "void at::native::relu_kernel(float*)";
  std::vector<std::string> const names{a, relu, b, a};
  EXPECT_EQ(distinct_short_names(names),
            (std::vector<std::string>{
                "Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>", "relu_kernel",
                "Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align1>",
                "Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>"}));
  // Alike even with their template arguments (they differ in parameters or namespace only):
  // numbered in the order of the full names; a name alone keeps its short name.
  std::vector<std::string> const overloads{"void ns::k<int>(float*)", "void ns::k<int>(int*)",
                                           "void other::k<int>(int*)", "void ns::j<int>(int*)"};
  EXPECT_EQ(distinct_short_names(overloads),
            (std::vector<std::string>{"k #1", "k #2", "k #3", "j"}));
  EXPECT_TRUE(distinct_short_names(std::vector<std::string>{}).empty());
}

// Host range names from torch.autograd.profiler.emit_nvtx, as in nsys-ai/mfu_2gpu_before.sqlite.
TEST(RangeNames, TextLeavesOutEmitNvtxSuffixes) {
  using tracesweep::output::without_emit_nvtx_suffixes;
  EXPECT_EQ(without_emit_nvtx_suffixes("aten::mul, seq = 47307, op_id = 998144"), "aten::mul");
  EXPECT_EQ(without_emit_nvtx_suffixes("aten::conv2d, seq = 0"), "aten::conv2d");
  EXPECT_EQ(without_emit_nvtx_suffixes(
                "FSDP::pre_forward (blocks.15._checkpoint_wrapped_module), op_id = 997538"),
            "FSDP::pre_forward (blocks.15._checkpoint_wrapped_module)");
  EXPECT_EQ(without_emit_nvtx_suffixes("a, seq = b"), "a, seq = b");    // not a number
  EXPECT_EQ(without_emit_nvtx_suffixes(", op_id = 3"), ", op_id = 3");  // nothing left
  EXPECT_EQ(without_emit_nvtx_suffixes("aten::add"), "aten::add");
}

}  // namespace short_symbol_name_test
