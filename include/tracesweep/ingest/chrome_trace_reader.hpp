// SPDX-License-Identifier: Apache-2.0
// Reads a Chrome-trace JSON file (Kineto / PyTorch profiler, PaddlePaddle profiler), plain or
// gzip, streaming, into the event table.
//
// Reading: zlib inflates gzip (concatenated members too) as a stream; a quote/escape/depth-aware
// scanner cuts traceEvents into chunks of whole events (~4 MiB), which simdjson On-Demand parses
// (in parallel with --threads, merged in file order: identical results for any thread count).
// `{"traceEvents":[…], …}` and a bare `[…]` both work; distributedInfo, baseTimeNanoseconds and
// schemaVersion are honoured before or after traceEvents. Files larger than 4 GB work.
//
// Column contract, one row per complete ("X") event, in file order:
//  - start_ns = round_half_even(ts × 1000) + baseTimeNanoseconds (0 when absent);
//    end_ns = start_ns + round_half_even(dur × 1000). Computed from the decimal text, exactly.
//  - name = `name`; Paddle's trailing "[1.234 ms]" / " [12.345 us]" suffix is removed for Paddle
//    events (category only Paddle writes, thread id "N(Python)"/"N(C++)", or a string
//    schemaVersion before traceEvents).
//  - category = `cat` exactly as written (interned); "" when absent.
//  - kind from `cat`: kernel/Kernel → kernel; gpu_memcpy/Memcpy → memcpy; gpu_memset/Memset →
//    memset; cuda_runtime/cuda_driver/Runtime/CudaRuntime → api_call; cuda_sync →
//    synchronization; cpu_op/Operator/OperatorInner/PythonOp/Communication → cpu_op (Paddle's
//    Communication is a host-side range); user_annotation/gpu_user_annotation/UserDefined/
//    PythonUserDefined → user_range; ProfileStep → profiler_step; Dataloader → data_loader;
//    Forward → forward; Backward → backward; Optimization → optimizer; anything else
//    (python_function, Trace, mtia_*, …) → other.
//    Host categories cpu_op, Operator, user_annotation, python_function are refined by name:
//    "ProfilerStep#<digits>" → profiler_step, "enumerate(DataLoader)#…" → data_loader,
//    "Optimizer.step#…" → optimizer. gpu_user_annotation never is (it would double the steps).
//  - subkind: memcpy → copy_kind from the name ("Memcpy HtoD …" → host_to_device, DtoH, DtoD,
//    HtoH, PtoP, …; else unknown); 0 otherwise.
//  - device-side rows (kernel, memcpy, memset, cuda_sync, gpu_user_annotation):
//    device = args.device, else the integer pid, else -1; stream = args.stream (integer or
//    "0x…"/decimal string), else the integer tid, else the first integer in a string tid
//    ("stream 7" → 7), else -1.
//  - host rows: device = -1; stream = the thread id: integer tid, or the leading integer of a
//    string tid ("1234(Python)" → 1234, "25738" → 25738); a tid with no leading digits
//    ("PyTorch Profiler") → -2 - (string-pool id of the tid text), a stable negative number.
//  - rank = distributedInfo.rank, else options.fallback_rank (-1 → 0).
//  - correlation = args.correlation or args["correlation id"] (Paddle), else -1.
//  - bytes = args.bytes, else 0.
//  - sync waits (event_table::sync_waits), cuda_sync rows only: args "wait_on_stream" and
//    "wait_on_cuda_event_record_corr_id" (integers ≥ 0, else -1); no entry when both are -1.
//  - host streams (event_table::host_streams): the "stream" arg of a host row (a Triton cpu_op,
//    MTIA's mtia_ccp_events) when it is a JSON number (not text such as ROCm's "0x0" on its
//    runtime calls), where the row's stream column holds its thread.
//  - launch metrics (event_table::launch_metrics), kernel rows only: args "blocks per SM" and
//    "est. achieved occupancy %" (Paddle: "theoretical achieved occupancy %" when the "est." one
//    is absent), JSON numbers read as double, NaN for the one that is absent; no entry when
//    both are. Carried through the in-order merge, so identical for any thread count.
//  - format: "paddle-json" when schemaVersion is a string or any event carries Paddle's marks,
//    else "kineto-json".
// Memory events (event_table::memory, not rows): instant events (`ph:"i"`) named `[memory]`,
// as Kineto writes them with profile_memory: time_ns = ts × 1000 + baseTimeNanoseconds, bytes =
// args.Bytes (signed: < 0 a free), allocated = args["Total Allocated"] (absent before PyTorch
// 1.10: the device's running total in file order, the last total plus Bytes, from 0, so it can
// go negative), reserved = args["Total Reserved"] (0 when absent), device = args["Device Id"]
// unless args["Device Type"] is 0 (c10's CPU) or absent, then -1; thread = the tid as for host
// rows (-1 for a tid with no leading digits); rank as for rows; pool allocated. Paddle's (no
// Bytes; cat Allocate/Free/ReservedAllocate/ReservedFree and an increase_bytes integer): pool
// allocated for Allocate/Free, reserved for the Reserved ones, bytes = ±|increase_bytes| (+ for
// the allocations), allocated / reserved = args current_allocated / current_reserved, device
// from args.place (paddle_place_device: "Place(cpu)" -1, "Place(gpu:N)" N; any other place is
// counted under memory_place_not_cpu_or_gpu). Any other `[memory]` event is ignored; one with
// no numeric ts is counted under invalid_memory_event. An instant event's name that follows its
// ph is compared as written (not unescaped or checked). Other phases (B/E, other i, s/f flows,
// C, M) are not rows and are ignored quietly: correlation comes from args, which is
// authoritative; flows add nothing.
//
// Defects. Fatal (input_error "path: byte N[, event N] / traceEvents: why", table untouched):
// unreadable, invalid or truncated gzip; truncated or invalid JSON; not a JSON object or array;
// no traceEvents; an event that is not an object; no usable events; input_limit_error when one
// event passes read_options::max_event_bytes or gzip inflates more than max_inflate_ratio ×.
// The JSON policy: invalid JSON in anything the reader interprets (any top-level key, the used
// header values, an event's ph/ts/dur/pid/tid/cat/name and used args, every string of a complete
// event) is fatal at the byte where it starts — NaN, Infinity, +5, 5., 0123, 0x10 included; what
// it skips for speed (unused top-level values and args, an event that is neither "X" nor "i" past
// its ph, an instant event's name past its ph) is checked for structure only. Skipped and counted
// in input_info.skipped (the CLI prints them): complete events with missing_ts, missing_dur,
// negative_dur, invalid_ts / invalid_dur (a JSON value of another type), time_out_of_range /
// duration_out_of_range (outside event_table's time_in_range).
#pragma once

#include <string>
#include <string_view>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep {

/// Throws input_error on any fatal defect; skipped events are counted in the input's info.
/// Whether a file's first bytes start a JSON trace: gzip (only JSON traces come compressed), or
/// after an optional UTF-8 BOM and whitespace `{` or `[` (whitespace only: the reader judges).
[[nodiscard]] bool is_chrome_trace(std::string_view head) noexcept;

void read_chrome_trace(std::string const& path, event_table& table, read_options const& options);

}  // namespace tracesweep
