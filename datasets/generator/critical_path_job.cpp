// SPDX-License-Identifier: Apache-2.0
// The critical-path job: the same known chain in every step of every rank
// (critical_path_job.hpp).
#include <tracesweep/generator/critical_path_job.hpp>

#include <stdexcept>
#include <string>

namespace tracesweep {

namespace {

constexpr std::int64_t step_period_ns = 1'100'000;
constexpr std::int64_t stream = 7;
constexpr std::int64_t thread_base = 100;

class chain_writer {
 public:
  chain_writer(event_table& table, std::int32_t rank) : _t(table), _rank(rank) {}

  void step(std::int32_t index, std::int64_t t) {
    host(event_kind::profiler_step, "ProfilerStep#" + std::to_string(index), "user_annotation", t,
         t + 1'000'000);
    auto const k1 = ++_correlation, k2 = ++_correlation, sync = ++_correlation;
    host(event_kind::cpu_op, "aten::A", "cpu_op", t, t + 100'000);
    host(event_kind::api_call, "cudaLaunchKernel", "cuda_runtime", t + 10'000, t + 20'000, k1);
    host(event_kind::cpu_op, "aten::B", "cpu_op", t + 100'000, t + 200'000);
    host(event_kind::api_call, "cudaLaunchKernel", "cuda_runtime", t + 110'000, t + 120'000, k2);
    host(event_kind::cpu_op, "aten::C", "cpu_op", t + 200'000, t + 900'000);
    host(event_kind::api_call, "cudaDeviceSynchronize", "cuda_runtime", t + 600'000, t + 890'000,
         sync);
    gpu(event_kind::kernel, "k1", "kernel", stream, t + 30'000, t + 400'000, k1);
    gpu(event_kind::kernel, "k2", "kernel", stream, t + 400'000, t + 850'000, k2);
    // CUPTI's context synchronisation (sync type 4), off any stream.
    gpu(event_kind::synchronization, "Context Sync", "cuda_sync", -1, t + 615'000, t + 860'000,
        sync, 4);
  }

 private:
  void host(event_kind kind, std::string const& name, std::string const& cat, std::int64_t start,
            std::int64_t end, std::int64_t correlation = -1) {
    emit(kind, name, cat, -1, thread_base + _rank, start, end, correlation, 0);
  }
  void gpu(event_kind kind, std::string const& name, std::string const& cat, std::int64_t s,
           std::int64_t start, std::int64_t end, std::int64_t correlation,
           std::uint8_t subkind = 0) {
    emit(kind, name, cat, 0, s, start, end, correlation, subkind);
  }
  void emit(event_kind kind, std::string const& name, std::string const& cat, std::int32_t device,
            std::int64_t s, std::int64_t start, std::int64_t end, std::int64_t correlation,
            std::uint8_t subkind) {
    event e;
    e.kind = kind, e.subkind = subkind, e.rank = _rank, e.device = device, e.stream = s;
    e.start_ns = start, e.end_ns = end, e.correlation = correlation;
    e.name = _t.strings().intern(name), e.category = _t.strings().intern(cat);
    if (!_t.append(e)) throw std::logic_error("critical-path job: a row out of range");
  }

  event_table& _t;
  std::int32_t _rank;
  std::int64_t _correlation = 0;
};

}  // namespace

void generate_critical_path_job(critical_path_job_options const& o, event_table& table) {
  if (o.ranks < 1 || o.steps < 1)
    throw std::invalid_argument("critical-path job: needs a rank and a step");
  table.begin_input("generated:critical-path", "synthetic");
  for (std::int32_t r = 0; r < o.ranks; ++r) {
    chain_writer w(table, r);
    for (std::int32_t s = 0; s < o.steps; ++s) w.step(s, o.start_ns + s * step_period_ns);
  }
  table.finish_input();
}

}  // namespace tracesweep
