// SPDX-License-Identifier: Apache-2.0
// Collective communication matched across ranks: each NCCL kernel's kind from its name, and the
// k-th collective of every participant (a rank's GPU in one process group) taken as one
// instance, since NCCL runs a communicator's collectives in one order on all its members. Per
// instance, each participant's wait (last arrival − its own start) and transfer (its end − last
// arrival), and who arrived last. Kernels without a recorded process group form one group
// (docs/metrics.md, "collective_ranks" and "collectives").
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
  /// Σ over those instances of the other participants' waits: what its lateness cost them.
  std::int64_t wait_caused_ns = 0;
};

/// A kernel of a matched instance.
struct matched_kernel {
  std::size_t row = 0;
  std::int64_t wait_ns = 0;
  std::int64_t transfer_ns = 0;
};

/// A participant's kernel in a matched instance, with the end of that participant's previous
/// NCCL kernel (`since_ns`; INT64_MIN for its first): the work between them is what it did before
/// it arrived.
struct instance_member {
  std::size_t row = 0;
  std::int64_t since_ns = 0;
};

/// A matched instance with one last arrival.
struct late_instance {
  std::size_t row = 0;                ///< the last arrival's kernel
  std::size_t instance = 0;           ///< its index in collective_matching::instance_offsets
  std::int64_t first_arrival_ns = 0;  ///< the earliest participant's start
  std::int64_t wait_caused_ns = 0;    ///< Σ the other participants' waits
};

struct collective_matching {
  std::vector<rank_collectives> ranks;  ///< ranks with NCCL kernels, ascending
  std::vector<matched_kernel> kernels;  ///< every kernel of a matched instance, by row
  std::vector<late_instance> late;      ///< every instance with one last arrival, by row
  /// Every matched instance's kernels, instance after instance: instance i has
  /// members[instance_offsets[i], instance_offsets[i + 1]).
  std::vector<instance_member> members;
  std::vector<std::size_t> instance_offsets{0};
  std::size_t participants = 0;  ///< GPUs with NCCL kernels
  std::size_t instances = 0;     ///< matched instances, over the process groups
  std::size_t unmatched = 0;  ///< NCCL kernels beyond the shortest participant's count (per group)
  bool across = false;        ///< some process group had two participants or more
  /// Whether waits and transfers mean anything: some group had two participants to match.
  [[nodiscard]] bool across_ranks() const noexcept { return across; }
};

/// Matches the NCCL kernels of `model` by order on each GPU of each process group (start, then
/// row). A kernel whose own end precedes the last arrival (clocks of different hosts) waits its
/// whole duration and transfers nothing: wait + transfer is always its duration.
[[nodiscard]] collective_matching match_collectives(trace_model const& model);

/// One row of the collectives table: a rank's collectives of one kind, data type, size and
/// process group. Times in ns; bandwidths in GB/s (10^9 B/s); nullopt where the trace lacks what
/// they need.
struct collective_summary {
  std::int32_t rank = 0;
  collective_kind kind = collective_kind::other;
  std::string dtype;          ///< canonical (float32, bfloat16, …), else as written; "" unknown
  std::string process_group;  ///< "" when not recorded
  std::optional<std::int64_t> bytes;  ///< per call, as nccl-tests counts them
  std::int64_t group_size = 0;        ///< n of the bus-bandwidth factor
  std::int64_t calls = 0;
  std::int64_t total_ns = 0;
  std::int64_t matched = 0;  ///< calls in matched instances
  std::optional<std::int64_t> wait_ns, transfer_ns;
  std::optional<double> algbw_gbps, busbw_gbps, busbw_transfer_gbps;
};

/// The collectives table: rows by rank, then total time (longest first), kind, dtype, bytes,
/// process group. Kind and data type from the kernel's args where recorded, else its name.
[[nodiscard]] std::vector<collective_summary> summarize_collectives(
    trace_model const& model, collective_matching const& matching);

/// nccl-tests' bus-bandwidth factor of `kind` for a group of `n`: all_reduce 2(n−1)/n;
/// all_gather, reduce_scatter, all_to_all (n−1)/n; broadcast, reduce, send_recv, other 1.
[[nodiscard]] double bus_factor(collective_kind kind, std::int64_t n) noexcept;

/// A data type's canonical name and size in bytes (0: unknown), from Kineto's dtype arg
/// (Float, BFloat16, …) or an NCCL kernel name's type token (f32, bf16, float, half, …).
struct data_type {
  std::string name;
  std::int64_t size = 0;
};
[[nodiscard]] data_type data_type_of(std::string_view written);

/// The kind a "Collective name" arg names (allreduce, all_gather, _allgather_base, send, …);
/// nullopt when it names none of them.
[[nodiscard]] std::optional<collective_kind> collective_kind_of_operation(
    std::string_view operation);

}  // namespace tracesweep
