// SPDX-License-Identifier: Apache-2.0
// The CUDA context the device algorithms run on: stream-ordered memory from the process's
// private pool (cudaMallocFromPoolAsync; cuda_resources.hpp, which also holds the budget and
// hands out the worker's pinned staging), host↔device copies through the staging (counted),
// cub::DeviceRadixSort behind the sort seam, and the one hand-written kernel (segment flags). The
// algorithms themselves are in primitives.cuh and activity.cuh. nvcc only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include <thrust/system/cuda/execution_policy.h>
#include <cub/device/device_radix_sort.cuh>

#include <tracesweep/cuda_backend.hpp>

#include "cuda/detail/column.hpp"
#include "cuda/detail/cuda_error.hpp"
#include "cuda/detail/cuda_resources.hpp"
#include "cuda/detail/staging.hpp"

namespace tracesweep::cuda_detail {

/// Device bytes one context holds (buffers, the radix sort's and Thrust's temporary storage),
/// now and at most, so a GPU run can check the memory limit as the twin's tests do.
struct device_usage {
  std::size_t current = 0;
  std::size_t peak = 0;
  std::size_t allocations = 0;
  void add(std::size_t bytes) noexcept {
    ++allocations;
    current += bytes;
    peak = std::max(peak, current);
  }
};

/// Device memory of `n` T's, freed on its stream when it goes out of scope; counted in `usage`.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(std::size_t n, cudaStream_t stream, cudaMemPool_t pool, device_usage* usage)
      : _size(n), _stream(stream), _usage(usage) {
    if (n == 0) return;
    void* p = nullptr;
    TRACESWEEP_CUDA_TRY(cudaMallocFromPoolAsync(&p, n * sizeof(T), pool, stream));
    _data = static_cast<T*>(p);
    if (_usage) _usage->add(n * sizeof(T));
  }
  device_buffer(device_buffer&& o) noexcept { swap(o); }
  device_buffer& operator=(device_buffer&& o) noexcept {
    device_buffer(std::move(o)).swap(*this);
    return *this;
  }
  device_buffer(device_buffer const&) = delete;
  device_buffer& operator=(device_buffer const&) = delete;
  ~device_buffer() {
    if (!_data) return;
    (void)cudaFreeAsync(_data, _stream);  // a destructor cannot throw
    if (_usage) _usage->current -= _size * sizeof(T);
  }
  void swap(device_buffer& o) noexcept {
    std::swap(_data, o._data);
    std::swap(_size, o._size);
    std::swap(_stream, o._stream);
    std::swap(_usage, o._usage);
  }
  [[nodiscard]] T* data() noexcept { return _data; }
  [[nodiscard]] T const* data() const noexcept { return _data; }
  [[nodiscard]] std::size_t size() const noexcept { return _size; }

 private:
  T* _data = nullptr;
  std::size_t _size = 0;
  cudaStream_t _stream = nullptr;
  device_usage* _usage = nullptr;
};

/// Thrust's temporary storage from the same stream-ordered pool, counted in `usage`.
struct stream_allocator {
  using value_type = char;
  cudaStream_t stream;
  cudaMemPool_t pool;
  device_usage* usage;
  char* allocate(std::ptrdiff_t n) {
    void* p = nullptr;
    TRACESWEEP_CUDA_TRY(cudaMallocFromPoolAsync(&p, static_cast<std::size_t>(n), pool, stream));
    usage->add(static_cast<std::size_t>(n));
    return static_cast<char*>(p);
  }
  void deallocate(char* p, std::size_t n) {
    (void)cudaFreeAsync(p, stream);
    usage->current -= n;
  }
};

template <class Fn>
__global__ void mark_segment_starts_kernel(Fn fn, std::uint8_t* flag, std::size_t n) {
  std::size_t const stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    flag[i] = fn(i);
}

/// Shared state of one backend: its device, pool, stream, staging and device memory counts.
struct cuda_state {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t staged[2] = {nullptr, nullptr};
  std::unique_ptr<pinned_buffer> staging;
  device_usage usage;
  transfer_counts transfers;
  staging_plan plan;
  /// Staged downloads waiting for the next synchronisation.
  struct pending_copy {
    char* dst;
    char const* stage;
    std::size_t bytes;
  };
  std::vector<pending_copy> pending;

  explicit cuda_state(int dev) : device(dev) {
    TRACESWEEP_CUDA_TRY(cudaSetDevice(dev));
    pool = device_pool(dev);
    staging = take_staging();  // the worker's, reused
    TRACESWEEP_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (auto& e : staged)
      TRACESWEEP_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  cuda_state(cuda_state const&) = delete;
  cuda_state& operator=(cuda_state const&) = delete;
  ~cuda_state() {
    // No copy uses the staging once the stream is idle: the worker's next backend may take it.
    bool const idle = cudaStreamSynchronize(stream) == cudaSuccess;
    for (auto e : staged) (void)cudaEventDestroy(e);
    (void)cudaStreamDestroy(stream);
    if (idle) return_staging(std::move(staging));
  }
};

/// The Context of primitives.cuh and column.hpp on a CUDA device. Work is ordered on the
/// stream each call names; the context's own stream is stream(). The pinned staging is
/// shared, so use one stream at a time.
class cuda_context {
 public:
  template <class T>
  using buffer = device_buffer<T>;
  using stream_type = cudaStream_t;

  /// Device bytes a device_backend keeps out of its row budget for temporary storage that does
  /// not grow with the rows: CUB's radix-sort bins and look-back (about 10 KiB, or a spine of
  /// up to some 600 KiB on the older upsweep/downsweep path) and the tile states and scalars of
  /// Thrust's scans, selections and reductions. An estimate: memory().peak measures it on a GPU.
  static constexpr std::size_t temporary_reserve = cuda_temporary_reserve;

  explicit cuda_context(int device) : _s(std::make_shared<cuda_state>(device)) {}

  [[nodiscard]] cudaStream_t stream() const noexcept { return _s->stream; }
  template <class T>
  [[nodiscard]] device_buffer<T> alloc(std::size_t n, cudaStream_t s) {
    return device_buffer<T>(n, s, _s->pool, &_s->usage);
  }
  template <class T>
  [[nodiscard]] device_buffer<T> alloc(std::size_t n) {
    return alloc<T>(n, _s->stream);
  }
  [[nodiscard]] auto policy(cudaStream_t s) const {
    return thrust::cuda::par_nosync(stream_allocator{s, _s->pool, &_s->usage}).on(s);
  }
  [[nodiscard]] auto policy() const { return policy(_s->stream); }

  /// The CUB seam: stable LSD radix sort over bits [0, end_bit) with a DoubleBuffer; its
  /// temporary storage comes from the pool for the call (counted); the sorted data ends up in
  /// `keys`/`values` (buffers swapped, not copied).
  void sort_pairs(device_buffer<std::uint64_t>& keys, device_buffer<std::uint32_t>& values,
                  int end_bit, cudaStream_t s) {
    std::size_t const n = keys.size();
    if (n <= 1) return;
    auto alt_keys = alloc<std::uint64_t>(n, s);
    auto alt_values = alloc<std::uint32_t>(n, s);
    cub::DoubleBuffer<std::uint64_t> k(keys.data(), alt_keys.data());
    cub::DoubleBuffer<std::uint32_t> v(values.data(), alt_values.data());
    std::size_t temp_bytes = 0;
    TRACESWEEP_CUDA_TRY(
        cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, n, 0, end_bit, s));
    auto temp = alloc<char>(temp_bytes, s);
    TRACESWEEP_CUDA_TRY(
        cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, k, v, n, 0, end_bit, s));
    if (k.Current() != keys.data()) keys.swap(alt_keys);
    if (v.Current() != values.data()) values.swap(alt_values);
  }

  template <class Fn>
  void mark_segment_starts(Fn fn, std::uint8_t* flag, std::size_t n, cudaStream_t s) {
    if (n == 0) return;
    int const block = 256;
    std::size_t const blocks = std::min<std::size_t>((n + block - 1) / block, 65'535);
    mark_segment_starts_kernel<<<static_cast<unsigned>(blocks), block, 0, s>>>(fn, flag, n);
    TRACESWEEP_CUDA_TRY(cudaGetLastError());
  }

  /// Host → device through the pinned staging buffer (staging.hpp): the host bytes are copied
  /// into staging at once, the device copies them in stream order. Waiting for a staging half
  /// to be free again is a counted host synchronisation.
  template <class T>
  void upload(T* dst, T const* src, std::size_t n, cudaStream_t s) {
    std::size_t const bytes = n * sizeof(T);
    ++_s->transfers.uploads;
    _s->transfers.upload_bytes += bytes;
    if (bytes && _s->plan.pending_downloads() > 0) synchronize(s);
    auto const* from = reinterpret_cast<char const*>(src);
    auto* to = reinterpret_cast<char*>(dst);
    for (std::size_t off = 0; off < bytes; off += _s->plan.upload_chunk()) {
      std::size_t const len = std::min(_s->plan.upload_chunk(), bytes - off);
      auto const place = _s->plan.place_upload(len);
      if (place.wait) {
        ++_s->transfers.host_syncs;
        TRACESWEEP_CUDA_TRY(cudaEventSynchronize(_s->staged[place.half]));
      }
      char* stage = _s->staging->data() + place.offset;
      std::memcpy(stage, from + off, len);
      TRACESWEEP_CUDA_TRY(cudaMemcpyAsync(to + off, stage, len, cudaMemcpyHostToDevice, s));
      TRACESWEEP_CUDA_TRY(cudaEventRecord(_s->staged[place.half], s));
    }
  }

  /// Device → host through the staging buffer, asynchronously: the data reaches `dst` at the
  /// next synchronize(s), not before.
  template <class T>
  void download_async(T* dst, T const* src, std::size_t n, cudaStream_t s) {
    std::size_t const bytes = n * sizeof(T);
    ++_s->transfers.downloads;
    _s->transfers.download_bytes += bytes;
    auto const* from = reinterpret_cast<char const*>(src);
    auto* to = reinterpret_cast<char*>(dst);
    for (std::size_t off = 0; off < bytes; off += _s->plan.download_chunk()) {
      std::size_t const len = std::min(_s->plan.download_chunk(), bytes - off);
      if (_s->plan.download_needs_flush(len)) synchronize(s);
      char* stage = _s->staging->data() + _s->plan.place_download(len);
      TRACESWEEP_CUDA_TRY(cudaMemcpyAsync(stage, from + off, len, cudaMemcpyDeviceToHost, s));
      _s->pending.push_back({to + off, stage, len});
    }
  }

  /// Device → host; returns when the data is on the host.
  template <class T>
  void download(T* dst, T const* src, std::size_t n, cudaStream_t s) {
    download_async(dst, src, n, s);
    if (_s->plan.pending_downloads() > 0) synchronize(s);
  }

  /// Waits for the stream (a counted host synchronisation); staged downloads land.
  void synchronize(cudaStream_t s) {
    ++_s->transfers.host_syncs;
    auto const pending = std::exchange(_s->pending, {});  // not delivered if the wait fails
    _s->plan.synchronised();
    TRACESWEEP_CUDA_TRY(cudaStreamSynchronize(s));
    for (auto const& p : pending) std::memcpy(p.dst, p.stage, p.bytes);
  }

  /// After a failed call: drops the staged downloads (their destinations are gone) once no copy
  /// uses the staging any more (best effort: the stream may be broken). Never throws.
  void abandon(cudaStream_t s) noexcept {
    (void)cudaStreamSynchronize(s);
    (void)cudaGetLastError();
    _s->pending.clear();
    _s->plan.synchronised();
  }

  /// A Thrust call returned a value to the host, which waited for the stream: counted only.
  void sync_point(cudaStream_t) noexcept { ++_s->transfers.host_syncs; }

  [[nodiscard]] transfer_counts const& transfers() const noexcept { return _s->transfers; }
  [[nodiscard]] device_usage const& memory() const noexcept { return _s->usage; }

 private:
  std::shared_ptr<cuda_state> _s;
};

}  // namespace tracesweep::cuda_detail
