// SPDX-License-Identifier: Apache-2.0
// The device algorithms of the CUDA backend, written once against a Context and compiled twice:
// by nvcc with the CUDA context (CUB radix sort, a hand-written kernel, Thrust on a stream with
// a pool allocator) and by g++ with the host twin context (Thrust's CPP system), which CI tests
// against the CPU backend. No extended lambdas: every operation is a functor struct.
//
// A Context provides (every call that allocates, copies or runs work takes its stream, as the
// columns of column.hpp do):
//   stream_type, stream()       the stream type and the context's own stream
//   alloc<T>(n, s)              an owning buffer with data() and size(), ordered on s
//   policy(s)                   a Thrust execution policy on s
//   sort_pairs(keys, values, end_bit, s)   stable ascending sort of u64 keys + u32 values (seam:
//                               cub::DeviceRadixSort on CUDA, thrust::stable_sort_by_key on CPP)
//   mark_segment_starts(..., s) seam: a hand-written kernel on CUDA, thrust::transform on CPP
//   upload(dst, src, n, s) / download(dst, src, n, s)   counted host↔device copies (download
//                               returns once the data is on the host); download_async and
//                               synchronize(s) for several downloads behind one wait
//   sync_point(s)               called after every Thrust call that returns a value to the host
//                               (reduce, copy_if, reduce_by_key): there the host waits for the
//                               device, which the contexts count (transfers().host_syncs)
//
// One algorithm per file: device_functors.cuh (the functors), device_sort.cuh (value ranges,
// sorted order), device_union.cuh, device_gaps.cuh, device_stats.cuh, device_intersection.cuh.
#pragma once

#include "cuda/detail/device_gaps.cuh"
#include "cuda/detail/device_intersection.cuh"
#include "cuda/detail/device_stats.cuh"
#include "cuda/detail/device_union.cuh"
