// SPDX-License-Identifier: Apache-2.0
// Synthetic training traces. Each (rank, device) runs a small timeline simulation: a host thread
// issues API calls that launch device work onto streams, each stream runs its work in order, and
// the host blocks on a data loader at the start and on a stream synchronisation at the end of
// every step. Every name is interned once before the hot loop. With planted patterns the steps
// run the clean base (same draws on every rank, short host waits) and the patterns are added at
// their site while the ground truth is recorded as the rows are emitted.
#include <tracesweep/generator/synthetic_trace.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tracesweep {

namespace {

constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ull;

/// splitmix64's output function: a well-mixed 64-bit hash of `z`.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// xoshiro256** seeded through splitmix64: small, fast and the same everywhere.
class rng {
 public:
  explicit rng(std::uint64_t seed) {
    for (auto& w : _s) w = mix64(seed += golden_gamma);
  }
  std::uint64_t next() noexcept {
    std::uint64_t const result = rotl(_s[1] * 5, 7) * 9;
    std::uint64_t const t = _s[1] << 17;
    _s[2] ^= _s[0];
    _s[3] ^= _s[1];
    _s[1] ^= _s[2];
    _s[0] ^= _s[3];
    _s[2] ^= t;
    _s[3] = rotl(_s[3], 45);
    return result;
  }
  /// Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) noexcept {
    auto const span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(next() % span);
  }
  /// `base` scaled by a factor in [lo_permille, hi_permille] / 1000.
  std::int64_t jitter(std::int64_t base, std::int64_t lo_permille, std::int64_t hi_permille) {
    return base * between(lo_permille, hi_permille) / 1000;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> _s{};
};

struct kernel_template {
  char const* name;
  std::int64_t base_ns;  ///< typical duration
};

// Compute kernels as PyTorch/cuBLAS/cuDNN/CUTLASS name them; listed most frequent first.
constexpr kernel_template compute_kernels[] = {
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, 3>)",
     6'000},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
     "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
     "{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
     "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
     "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
     "at::detail::Array<char*, 2>)",
     9'000},
    {"ampere_sgemm_128x64_tn", 85'000},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
     "float, float const*, float const*, float const*, float*, float*, float*)",
     14'000},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     120'000},
    {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
     "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
     "const::{lambda(float)#1}, at::detail::Array<char*, 2>, "
     "TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
     "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, "
     "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
     "const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, "
     "TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
     "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
     4'000},
    {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_align4>("
     "cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_align4::Params)",
     140'000},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
     "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()("
     "at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >("
     "at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<"
     "float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
     "unsigned int, float, 4>)",
     11'000},
    {"ampere_sgemm_64x32_sliced1x4_nn", 40'000},
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>("
     "float*, float const*, int, int, int, bool const*, int, bool)",
     18'000},
    {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float, "
     "float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
     16'000},
    {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_"
     "align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
     60'000},
    {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
     "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<"
     "float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, "
     "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, "
     "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, "
     "at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
     "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<"
     "float> > const&)::{lambda(int)#1})",
     7'000},
    {"void (anonymous namespace)::softmax_warp_backward<float, float, float, 10, false, false>("
     "float*, float const*, float const*, int, int, int, bool const*)",
     20'000},
    {"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32_stage4_warpsize2x2x1_tensor16x8x16_"
     "kernel",
     95'000},
    {"void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
     "(cudnnKernelDataType_t)2>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float "
     "const*, float*)",
     25'000},
    {"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned "
     "int, 1, 4, bool>(at::cuda::detail::TensorInfo<float const, unsigned int>, "
     "at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<bool, "
     "unsigned int>, unsigned int, float, at::PhiloxCudaState)",
     10'000},
    {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<"
     "at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, "
     "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>("
     "at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, "
     "at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, "
     "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&, "
     "bool)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<at::native::index_kernel_impl<"
     "at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, "
     "c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, "
     "c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<"
     "at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, "
     "c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&, bool)::"
     "{lambda(int)#1})",
     5'000},
    {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
     "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
     "true, false, false, true, true, false>(flash::Flash_fwd_params)",
     210'000},
    {"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, "
     "2, 4, 2, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, "
     "cutlass::bfloat16_t> >, true, false, false, false, false, true, false>("
     "flash::Flash_bwd_params)",
     380'000},
    {"void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>("
     "cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, "
     "float const*, float const*, float*, void*, long, float*, int*)",
     3'000},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
     "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
     "at::detail::Array<char*, 1>)",
     2'000},
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
     "namespace)::OpaqueType<4u>, unsigned int, 2, 128, 1>(at::native::(anonymous namespace)::"
     "OpaqueType<4u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<"
     "at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, "
     "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
     8'000},
    {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>("
     "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)",
     70'000},
    {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
     "float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, "
     "long, long)",
     12'000},
};

constexpr kernel_template optimizer_kernels[] = {
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
     "at::native::(anonymous namespace)::TensorListMetadata<4>, "
     "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
     "(at::native::ADAM_MODE)1, false>, double, double, double, double, double, bool, bool, "
     "float*, float const*>(at::native::(anonymous namespace)::TensorListMetadata<4>, "
     "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
     "(at::native::ADAM_MODE)1, false>, double, double, double, double, double, bool, bool, "
     "float*, float const*)",
     45'000},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
     "at::native::(anonymous namespace)::TensorListMetadata<1>, "
     "at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0, "
     "at::native::(anonymous namespace)::Zero>, std::negate<float> >(at::native::(anonymous "
     "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<"
     "float, 1, 1, 0, at::native::(anonymous namespace)::Zero>, std::negate<float>)",
     6'000},
    {"void at::native::lpnorm_cleanup<float, (at::native::norm_type)2, float, float>(float "
     "const*, at::native::TensorListAddresses, int)",
     3'000},
};

constexpr kernel_template nccl_kernels[] = {
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 1'200'000},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 800'000},
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 700'000},
};

/// Interned ids of every name the generator writes.
struct names {
  std::vector<string_id> compute, optimizer, nccl;
  std::vector<std::int64_t> compute_ns, optimizer_ns, nccl_ns;
  std::vector<std::uint32_t> zipf;  ///< 4096 slots: index into compute, Zipf-weighted
  string_id launch, memcpy_api, memset_api, sync_api, nccl_api;
  string_id h2d, d2h, memset;
  string_id data_loader, forward, backward, optimizer_step, batch_to_device, zero_grad;
  string_id sync;
  string_id cat_kernel, cat_memcpy, cat_memset, cat_runtime, cat_annotation, cat_cpu_op;
  string_id cat_sync;
  std::vector<string_id> steps;
  // Only with a host mix (interned last, so the ids above never change).
  string_id poll_api = 0, d2d = 0;
  std::vector<string_id> host_ops;
  std::size_t top_compute = 0;  ///< the compute kernel the Zipf table picks most
  // Only with planted patterns (interned after everything else).
  std::vector<std::size_t> long_compute;  ///< compute kernels of base ≥ 20 µs
  string_id log_metrics = 0, clip_grad_norm = 0, norm_kernel = 0, h2d_pageable = 0;
};

// Launch-free aten ops, as frequent in a real PyTorch trace (none is a parent the Kineto writer
// adds around runtime calls).
constexpr char const* host_op_names[] = {"aten::as_strided",
                                         "aten::add_",
                                         "aten::select",
                                         "aten::mul",
                                         "aten::empty_strided",
                                         "aten::detach",
                                         "detach",
                                         "aten::_local_scalar_dense",
                                         "aten::view",
                                         "torch::autograd::AccumulateGrad",
                                         "aten::new_empty_strided",
                                         "aten::empty",
                                         "aten::to",
                                         "aten::slice"};

bool has_host_mix(synthetic_options const& o) {
  return o.polls_per_1000_launches > 0 || o.host_ops_per_1000_launches > 0 ||
         o.copies_per_1000_launches > 0;
}

/// Extra rows of one kind among the first `i` launches of a step: spread evenly.
std::int64_t spread(std::int64_t i, std::int32_t per_1000) {
  return i * per_1000 / 1000;
}

names intern_names(string_pool& pool, std::int32_t steps, rng& r) {
  names n;
  for (auto const& k : compute_kernels) {
    n.compute.push_back(pool.intern(k.name));
    n.compute_ns.push_back(k.base_ns);
  }
  for (auto const& k : optimizer_kernels) {
    n.optimizer.push_back(pool.intern(k.name));
    n.optimizer_ns.push_back(k.base_ns);
  }
  for (auto const& k : nccl_kernels) {
    n.nccl.push_back(pool.intern(k.name));
    n.nccl_ns.push_back(k.base_ns);
  }
  // Zipf(s = 1.1) over the compute kernels in a seed-dependent rank order.
  std::size_t const m = n.compute.size();
  std::vector<std::uint32_t> rank_of(m);
  for (std::size_t i = 0; i < m; ++i) rank_of[i] = static_cast<std::uint32_t>(i);
  for (std::size_t i = m - 1; i > 0; --i) std::swap(rank_of[i], rank_of[r.next() % (i + 1)]);
  std::vector<double> cdf(m);
  double total = 0;
  for (std::size_t i = 0; i < m; ++i) cdf[i] = total += 1.0 / std::pow(double(i + 1), 1.1);
  n.zipf.resize(4096);
  std::size_t k = 0;
  for (std::size_t slot = 0; slot < n.zipf.size(); ++slot) {
    double const u = (double(slot) + 0.5) / double(n.zipf.size()) * total;
    while (k + 1 < m && cdf[k] < u) ++k;
    n.zipf[slot] = rank_of[k];
  }
  n.top_compute = rank_of[0];
  n.launch = pool.intern("cudaLaunchKernel");
  n.memcpy_api = pool.intern("cudaMemcpyAsync");
  n.memset_api = pool.intern("cudaMemsetAsync");
  n.sync_api = pool.intern("cudaStreamSynchronize");
  n.nccl_api = pool.intern("cudaLaunchKernelExC");
  n.h2d = pool.intern("Memcpy HtoD (Pinned -> Device)");
  n.d2h = pool.intern("Memcpy DtoH (Device -> Pageable)");
  n.memset = pool.intern("Memset (Device)");
  n.data_loader = pool.intern("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  n.forward = pool.intern("## forward ##");
  n.backward = pool.intern("## backward ##");
  n.optimizer_step = pool.intern("Optimizer.step#AdamW.step");
  n.batch_to_device = pool.intern("batch_to_device");
  n.zero_grad = pool.intern("Optimizer.zero_grad#AdamW.zero_grad");
  n.sync = pool.intern("Stream synchronize");
  n.cat_kernel = pool.intern("kernel");
  n.cat_memcpy = pool.intern("gpu_memcpy");
  n.cat_memset = pool.intern("gpu_memset");
  n.cat_runtime = pool.intern("cuda_runtime");
  n.cat_annotation = pool.intern("user_annotation");
  n.cat_cpu_op = pool.intern("cpu_op");
  n.cat_sync = pool.intern("cuda_sync");
  n.steps.reserve(static_cast<std::size_t>(steps));
  for (std::int32_t s = 0; s < steps; ++s)
    n.steps.push_back(pool.intern("ProfilerStep#" + std::to_string(s)));
  return n;
}

void intern_host_mix(string_pool& pool, names& n) {
  n.poll_api = pool.intern("cudaEventQuery");
  n.d2d = pool.intern("Memcpy DtoD (Device -> Device)");
  for (auto const* name : host_op_names) n.host_ops.push_back(pool.intern(name));
}

void intern_planted(string_pool& pool, names& n) {
  for (std::size_t j = 0; j < n.compute.size(); ++j)
    if (n.compute_ns[j] >= 20'000) n.long_compute.push_back(j);
  n.log_metrics = pool.intern("log_metrics");
  n.clip_grad_norm = pool.intern("torch.nn.utils.clip_grad_norm_");
  n.norm_kernel = pool.intern(
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
      "at::native::NormTwoOps<float, float, float>, unsigned int, float, 4> >("
      "at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, "
      "float, 4>)");
  n.h2d_pageable = pool.intern("Memcpy HtoD (Pageable -> Device)");
}

// Planted patterns: their sizes and the clean base's limits (see planted_patterns).
constexpr std::int64_t short_kernel_ns = 10'000;    ///< a kernel shorter than this is "tiny"
constexpr std::int32_t max_short_run = 32;          ///< tiny kernels in a row on stream slot 0
constexpr std::int64_t straggler_permille = 1'400;  ///< kernel durations on the straggler
constexpr std::int32_t long_tail_launches = 3;
constexpr std::int64_t long_tail_factor = 6;
constexpr std::int32_t burst_kernels = 200;
constexpr std::int32_t small_copy_count = 24;

/// The seed of step `s` on device `d` of every rank (clean base).
std::uint64_t step_seed(std::uint64_t seed, std::int32_t s, std::int32_t d) {
  std::uint64_t const h = mix64(mix64(seed + golden_gamma) ^ static_cast<std::uint32_t>(s));
  return mix64(h ^ (std::uint64_t{static_cast<std::uint32_t>(d)} << 32));
}

// The memory pattern's sizes (planted_patterns::memory_staircase).
constexpr std::int64_t weights_bytes = std::int64_t{1} << 30;
constexpr std::int64_t activations_bytes = std::int64_t{256} << 20;
constexpr std::int64_t optimizer_state_bytes = std::int64_t{64} << 20;

/// Where and what a timeline plants.
struct plant_site {
  planted_patterns patterns;
  bool clean = false;      ///< patterns.any()
  bool here = false;       ///< this timeline is the single-site patterns' (rank 0, device 0)
  std::int32_t step = 0;   ///< the planted step
  bool straggler = false;  ///< this timeline's rank is the straggler
  planted_truth* truth = nullptr;
};

/// The timeline of one (rank, device): a host thread and its streams.
class device_timeline {
 public:
  device_timeline(synthetic_options const& o, names const& n, event_table& table,
                  plant_site const& site, std::int32_t rank, std::int32_t device, std::int64_t t0,
                  std::int64_t& correlation)
      : _o(o), _n(n), _table(table), _site(site), _correlation(correlation), _t(t0) {
    _base.rank = rank;
    _base.device = device;
    _thread = 10'000 + 16 * static_cast<std::int64_t>(rank) + device;
    for (std::int32_t s = 0; s < o.streams_per_device; ++s) _streams.push_back(7 + 4 * s);
    _comm_stream = 7 + 4 * o.streams_per_device + 2;
    _ready.assign(_streams.size(), t0);
    _comm_ready = t0;
  }

  /// Step `index`, drawing its random choices from `r`.
  void step(std::int32_t index, rng& r) {
    _r = &r;
    std::int64_t const step_start = _t;
    bool const planted = _site.here && index == _site.step;
    bool const memory = _site.patterns.memory_staircase;
    _launches = 0;
    _first_of_step = true;
    // Data loader: the host blocks; the GPU runs dry.
    std::int64_t stall = 0;
    if (!_site.clean) {
      stall = _r->between(150'000, 600'000);
      if (_r->next() % 5 == 0) stall += _r->between(2'000'000, 12'000'000);
    } else if (_site.patterns.data_loader_gaps) {
      stall = _r->jitter(std::int64_t{_o.kernels_per_step} * 20'000, 980, 1020);
    } else {
      stall = _r->between(10'000, 30'000);
    }
    if (_base.rank == _o.idle_rank) stall += _o.idle_rank_ns;
    host(event_kind::data_loader, _n.data_loader, _n.cat_cpu_op, _t, _t + stall);
    if (memory && index == 0) allocate(step_start, weights_bytes);
    _t += stall + _r->between(2'000, 8'000);
    if (_site.patterns.data_loader_gaps && index > 0) open_gap("data_loading");
    if (memory) allocate(_t, activations_bytes);

    std::int64_t const to_device = _t;
    std::int64_t const batch_bytes = (std::int64_t{8} << 20) + _r->between(0, 1 << 20);
    copy(_n.h2d, copy_kind::host_to_device, batch_bytes);
    device_op(event_kind::memset, _n.memset_api, _n.memset, _n.cat_memset, 0,
              _r->between(1'500, 3'000), 0, 4 << 20);
    host(event_kind::user_range, _n.batch_to_device, _n.cat_annotation, to_device, _t);

    std::int32_t const k = _o.kernels_per_step;
    std::int32_t const forward = std::max(1, k * 3 / 10);
    std::int32_t const optimizer = std::max(1, k / 10);
    std::int32_t const backward = std::max(0, k - forward - optimizer);

    std::int64_t phase = _t;
    bool const small_copies = planted && _site.patterns.small_copies;
    planted_copies copies{_base.rank, _base.device, index, "HtoD", 0, 0};
    for (std::int32_t i = 0; i < forward; ++i) {
      compute();
      for (auto c = std::int64_t{i + 1} * small_copy_count / forward -
                    std::int64_t{i} * small_copy_count / forward;
           small_copies && c > 0; --c) {
        std::int64_t const bytes = _r->between(4, 512);
        copy(_n.h2d_pageable, copy_kind::host_to_device, bytes);
        ++copies.copies;
        copies.bytes += bytes;
      }
    }
    if (small_copies) _site.truth->small_copies.push_back(copies);
    host(event_kind::forward, _n.forward, _n.cat_annotation, phase, _t);

    if (planted && _site.patterns.sync_gap) {
      // The host waits for the device, then logs metrics without launching anything.
      synchronize();
      open_gap("sync");
      std::int64_t const end = _t + _r->between(400'000, 600'000);
      host(event_kind::cpu_op, _n.log_metrics, _n.cat_cpu_op, _t, end);
      _t = end + _r->between(1'000, 3'000);
    }

    phase = _t;
    std::int32_t const buckets = _o.nccl_per_step;
    bool const long_tail = planted && _site.patterns.long_tail;
    for (std::int32_t i = 0, bucket = 0, tail = 0; i < backward; ++i) {
      if (long_tail && tail < long_tail_launches &&
          std::int64_t{i} * 2 * long_tail_launches >= std::int64_t{2 * tail + 1} * backward) {
        planted_kernel kernel{_base.rank, _base.device, "", 0, 0};
        kernel.name = _table.strings().at(_n.compute[_n.top_compute]);
        kernel.start_ns =
            launch(_n.compute[_n.top_compute], 0, long_tail_factor * _n.compute_ns[_n.top_compute]);
        kernel.duration_ns = _ready[0] - kernel.start_ns;
        _site.truth->long_tail.push_back(std::move(kernel));
        ++tail;
      } else {
        compute();
      }
      // A gradient bucket is ready every backward/buckets kernels: all-reduce it meanwhile.
      while (bucket < buckets &&
             std::int64_t{i + 1} * buckets >= std::int64_t{bucket + 1} * backward) {
        all_reduce(bucket++);
      }
    }
    for (std::int32_t b = backward == 0 ? 0 : buckets; b < buckets; ++b) all_reduce(b);
    host(event_kind::backward, _n.backward, _n.cat_annotation, phase, _t);

    // The optimizer waits for the last gradients (in the clean base, those of every stream).
    phase = _t;
    _ready[0] = std::max(_ready[0], _comm_ready);
    if (_site.clean)
      _ready[0] = std::max(_ready[0], *std::max_element(_ready.begin(), _ready.end()));
    for (std::int32_t i = 0; i < optimizer; ++i) {
      auto j = static_cast<std::size_t>(_r->next() % _n.optimizer.size());
      // The clean base ends the optimizer (and breaks a run of tiny kernels) with fused Adam.
      if (_site.clean && (i == optimizer - 1 || too_many_short())) j = 0;
      launch(_n.optimizer[j], 0, _r->jitter(_n.optimizer_ns[j], 800, 1300));
      after_launch();
    }
    host(event_kind::optimizer, _n.optimizer_step, _n.cat_cpu_op, phase, _t);
    if (memory && _site.here) allocate(_t, optimizer_state_bytes);
    std::int64_t const zero = _t;
    _t += _r->between(3'000, 9'000);
    host(event_kind::user_range, _n.zero_grad, _n.cat_annotation, zero, _t);

    if (planted && _site.patterns.tiny_burst) burst();

    copy(_n.d2h, copy_kind::device_to_host, 4);
    synchronize();
    if (memory) allocate(_t, -activations_bytes);
    _t += _r->between(5'000, 20'000);
    host(event_kind::profiler_step, _n.steps[static_cast<std::size_t>(index)], _n.cat_annotation,
         step_start, _t);
  }

 private:
  void emit(event_kind kind, string_id name, string_id cat, std::int32_t device,
            std::int64_t stream, std::int64_t start, std::int64_t end, std::int64_t correlation,
            std::uint8_t subkind, std::int64_t bytes) {
    event e = _base;
    e.kind = kind;
    e.name = name;
    e.category = cat;
    e.device = device;
    e.stream = stream;
    e.start_ns = start;
    e.end_ns = end;
    e.correlation = correlation;
    e.subkind = subkind;
    e.bytes = bytes;
    _table.append(e);
    if (is_device_activity(kind)) {
      if (_gap) {
        _gap->end_ns = start;
        _site.truth->gaps.push_back(std::move(*_gap));
        _gap.reset();
      }
      _activity_end = std::max(_activity_end, end);
    }
  }

  /// A memory event of this device at `at`: `bytes` allocated (< 0: freed); reserved memory
  /// follows the allocated total up in 2 MiB blocks and is never released.
  void allocate(std::int64_t at, std::int64_t bytes) {
    _allocated += bytes;
    constexpr std::int64_t block = 2 << 20;
    _reserved = std::max(_reserved, (_allocated + block - 1) / block * block);
    _table.append_memory({.time_ns = at,
                          .rank = _base.rank,
                          .device = _base.device,
                          .thread = _thread,
                          .bytes = bytes,
                          .allocated = _allocated,
                          .reserved = _reserved});
  }

  void host(event_kind kind, string_id name, string_id cat, std::int64_t start, std::int64_t end) {
    emit(kind, name, cat, -1, _thread, start, end, -1, 0, 0);
  }

  /// A planted hole opens now: it runs from the device's last activity end to its next row.
  void open_gap(char const* cause) {
    _gap = planted_gap{_base.rank, _base.device, _activity_end, 0, cause};
  }

  /// An API call on the host launching `duration` ns of work on stream slot `slot`; returns the
  /// work's start.
  std::int64_t device_op(event_kind kind, string_id api, string_id name, string_id cat,
                         std::size_t slot, std::int64_t duration, std::uint8_t subkind,
                         std::int64_t bytes) {
    std::int64_t const api_start = _t;
    std::int64_t const api_end = _t + _r->between(2'500, 7'000);
    std::int64_t const c = ++_correlation;
    emit(event_kind::api_call, api, _n.cat_runtime, -1, _thread, api_start, api_end, c, 0, 0);
    std::int64_t const start = std::max(api_start + _r->between(1'500, 4'000), _ready[slot]);
    emit(kind, name, cat, _base.device, _streams[slot], start, start + duration, c, subkind, bytes);
    _ready[slot] = start + duration;
    _t = api_end + _r->between(300, 2'500);
    return start;
  }

  /// A kernel launch (`cudaLaunchKernel`) of `duration` ns before the straggler's scaling;
  /// returns its start.
  std::int64_t launch(string_id name, std::size_t slot, std::int64_t duration) {
    if (_site.straggler) duration = duration * straggler_permille / 1000;
    if (!_o.slow_kernel.empty() && _table.strings().at(name) == _o.slow_kernel)
      duration = duration * _o.slow_kernel_permille / 1000;
    if (_site.clean && slot == 0) _short_run = duration < short_kernel_ns ? _short_run + 1 : 0;
    return device_op(event_kind::kernel, _n.launch, name, _n.cat_kernel, slot, duration, 0, 0);
  }

  /// Whether the clean base's next kernel on stream slot 0 must be long (see planted_patterns).
  bool too_many_short() const { return _short_run >= max_short_run; }

  void copy(string_id name, copy_kind direction, std::int64_t bytes) {
    // About 20 GB/s plus a fixed cost: bytes / 20 ns.
    device_op(event_kind::memcpy, _n.memcpy_api, name, _n.cat_memcpy, 0, 1'200 + bytes / 20,
              static_cast<std::uint8_t>(direction), bytes);
  }

  void compute() {
    auto j = _n.zipf[_r->next() & 4095];
    // Most kernels go to the default compute stream, some to side streams.
    std::size_t slot = 0;
    if (_streams.size() > 1 && _r->next() % 4 == 0) slot = 1 + _r->next() % (_streams.size() - 1);
    // The clean base keeps tiny kernels to the default stream and breaks their runs there.
    bool const first = _site.clean && _first_of_step;
    if (first) slot = 0;
    if (first || (_site.clean && (slot > 0 || too_many_short())))
      j = static_cast<std::uint32_t>(_n.long_compute[_r->next() % _n.long_compute.size()]);
    _first_of_step = false;
    std::int64_t duration = _r->jitter(_n.compute_ns[j], 700, 1400);
    if (_r->next() % 64 == 0 && !_site.clean) duration = 0;  // an empty launch now and then
    launch(_n.compute[j], slot, duration);
    after_launch();
  }

  /// The host waits for every stream (`cudaStreamSynchronize`): it returns 1.5 µs after the
  /// device drained, at the earliest 2 µs after the call.
  void synchronize() {
    std::int64_t done = _comm_ready;
    for (auto const v : _ready) done = std::max(done, v);
    std::int64_t const sync_start = _t;
    std::int64_t const sync_end = std::max(_t + 2'000, done + 1'500);
    std::int64_t const c = ++_correlation;
    emit(event_kind::api_call, _n.sync_api, _n.cat_runtime, -1, _thread, sync_start, sync_end, c, 0,
         0);
    emit(event_kind::synchronization, _n.sync, _n.cat_sync, _base.device, _streams[0],
         std::max(sync_start, done), sync_end, c, 0, 0);
    _t = sync_end;
  }

  /// clip_grad_norm_: one host range launching many tiny kernels on the default stream.
  void burst() {
    std::int64_t const begin = _t;
    _t += _r->between(1'000, 3'000);  // the Kineto writer's aten op around each call fits inside
    planted_burst b;
    b.rank = _base.rank;
    b.device = _base.device;
    b.kernels = burst_kernels;
    b.launched_by = _table.strings().at(_n.clip_grad_norm);
    for (std::int32_t i = 0; i < burst_kernels; ++i) {
      std::int64_t const start = launch(_n.norm_kernel, 0, _r->between(2'000, 4'000));
      if (i == 0) b.start_ns = start;
    }
    b.end_ns = _ready[0];
    _t += _r->between(1'000, 3'000);
    host(event_kind::cpu_op, _n.clip_grad_norm, _n.cat_cpu_op, begin, _t);
    _site.truth->bursts.push_back(std::move(b));
  }

  /// The host mix's share of rows after one more launch of this step.
  void after_launch() {
    if (!has_host_mix(_o)) return;
    auto const i = _launches++;
    for (auto n =
             spread(i + 1, _o.copies_per_1000_launches) - spread(i, _o.copies_per_1000_launches);
         n > 0; --n)
      device_op(event_kind::memcpy, _n.memcpy_api, _n.d2d, _n.cat_memcpy, 0,
                _r->between(1'500, 6'000), static_cast<std::uint8_t>(copy_kind::device_to_device),
                _r->between(1, 4096) * 256);
    for (auto n = spread(i + 1, _o.host_ops_per_1000_launches) -
                  spread(i, _o.host_ops_per_1000_launches);
         n > 0; --n) {
      auto const op = _n.host_ops[_r->next() % _n.host_ops.size()];
      std::int64_t const end = _t + _r->between(1'000, 12'000);
      host(event_kind::cpu_op, op, _n.cat_cpu_op, _t, end);
      _t = end + _r->between(200, 1'500);
    }
    for (auto n = spread(i + 1, _o.polls_per_1000_launches) - spread(i, _o.polls_per_1000_launches);
         n > 0; --n) {
      std::int64_t const end = _t + _r->between(800, 3'000);
      emit(event_kind::api_call, _n.poll_api, _n.cat_runtime, -1, _thread, _t, end, ++_correlation,
           0, 0);
      _t = end + _r->between(300, 2'000);
    }
  }

  void all_reduce(std::int32_t bucket) {
    auto const j = static_cast<std::size_t>(bucket) % _n.nccl.size();
    std::int64_t const api_start = _t;
    std::int64_t const api_end = _t + _r->between(8'000, 20'000);
    std::int64_t const c = ++_correlation;
    emit(event_kind::api_call, _n.nccl_api, _n.cat_runtime, -1, _thread, api_start, api_end, c, 0,
         0);
    // Starts once its gradients (the main stream so far) are done and the previous all-reduce
    // has finished; runs while later backward kernels compute.
    std::int64_t const start =
        std::max({api_start + _r->between(2'000, 5'000), _comm_ready, _ready[0]});
    std::int64_t duration = _r->jitter(_n.nccl_ns[j], 700, 1500);
    if (_site.straggler) duration = duration * straggler_permille / 1000;
    emit(event_kind::kernel, _n.nccl[j], _n.cat_kernel, _base.device, _comm_stream, start,
         start + duration, c, 0, 0);
    _comm_ready = start + duration;
    _t = api_end + _r->between(500, 2'000);
  }

  synthetic_options const& _o;
  names const& _n;
  event_table& _table;
  plant_site const& _site;
  rng* _r = nullptr;
  std::int64_t& _correlation;
  event _base;
  std::int64_t _t;
  std::int64_t _thread = 0;
  std::vector<std::int64_t> _streams;
  std::vector<std::int64_t> _ready;
  std::int64_t _comm_stream = 0;
  std::int64_t _comm_ready = 0;
  std::int64_t _launches = 0;  ///< compute and optimizer launches so far in this step
  // Clean base and planted patterns.
  bool _first_of_step = false;
  std::int32_t _short_run = 0;  ///< kernels < 10 µs in a row on stream slot 0
  std::int64_t _activity_end = std::numeric_limits<std::int64_t>::min();
  std::optional<planted_gap> _gap;             ///< a planted hole waiting for its end
  std::int64_t _allocated = 0, _reserved = 0;  ///< memory totals of the device
};

void check(synthetic_options const& o) {
  if (o.ranks < 1 || o.devices_per_rank < 1 || o.streams_per_device < 1 || o.steps < 1 ||
      o.kernels_per_step < 1 || o.nccl_per_step < 0 || o.target_events < 0 ||
      o.polls_per_1000_launches < 0 || o.host_ops_per_1000_launches < 0 ||
      o.copies_per_1000_launches < 0)
    throw std::invalid_argument(
        "synthetic trace: ranks, devices, streams, steps and kernels per step must be positive");
  if (o.plant.straggler_rank < -1 || o.plant.straggler_rank >= o.ranks)
    throw std::invalid_argument("synthetic trace: the straggler rank must be below the ranks");
  if (o.plant.any() && o.kernels_per_step < 10)
    throw std::invalid_argument("synthetic trace: planted patterns need 10 kernels per step");
  if (o.plant.any() && has_host_mix(o))
    throw std::invalid_argument("synthetic trace: planted patterns need the plain host mix");
}

/// The planted staircase on rank 0's first device: over the rank's step windows (each step's
/// rows on all its threads), the peak of step s is weights + activations + (s + 1) × state.
planted_memory staircase_truth(event_table const& table, names const& n, std::int32_t steps) {
  planted_memory m;
  m.device = table.memory.device.front();  // rank 0's first device wrote the first event
  m.start_ns = std::numeric_limits<std::int64_t>::max();
  m.end_ns = std::numeric_limits<std::int64_t>::min();
  auto const first = n.steps.front(), last = n.steps[static_cast<std::size_t>(steps - 1)];
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table.rank[i] != 0 || table.kind[i] != event_kind::profiler_step) continue;
    if (table.name[i] == first) m.start_ns = std::min(m.start_ns, table.start_ns[i]);
    if (table.name[i] == last) m.end_ns = std::max(m.end_ns, table.end_ns[i]);
  }
  m.growth_bytes_per_step = optimizer_state_bytes;
  m.peak_bytes = weights_bytes + activations_bytes + steps * optimizer_state_bytes;
  m.steps = steps;
  return m;
}

}  // namespace

std::int64_t synthetic_events_per_step(synthetic_options const& o) {
  std::int32_t const k = o.kernels_per_step;
  std::int64_t const forward = std::max(1, k * 3 / 10);
  std::int64_t const optimizer = std::max(1, k / 10);
  std::int64_t const backward = std::max<std::int64_t>(0, k - forward - optimizer);
  // Host ranges: data loader, batch_to_device, forward, backward, optimizer, zero_grad and the
  // profiler step (7); API + device row pairs: H2D, memset, kernels, all-reduces, D2H, sync.
  // The host mix: per launch (forward, backward, optimizer), polls and host ops one row each,
  // copies two.
  std::int64_t const launches = forward + backward + optimizer;
  return 7 + 2 * (1 + 1 + forward + backward + optimizer + o.nccl_per_step + 1 + 1) +
         spread(launches, o.polls_per_1000_launches) +
         spread(launches, o.host_ops_per_1000_launches) +
         2 * spread(launches, o.copies_per_1000_launches);
}

synthetic_options with_kineto_host_mix(synthetic_options o) {
  o.polls_per_1000_launches = 4'350;
  o.host_ops_per_1000_launches = 2'900;
  o.copies_per_1000_launches = 200;
  return o;
}

std::int32_t synthetic_steps(synthetic_options const& o) {
  check(o);
  if (o.target_events <= 0) return o.steps;
  std::int64_t const per_step =
      synthetic_events_per_step(o) * o.ranks * static_cast<std::int64_t>(o.devices_per_rank);
  std::int64_t const steps = (o.target_events + per_step - 1) / per_step;
  if (steps > 0x7FFF'FFFF) throw std::invalid_argument("synthetic trace: too many events");
  return static_cast<std::int32_t>(std::max<std::int64_t>(1, steps));
}

bool planted_patterns::any() const noexcept {
  return clean || data_loader_gaps || sync_gap || long_tail || tiny_burst || small_copies ||
         memory_staircase || straggler_rank >= 0;
}

planted_truth generate_synthetic_trace(synthetic_options const& options, event_table& table) {
  std::int32_t const steps = synthetic_steps(options);
  rng r(options.seed);
  table.begin_input("generated:seed=" + std::to_string(options.seed), "synthetic");
  names n = intern_names(table.strings(), steps, r);
  if (has_host_mix(options)) intern_host_mix(table.strings(), n);
  planted_truth truth;
  plant_site site;
  site.patterns = options.plant;
  site.clean = options.plant.any();
  site.step = steps / 2;
  site.truth = &truth;
  if (site.clean) intern_planted(table.strings(), n);
  std::int64_t const total = synthetic_events_per_step(options) * steps * options.ranks *
                             static_cast<std::int64_t>(options.devices_per_rank);
  table.reserve(table.size() + static_cast<std::size_t>(total));
  for (std::int32_t rank = 0; rank < options.ranks; ++rank) {
    std::int64_t correlation = 0;
    // Ranks start a few microseconds apart, as separately launched processes do.
    std::int64_t const t0 = options.start_ns + r.between(0, 50'000);
    site.straggler = rank == options.plant.straggler_rank;
    for (std::int32_t d = 0; d < options.devices_per_rank; ++d) {
      std::int32_t const device =
          (rank * options.devices_per_rank + d) % std::max(8, options.devices_per_rank);
      site.here = rank == 0 && d == 0;
      device_timeline timeline(options, n, table, site, rank, device, t0, correlation);
      for (std::int32_t s = 0; s < steps; ++s) {
        if (site.clean) {
          // Every rank draws the same choices for step s of its device d.
          rng step_rng(step_seed(options.seed, s, d));
          timeline.step(s, step_rng);
        } else {
          timeline.step(s, r);
        }
      }
    }
  }
  table.finish_input();
  std::sort(truth.gaps.begin(), truth.gaps.end(), [](auto const& a, auto const& b) {
    return std::tie(a.rank, a.device, a.start_ns) < std::tie(b.rank, b.device, b.start_ns);
  });
  if (options.plant.straggler_rank >= 0) truth.stragglers.push_back(options.plant.straggler_rank);
  if (options.plant.memory_staircase && steps >= 5)
    truth.memory.push_back(staircase_truth(table, n, steps));
  return truth;
}

}  // namespace tracesweep
