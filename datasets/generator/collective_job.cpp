// SPDX-License-Identifier: Apache-2.0
// The collectives job (collective_job.hpp): a deterministic timeline per rank, and its truth
// computed from the planted constants, not from the rows.
#include <tracesweep/generator/collective_job.hpp>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace tracesweep {

namespace {

constexpr std::int64_t loader_ns = 100'000;
constexpr std::array<std::int64_t, 3> compute_ns = {300'000, 200'000, 150'000};
constexpr std::int64_t all_reduce_transfer_ns = 800'000;
constexpr std::int64_t all_gather_transfer_ns = 500'000;
constexpr std::int64_t gradient_elements = 6'553'600;  ///< float32: 25 MiB
constexpr std::int64_t shard_elements = 1'048'576;     ///< bfloat16, per rank
constexpr std::int64_t launch_delay_ns = 8'000;        ///< a call's start to its kernel's
constexpr std::int64_t comm_stream = 13;
constexpr std::int64_t compute_stream = 7;
constexpr char const* data_loader_name =
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

struct job_names {
  string_id data_loader, launch, nccl_launch, sync, all_reduce, all_gather;
  std::array<string_id, 3> compute;
  string_id cat_kernel, cat_runtime, cat_cpu_op, cat_annotation;
  string_id allreduce_op, allgather_op, float_type, bf16_type, group;
};

job_names intern_names(string_pool& pool) {
  job_names n{};
  n.data_loader = pool.intern(data_loader_name);
  n.launch = pool.intern("cudaLaunchKernel");
  n.nccl_launch = pool.intern("cudaLaunchKernelExC");
  n.sync = pool.intern("cudaStreamSynchronize");
  n.all_reduce =
      pool.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  n.all_gather = pool.intern("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  n.compute = {pool.intern("ampere_sgemm_128x64_tn"),
               pool.intern("void at::native::vectorized_elementwise_kernel<4, "
                           "at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, "
                           "at::native::AddFunctor<float>, at::detail::Array<char*, 3>)"),
               pool.intern("void cunn_SoftMaxForward<4, float, float, float>(float*, float const*, "
                           "int)")};
  n.cat_kernel = pool.intern("kernel");
  n.cat_runtime = pool.intern("cuda_runtime");
  n.cat_cpu_op = pool.intern("cpu_op");
  n.cat_annotation = pool.intern("user_annotation");
  n.allreduce_op = pool.intern("allreduce");
  n.allgather_op = pool.intern("_allgather_base");
  n.float_type = pool.intern("Float");
  n.bf16_type = pool.intern("BFloat16");
  n.group = pool.intern("0");
  return n;
}

/// One rank's rows, step by step.
class rank_timeline {
 public:
  rank_timeline(collective_job_options const& o, job_names const& n, event_table& table,
                std::int32_t rank)
      : _o(o), _n(n), _table(table), _rank(rank) {}

  /// Step `index` from `start` (the same on every rank); returns the next step's start.
  std::int64_t step(std::int32_t index, std::int64_t start) {
    auto const loader = loader_ns + (_rank == late_rank() ? _o.late_ns : 0);
    host(event_kind::data_loader, _n.data_loader, _n.cat_cpu_op, start, start + loader);
    std::int64_t t = start + loader;
    std::int64_t ready = t;  // the compute stream's end
    for (std::size_t k = 0; k < compute_ns.size(); ++k, t += 10'000) {
      auto const begin = std::max(t + launch_delay_ns, ready);
      ready = launch(_n.launch, _n.compute[k], compute_stream, t, begin, begin + compute_ns[k]);
    }
    // Every rank's compute takes as long; the late rank's starts late_ns later.
    std::int64_t const last = arrival_of(late_rank(), start);
    std::int64_t const reduced = last + all_reduce_transfer_ns;
    launch(_n.nccl_launch, _n.all_reduce, comm_stream, t, ready, reduced);
    _table.add_collective_args(
        {_n.allreduce_op, _n.float_type, _n.group, gradient_elements, gradient_elements, _o.ranks},
        _table.size() - 1);
    t += 10'000;
    std::int64_t const gathered = reduced + all_gather_transfer_ns;
    launch(_n.nccl_launch, _n.all_gather, comm_stream, t, reduced, gathered);
    auto const all = shard_elements * _o.ranks;
    _table.add_collective_args(
        {_n.allgather_op, _n.bf16_type, _n.group, shard_elements, all, _o.ranks},
        _table.size() - 1);
    t += 10'000;
    host(event_kind::api_call, _n.sync, _n.cat_runtime, t, gathered + 2'000);
    auto const next = gathered + 12'000;
    host(event_kind::profiler_step,
         _table.strings().intern("ProfilerStep#" + std::to_string(index)), _n.cat_annotation, start,
         next);
    return next;
  }

  /// When rank `r`'s all_reduce arrives in the step starting at `start`: its compute's end.
  [[nodiscard]] std::int64_t arrival_of(std::int32_t r, std::int64_t start) const {
    std::int64_t t = start + loader_ns + (r == late_rank() ? _o.late_ns : 0), ready = t;
    for (auto const ns : compute_ns) ready = std::max(t + launch_delay_ns, ready) + ns, t += 10'000;
    return ready;
  }

 private:
  [[nodiscard]] std::int32_t late_rank() const {
    return _o.late_rank >= 0 ? _o.late_rank : _o.ranks - 1;
  }

  void host(event_kind kind, string_id name, string_id cat, std::int64_t start, std::int64_t end) {
    emit(kind, name, cat, -1, 100 + _rank, start, end, -1);
  }

  /// A launch call at `call` and its kernel [begin, end) on `stream`; returns `end`.
  std::int64_t launch(string_id api, string_id kernel, std::int64_t stream, std::int64_t call,
                      std::int64_t begin, std::int64_t end) {
    auto const correlation = ++_correlation;
    emit(event_kind::api_call, api, _n.cat_runtime, -1, 100 + _rank, call, call + 5'000,
         correlation);
    emit(event_kind::kernel, kernel, _n.cat_kernel, 0, stream, begin, end, correlation);
    return end;
  }

  void emit(event_kind kind, string_id name, string_id cat, std::int32_t device,
            std::int64_t stream, std::int64_t start, std::int64_t end, std::int64_t correlation) {
    event e;
    e.kind = kind, e.name = name, e.category = cat, e.rank = _rank, e.device = device;
    e.stream = stream, e.start_ns = start, e.end_ns = end, e.correlation = correlation;
    if (!_table.append(e)) throw std::logic_error("collective job: a row out of range");
  }

  collective_job_options const& _o;
  job_names const& _n;
  event_table& _table;
  std::int32_t _rank;
  std::int64_t _correlation = 0;
};

/// The truth, from the planted constants.
collective_truth truth_of(collective_job_options const& o, std::int32_t late) {
  collective_truth out;
  auto const n = o.ranks;
  auto const steps = std::int64_t{o.steps};
  double const nd = n;
  for (std::int32_t r = 0; r < n; ++r) {
    auto const wait = r == late ? 0 : o.late_ns;
    collective_rank_truth rank;
    rank.rank = r;
    rank.collectives = 2 * steps;
    rank.wait_ns = steps * wait;
    rank.transfer_ns = steps * (all_reduce_transfer_ns + all_gather_transfer_ns);
    if (r == late && o.late_ns > 0) {  // (no delay: every all_reduce is a tie)
      rank.last_arrivals = steps;
      rank.wait_caused_ns = steps * (n - 1) * o.late_ns;
      rank.worst_wait_caused_ns = (n - 1) * o.late_ns;
      rank.behind = data_loader_name;  // it loads late_ns longer than the others
      rank.behind_excess_ns = o.late_ns;
    }
    out.ranks.push_back(rank);
    collective_row_truth ar{r,
                            "all_reduce",
                            "float32",
                            gradient_elements * 4,
                            n,
                            steps,
                            steps * (wait + all_reduce_transfer_ns),
                            steps * wait,
                            steps * all_reduce_transfer_ns};
    double const ar_factor = 2.0 * (nd - 1.0) / nd;
    ar.algbw_gbps = static_cast<double>(ar.bytes) * static_cast<double>(steps) /
                    static_cast<double>(ar.total_ns);
    ar.busbw_gbps = ar.algbw_gbps * ar_factor;
    ar.busbw_transfer_gbps = static_cast<double>(ar.bytes) * static_cast<double>(steps) /
                             static_cast<double>(ar.transfer_ns) * ar_factor;
    collective_row_truth ag{r,
                            "all_gather",
                            "bfloat16",
                            shard_elements * n * 2,
                            n,
                            steps,
                            steps * all_gather_transfer_ns,
                            0,
                            steps * all_gather_transfer_ns};
    double const ag_factor = (nd - 1.0) / nd;
    ag.algbw_gbps = static_cast<double>(ag.bytes) * static_cast<double>(steps) /
                    static_cast<double>(ag.total_ns);
    ag.busbw_gbps = ag.algbw_gbps * ag_factor;
    ag.busbw_transfer_gbps = ag.busbw_gbps;
    out.rows.push_back(ar);
    out.rows.push_back(ag);
  }
  return out;
}

}  // namespace

collective_truth generate_collective_job(collective_job_options const& o, event_table& table) {
  if (o.ranks < 2 || o.steps < 1 || o.late_rank >= o.ranks || o.late_ns < 0)
    throw std::invalid_argument(
        "collective job: needs 2 ranks or more, a step, a late rank below the ranks and a "
        "delay >= 0");
  auto const late = o.late_rank >= 0 ? o.late_rank : o.ranks - 1;
  table.begin_input("generated:collectives", "synthetic");
  auto const n = intern_names(table.strings());
  for (std::int32_t r = 0; r < o.ranks; ++r) {
    rank_timeline timeline(o, n, table, r);
    std::int64_t start = o.start_ns;
    for (std::int32_t s = 0; s < o.steps; ++s) start = timeline.step(s, start);
  }
  table.finish_input();
  return truth_of(o, late);
}

}  // namespace tracesweep
