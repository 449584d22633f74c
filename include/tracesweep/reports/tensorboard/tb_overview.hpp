// SPDX-License-Identifier: Apache-2.0
// The TensorBoard profiler plugin's overview (torch-tb-profiler), per input: steps moved to the
// device timeline, the step time breakdown by role priority (Kernel > Memcpy > Memset >
// Communication > Runtime > DataLoader > CPU Exec > Other), GPU Utilization, Est. SM Efficiency,
// Est. Achieved Occupancy and the kernel table, with the plugin's own rules.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

enum class tb_role : int {
  kernel,
  memcpy,
  memset,
  communication,
  runtime,
  data_loader,
  cpu_exec,
  other
};
inline constexpr int tb_role_count = 8;
inline constexpr std::array<char const*, tb_role_count> tb_role_names = {
    "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"};

struct tb_step {
  std::string name;  ///< the N of ProfilerStep#N ("0" when the trace has no steps)
  std::int64_t start_ns = 0, end_ns = 0;
  std::array<std::int64_t, tb_role_count> cost_ns{};
  [[nodiscard]] std::int64_t total_ns() const noexcept { return end_ns - start_ns; }
};

struct tb_gpu {
  std::int32_t device = 0;
  double utilization = 0;               ///< fraction
  std::optional<double> sm_efficiency;  ///< fraction; absent without "blocks per SM"
  std::optional<double> occupancy_pct;  ///< percent; absent without occupancy args
};

struct tb_kernel {
  std::string name;
  std::int64_t calls = 0;
  std::int64_t total_ns = 0, max_ns = 0, min_ns = 0;
  double mean_ns = 0;
  double blocks_per_sm = 0;  ///< duration-weighted mean (absent values count as 0)
  double occupancy_pct = 0;  ///< duration-weighted mean (absent values count as 0)
};

struct tb_overview {
  std::int32_t input = 0;
  std::int32_t rank = 0;
  bool has_communication = false;
  bool has_blocks_per_sm = false;
  bool has_occupancy = false;
  std::vector<tb_step> steps;
  std::array<double, tb_role_count> avg_cost_ns{};
  double avg_step_ns = 0;
  std::vector<tb_gpu> gpus;
  std::vector<tb_kernel> kernels;  ///< total descending, then name
};

/// One entry per input file.
[[nodiscard]] std::vector<tb_overview> compute_tb_overview(job_session const& session);

}  // namespace tracesweep
