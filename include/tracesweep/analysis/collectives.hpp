// SPDX-License-Identifier: Apache-2.0
// Collective communication matched across ranks: each NCCL kernel's kind from its name, and the
// k-th collective of every participant (a rank's GPU) taken as one instance, since NCCL runs a
// communicator's collectives in one order on all its members. Per instance, each participant's
// wait (last arrival − its own start) and transfer (its end − last arrival), and who arrived
// last. Without a recorded process group all participants form one group (docs/metrics.md,
// "Collectives").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep {

enum class collective_kind : std::uint8_t {
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  all_to_all,
  send_recv,
  other,
};

/// The kind's name as the tables print it ("all_reduce", …).
[[nodiscard]] std::string_view collective_kind_name(collective_kind k) noexcept;

/// The kind of an NCCL kernel from its name (nsys "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
/// Kineto "ncclKernel_AllReduce_RING_LL_Sum_float(…)", "ncclDevKernel_SendRecv(…)"); nullopt
/// when the name is not an NCCL kernel's.
[[nodiscard]] std::optional<collective_kind> collective_kind_of(std::string_view kernel_name);

/// One rank's collectives over the matched instances.
struct rank_collectives {
  std::int32_t rank = 0;
  std::int64_t collectives = 0;    ///< its NCCL kernels, matched or not
  std::int64_t matched = 0;        ///< of them, in matched instances
  std::int64_t wait_ns = 0;        ///< Σ over matched instances (null in tables with one rank)
  std::int64_t transfer_ns = 0;    ///< Σ over matched instances
  std::int64_t last_arrivals = 0;  ///< instances where this rank alone arrived last
};

struct collective_matching {
  std::vector<rank_collectives> ranks;  ///< ranks with NCCL kernels, ascending
  std::size_t participants = 0;         ///< GPUs with NCCL kernels
  std::size_t instances = 0;            ///< matched instances
  std::size_t unmatched = 0;            ///< NCCL kernels beyond the shortest participant's count
  /// Whether waits and transfers mean anything: at least two participants.
  [[nodiscard]] bool across_ranks() const noexcept { return participants >= 2; }
};

/// Matches the NCCL kernels of `model` by order on each GPU (start, then row). A kernel whose
/// own end precedes the last arrival (clocks of different hosts) waits its whole duration and
/// transfers nothing: wait + transfer is always its duration.
[[nodiscard]] collective_matching match_collectives(trace_model const& model);

}  // namespace tracesweep
