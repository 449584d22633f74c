// SPDX-License-Identifier: Apache-2.0
// Deterministic synthetic multi-rank training traces of any size, written straight into the
// event table: steps with data-loader stalls, forward/backward/optimizer kernels on several
// streams (Zipf-distributed, long templated names), NCCL kernels on their own stream overlapping
// compute, memcpy/memset, host API calls linked to device rows by correlation id, profiler steps
// and NVTX-like ranges. The same options always give the same table.
//
// On request the trace instead runs a *clean base* in which the bottlenecks a diagnosis looks for
// are absent, and plants chosen patterns into it with exact ground truth (planted_patterns,
// planted_truth).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>

namespace tracesweep {

/// Diagnosis patterns with known ground truth. Setting any of them (or `clean`) switches the
/// trace to the clean base described below; with none set (the default) the trace is the one
/// the generator has always written, row for row.
///
/// The clean base:
/// - Every rank runs the same timeline: the random choices of step s on device d of a rank
///   (d counts a rank's devices from 0) come from a generator seeded by (seed, s, d), not by the
///   rank, so every rank has the same kernel sequence and durations; only each rank's start
///   offset differs (and the straggler's scaling). Step times are equal across ranks.
/// - The data loader waits 10–30 µs at each step start; the host pauses 5–20 µs after the
///   step-end synchronisation.
/// - Kernels are never empty (0 ns). Compute kernels on the side streams (slots ≥ 1) are long
///   kernels (base ≥ 20 µs, so ≥ 14 µs); tiny ones (< 10 µs) run only on compute stream slot 0,
///   at most 32 in a row there (the next is then a long kernel, or fused Adam in the optimizer).
///   The first compute kernel of a step runs on slot 0 and is long; the first optimizer kernel
///   waits for every stream of its device (all gradients are done); the last optimizer kernel
///   of a step is fused Adam (≥ 36 µs).
/// - Guarantees, per device, over its device-activity rows (kernel, memcpy, memset; not
///   synchronization rows): the activity union has no hole of 80 µs or more inside its window
///   (first activity start … last activity end); no kernel lasts more than 2.5 × the median
///   duration of its name (over the trace); no run of 50 or more consecutive kernels (ordered by
///   start) each shorter than 10 µs; no step has 10 or more memcpys of at most 64 KiB in one
///   direction. The GPU, not the host, bounds each step.
///
/// The patterns below each add exactly one kind of finding to the clean base (and nothing else:
/// in particular the only holes of 80 µs or more are the planted gaps). Single-site patterns go
/// on rank 0, its first device, in the *planted step* `steps / 2` (steps after `target_events`);
/// they lengthen that device's planted step, every other timeline stays as it was.
struct planted_patterns {
  bool clean = false;  ///< the clean base alone (implied by every pattern below)
  /// Every step's data loader (the host `data_loader` range at the step start) lasts
  /// `kernels_per_step` × 20 µs (±2 %), on every rank and device: each step after the first
  /// opens with a GPU hole on every (rank, device), ranks × devices × (steps − 1) planted_gaps
  /// of cause "data_loading" (step 0 has none: nothing ran before it).
  bool data_loader_gaps = false;
  /// Planted step, right after the forward phase: `cudaStreamSynchronize` (an api_call and its
  /// synchronization row, returning 1.5 µs after every stream of the device drained), then a
  /// 400–600 µs host range `log_metrics` (cpu_op) that launches nothing: one planted_gap, cause
  /// "sync".
  bool sync_gap = false;
  /// Planted step, backward phase: 3 launches (compute stream slot 0) of the most frequent
  /// compute kernel name (the one the Zipf table picks most) run 6 × that kernel's base
  /// duration, no jitter (planted_kernel each).
  bool long_tail = false;
  /// Planted step, after the optimizer and zero_grad, before the step-end device-to-host copy:
  /// a host cpu_op range `torch.nn.utils.clip_grad_norm_` on the launching thread holding 200
  /// `cudaLaunchKernel` calls, each launching one 2–4 µs kernel (a NormTwoOps reduce_kernel, a
  /// name used nowhere else) on compute stream slot 0 (planted_burst).
  bool tiny_burst = false;
  /// Planted step, forward phase: 24 host-to-device `cudaMemcpyAsync` copies of 4–512 bytes
  /// each ("Memcpy HtoD (Pageable -> Device)", stream slot 0), spread among the forward launches
  /// (planted_copies).
  bool small_copies = false;
  /// ≥ 0: every kernel duration on this rank (compute, optimizer, NCCL and planted kernels; not
  /// copies or memsets) is scaled by 1.4. The GPU bounds the clean base's steps, so the rank's
  /// mean step time is about 1.36–1.39 × the others' (its device busy time about 1.4 ×); with
  /// data_loader_gaps, whose host wait is the same on every rank, the step-time ratio drops to
  /// about 1.2–1.3. Must be below `ranks`. -1: none.
  std::int32_t straggler_rank = -1;
  /// Memory events (event_table::memory) on every (rank, device), on its host thread: at the
  /// start of step 0 the weights (+1 GiB, never freed); every step, right after the data
  /// loader, the activations (+256 MiB), freed right after the step-end synchronisation: a
  /// flat control, the same peak every step. On rank 0's first device also, after the
  /// optimizer of every step, optimizer state (+64 MiB) that is never freed: its per-step peak
  /// grows by 64 MiB a step, a staircase over all steps (planted_memory when steps ≥ 5, the
  /// four step-to-step increases diagnose needs). Draws no random numbers and adds no row.
  bool memory_staircase = false;
  /// Whether anything is planted, i.e. the trace uses the clean base.
  [[nodiscard]] bool any() const noexcept;
};

struct synthetic_options {
  std::uint64_t seed = 1;
  std::int32_t ranks = 2;
  std::int32_t devices_per_rank = 1;
  std::int32_t streams_per_device = 3;  ///< compute streams; NCCL gets one more of its own
  std::int32_t steps = 4;
  std::int32_t kernels_per_step = 300;  ///< compute kernels per step and device
  std::int32_t nccl_per_step = 4;       ///< gradient all-reduce buckets per step and device
  /// When > 0, `steps` is replaced by the fewest steps giving at least this many events.
  std::int64_t target_events = 0;
  /// First timestamp (ns). The default is an epoch-like clock beyond 2^53, as Kineto writes.
  std::int64_t start_ns = 1'700'000'000'000'000'000;
  /// Host activity of a real PyTorch job, per 1000 kernel launches (compute and optimizer),
  /// spread evenly over each step; 0 (the default) adds none and leaves the trace unchanged.
  /// polls: `cudaEventQuery` api_call rows with no device work (the host polling an event);
  /// host_ops: short aten cpu_op rows that launch nothing (views, detach, item, …);
  /// copies: `cudaMemcpyAsync` + device-to-device memcpy row pairs.
  std::int32_t polls_per_1000_launches = 0;
  std::int32_t host_ops_per_1000_launches = 0;
  std::int32_t copies_per_1000_launches = 0;
  /// Run-over-run regressions (fleet diff): every instance of the compute kernel named
  /// `slow_kernel` lasts `slow_kernel_permille` / 1000 as long; rank `idle_rank` (≥ 0) waits
  /// `idle_rank_ns` more on its data loader at every step, so its GPUs sit idle longer. Neither
  /// draws random numbers: everything else stays as without them.
  std::string slow_kernel;
  std::int32_t slow_kernel_permille = 1000;
  std::int32_t idle_rank = -1;
  std::int64_t idle_rank_ns = 0;
  /// Diagnosis patterns to plant; none by default. Planting needs `kernels_per_step` ≥ 10 and no
  /// host mix (the host mix makes the host, not the GPU, the bottleneck).
  planted_patterns plant;
};

// Ground truth of the planted patterns. Ranks are the trace's ranks; devices are the device
// numbers the trace holds (the device column: (rank × devices_per_rank + d) % max(8,
// devices_per_rank) for the rank's d-th device); times are the table's ns (the writers keep
// them: Kineto exactly, nsys shifted by its session start, the earliest event of the table).

/// A hole in one device's activity union (kernel, memcpy and memset rows).
struct planted_gap {
  std::int32_t rank = 0;
  std::int32_t device = 0;
  /// The largest end of any device-activity row of this device emitted before the hole (the
  /// moment the device drained).
  std::int64_t start_ns = 0;
  /// The start of the next device-activity row of this device (the step's host-to-device batch
  /// copy for "data_loading", the first backward kernel for "sync"). No row of the device
  /// overlaps [start_ns, end_ns), so this is exactly a hole of the device's activity union.
  std::int64_t end_ns = 0;
  std::string cause;  ///< "data_loading" or "sync"
};

/// One kernel instance of the long tail: it lasts more than 2.5 × the median duration of its
/// name over the trace (about 5.7 ×); no other kernel instance does.
struct planted_kernel {
  std::int32_t rank = 0;
  std::int32_t device = 0;
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 0;  ///< 6 × the name's base duration (× 1.4 on the straggler)
};

/// A burst of tiny kernels (each < 10 µs) launched from one host range: in start order on its
/// device, exactly `kernels` consecutive kernels, nothing else starts between the first and the
/// last, and the kernel before the burst and the one after it (if any: none when the planted
/// step is the last) last 10 µs or more. Each launching `cudaLaunchKernel` lies inside the
/// `launched_by` range on the same host thread (stream column), with at least 1 µs to spare at
/// both ends (the Kineto writer's aten op around each call fits too).
struct planted_burst {
  std::int32_t rank = 0;
  std::int32_t device = 0;
  std::int64_t start_ns = 0;  ///< start of the first burst kernel
  std::int64_t end_ns = 0;    ///< end of the last burst kernel
  std::int64_t kernels = 0;   ///< 200
  std::string launched_by;    ///< the host range's name: "torch.nn.utils.clip_grad_norm_"
};

/// Small copies (≤ 64 KiB) of one step in one direction: their `cudaMemcpyAsync` calls lie inside
/// the host range ProfilerStep#step of the device's thread. Every step also has one 4-byte
/// device-to-host copy (the loss), well below the 10 small copies that make a finding.
struct planted_copies {
  std::int32_t rank = 0;
  std::int32_t device = 0;
  std::int32_t step = 0;    ///< step index (ProfilerStep#N)
  std::string direction;    ///< "HtoD"
  std::int64_t copies = 0;  ///< 24 (the step's 8 MiB batch copy is not one of them)
  std::int64_t bytes = 0;   ///< their total bytes
};

/// A staircase of the per-step peak allocated memory of one (rank, device): every step's peak
/// is `growth_bytes_per_step` above the previous one's.
struct planted_memory {
  std::int32_t rank = 0;
  std::int32_t device = 0;
  std::int64_t start_ns = 0;    ///< start of the rank's first step window (ProfilerStep#0)
  std::int64_t end_ns = 0;      ///< end of its last step window
  std::int64_t peak_bytes = 0;  ///< the last step's peak allocated total
  std::int64_t growth_bytes_per_step = 0;  ///< 64 MiB
  std::int32_t steps = 0;                  ///< step windows in the run
};
/// Everything planted; empty when nothing is.
struct planted_truth {
  std::vector<planted_gap> gaps;  ///< sorted by (rank, device, start)
  std::vector<planted_kernel> long_tail;
  std::vector<planted_burst> bursts;
  std::vector<planted_copies> small_copies;
  std::vector<std::int32_t> stragglers;  ///< ranks
  std::vector<planted_memory> memory;
};

/// `o` with the host mix of the real A100 trace hta_negative_queue_length_a100 (per kernel:
/// ~4.3 event polls, ~2.9 launch-free aten ops, ~0.2 device copies).
[[nodiscard]] synthetic_options with_kineto_host_mix(synthetic_options o);

/// Events one step of one device adds (host rows included); exact when nothing is planted
/// (planted patterns add rows at their site).
[[nodiscard]] std::int64_t synthetic_events_per_step(synthetic_options const& options);

/// The steps the trace will have after `target_events` is applied.
[[nodiscard]] std::int32_t synthetic_steps(synthetic_options const& options);

/// Appends one input, path "generated:seed=S", format "synthetic", to `table` and finishes it;
/// returns the ground truth of `options.plant` (empty when nothing is planted). Throws
/// std::invalid_argument for non-positive counts and for a plant the options cannot hold
/// (straggler_rank not in [-1, ranks), kernels_per_step < 10, a host mix).
planted_truth generate_synthetic_trace(synthetic_options const& options, event_table& table);

}  // namespace tracesweep
