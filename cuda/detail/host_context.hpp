// SPDX-License-Identifier: Apache-2.0
// The host twin of the CUDA context: the same seams implemented with Thrust's CPP system, so
// g++ compiles and CI runs the device algorithms without a GPU. It counts the bytes its
// buffers hold, so tests can check that chunking keeps to a memory limit, and the host↔device
// transfers, so tests can check what a device-resident analysis copies; it can fail an
// allocation on demand, so tests can check how a device error surfaces. Its fresh buffers hold
// a poison pattern, not zeros, as device memory is uninitialised. It models the stream where a
// GPU differs from eager host code: device work runs at once, but downloads reach the host
// only at a synchronisation (staged like the CUDA context's, staging.hpp), so a host read that
// forgot to synchronise sees poison; and it counts the host synchronisations the CUDA context
// would make, at the same places.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <thrust/sort.h>
#include <thrust/system/cpp/execution_policy.h>
#include <thrust/system_error.h>
#include <thrust/transform.h>

#include <tracesweep/error.hpp>

#include "cuda/detail/column.hpp"
#include "cuda/detail/planning.hpp"
#include "cuda/detail/staging.hpp"

namespace tracesweep::cuda_detail {

class host_context {
 public:
  /// Orders keys by their bits [0, end_bit) only, as a radix sort over that range does.
  struct masked_less {
    std::uint64_t mask;
    bool operator()(std::uint64_t a, std::uint64_t b) const { return (a & mask) < (b & mask); }
  };

  /// Stands for a CUDA stream: the twin runs device work in order on the calling thread at
  /// once, and queues what reaches the host asynchronously (downloads) until synchronize().
  struct stream_type {};

  /// What an injected allocation failure throws: the context's own device_error, or what
  /// Thrust raises on a device (thrust::system_error, std::bad_alloc from a temporary).
  enum class failure { device_error, thrust_error, bad_alloc };

  struct usage {
    std::size_t current = 0;
    std::size_t peak = 0;
    std::size_t allocations = 0;
    /// Allocations that succeed before the next one fails (none fails while unset).
    std::size_t fail_after = static_cast<std::size_t>(-1);
    failure fail_with = failure::device_error;
  };

  using transfer_counts = cuda_detail::transfer_counts;

  /// Device bytes a device_backend on the twin keeps out of its row budget for temporary
  /// storage that does not grow with the rows: the modelled radix sort's fixed part
  /// (radix_sort_temp_bytes) with room to spare. The per-row parts are in bytes_per_row.
  static constexpr std::size_t temporary_reserve = std::size_t{16} << 10;

  [[noreturn]] static void fail(usage const& u, std::size_t bytes) {
    std::string const what =
        "out of memory allocating " + std::to_string(bytes) + " bytes (injected)";
    if (u.fail_with == failure::thrust_error)
      throw thrust::system_error(ENOMEM, thrust::generic_category(), what);
    if (u.fail_with == failure::bad_alloc) throw std::bad_alloc();
    throw device_error(
        "device: " + what + "; a lower device memory limit processes the trace in smaller chunks",
        true);
  }

  /// Counts `bytes` more in use, or throws the injected failure when it is due.
  static void charge(usage& u, std::size_t bytes) {
    if (u.allocations++ >= u.fail_after) fail(u, bytes);
    u.current += bytes;
    u.peak = std::max(u.peak, u.current);
  }

  /// Thrust's temporary storage in the twin, counted like buffers and poisoned (the CUDA
  /// context's stream_allocator takes it from the device pool and counts it the same way).
  struct counted_allocator {
    using value_type = char;
    std::shared_ptr<usage> u;
    char* allocate(std::ptrdiff_t n) {
      auto const bytes = static_cast<std::size_t>(n);
      charge(*u, bytes);
      auto* p = static_cast<char*>(::operator new(bytes));
      std::memset(p, poison, bytes);
      return p;
    }
    void deallocate(char* p, std::size_t n) noexcept {
      u->current -= n;
      ::operator delete(p);
    }
  };

  /// The byte a fresh buffer is filled with: device memory is uninitialised, so an algorithm
  /// that reads what it did not write sees this pattern in the twin instead of zeros.
  static constexpr unsigned char poison = 0xA5;

  /// An owning buffer whose bytes count towards the context's usage; its contents start as
  /// `poison` bytes, as uninitialised device memory would hold garbage.
  template <class T>
  class buffer {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "device buffers hold plain values");

   public:
    buffer() = default;
    buffer(std::size_t n, std::shared_ptr<usage> u) {
      charge(*u, n * sizeof(T));
      if (n > 0) {
        _data = std::allocator<T>{}.allocate(n);
        std::memset(static_cast<void*>(_data), poison, n * sizeof(T));
      }
      _size = n;
      _usage = std::move(u);
    }
    buffer(buffer&& o) noexcept { swap(o); }
    buffer& operator=(buffer&& o) noexcept {
      buffer(std::move(o)).swap(*this);
      return *this;
    }
    buffer(buffer const&) = delete;
    buffer& operator=(buffer const&) = delete;
    ~buffer() { release(); }
    [[nodiscard]] T* data() noexcept { return _data; }
    [[nodiscard]] T const* data() const noexcept { return _data; }
    [[nodiscard]] std::size_t size() const noexcept { return _size; }
    void swap(buffer& o) noexcept {
      std::swap(_data, o._data);
      std::swap(_size, o._size);
      _usage.swap(o._usage);
    }

   private:
    void release() noexcept {
      if (_usage) _usage->current -= _size * sizeof(T);
      if (_data) std::allocator<T>{}.deallocate(_data, _size);
      _data = nullptr;
      _size = 0;
      _usage.reset();
    }
    T* _data = nullptr;
    std::size_t _size = 0;
    std::shared_ptr<usage> _usage;
  };

  [[nodiscard]] stream_type stream() const noexcept { return {}; }
  template <class T>
  [[nodiscard]] buffer<T> alloc(std::size_t n, stream_type = {}) {
    return buffer<T>(n, _usage);
  }
  /// Thrust on the CPP system, its temporary storage counted (counted_allocator).
  [[nodiscard]] auto policy(stream_type = {}) const {
    return thrust::cpp::par(counted_allocator{_usage});
  }

  /// Twin of cub::DeviceRadixSort::SortPairs with a DoubleBuffer: the stable order of the keys
  /// restricted to bits [0, end_bit), which is the stable order of the keys themselves.
  void sort_pairs(buffer<std::uint64_t>& keys, buffer<std::uint32_t>& values, int end_bit,
                  stream_type = {}) {
    if (keys.size() <= 1) return;  // as the CUDA context
    // The double buffers and (modelled) temporary storage CUB needs, so the memory accounting
    // matches the device; the host sort's own scratch stands for CUB's work and is not counted.
    auto alt_keys = alloc<std::uint64_t>(keys.size());
    auto alt_values = alloc<std::uint32_t>(values.size());
    auto temp = alloc<char>(radix_sort_temp_bytes(keys.size(), end_bit));
    std::uint64_t const mask =
        end_bit >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << end_bit) - 1;
    thrust::stable_sort_by_key(thrust::cpp::par, keys.data(), keys.data() + keys.size(),
                               values.data(), masked_less{mask});
  }

  /// Twin of the segment-flag kernel.
  template <class Fn>
  void mark_segment_starts(Fn fn, std::uint8_t* flag, std::size_t n, stream_type = {}) {
    thrust::transform(policy(), thrust::counting_iterator<std::size_t>(0),
                      thrust::counting_iterator<std::size_t>(n), flag, fn);
  }

  /// Twin of the pinned-staging upload: the host bytes are taken at once (the device copies
  /// them from staging later, in stream order); waits on a staging half are counted as host
  /// synchronisations, as cudaEventSynchronize blocks on the device.
  template <class T>
  void upload(T* dst, T const* src, std::size_t n, stream_type s = {}) {
    ++_transfers->uploads;
    std::size_t const bytes = n * sizeof(T);
    _sources->push_back({reinterpret_cast<unsigned char const*>(src), bytes});
    _transfers->upload_bytes += bytes;
    if (bytes && _stream->plan.pending_downloads() > 0) synchronize(s);
    auto const* from = reinterpret_cast<unsigned char const*>(src);
    auto* to = reinterpret_cast<unsigned char*>(dst);
    for (std::size_t off = 0; off < bytes; off += _stream->plan.upload_chunk()) {
      std::size_t const len = std::min(_stream->plan.upload_chunk(), bytes - off);
      if (_stream->plan.place_upload(len).wait) ++_transfers->host_syncs;
      std::memcpy(to + off, from + off, len);
    }
  }

  /// Twin of an asynchronous device → host copy through the staging buffer: the device bytes
  /// are staged now (in stream order) but reach `dst` only at the next synchronize(); until
  /// then `dst` holds poison, so a host read that forgot to synchronise sees garbage.
  template <class T>
  void download_async(T* dst, T const* src, std::size_t n, stream_type s = {}) {
    ++_transfers->downloads;
    std::size_t const bytes = n * sizeof(T);
    _transfers->download_bytes += bytes;
    auto const* from = reinterpret_cast<unsigned char const*>(src);
    auto* to = reinterpret_cast<unsigned char*>(dst);
    for (std::size_t off = 0; off < bytes; off += _stream->plan.download_chunk()) {
      std::size_t const len = std::min(_stream->plan.download_chunk(), bytes - off);
      if (_stream->plan.download_needs_flush(len)) synchronize(s);
      (void)_stream->plan.place_download(len);
      _stream->pending.push_back({to + off, {from + off, from + off + len}});
      std::memset(to + off, poison, len);
    }
  }

  /// Twin of the synchronous download: download_async, then synchronize() if anything is
  /// pending.
  template <class T>
  void download(T* dst, T const* src, std::size_t n, stream_type s = {}) {
    download_async(dst, src, n, s);
    if (_stream->plan.pending_downloads() > 0) synchronize(s);
  }

  /// Twin of cudaStreamSynchronize: one host synchronisation; the staged downloads land.
  void synchronize(stream_type = {}) {
    ++_transfers->host_syncs;
    for (auto& p : _stream->pending) std::memcpy(p.dst, p.bytes.data(), p.bytes.size());
    _stream->pending.clear();
    _stream->plan.synchronised();
  }

  /// Twin of the CUDA context's abandon(): after a failed call, drops the staged downloads,
  /// whose destinations are gone, so that no later synchronisation writes to them.
  void abandon(stream_type = {}) noexcept {
    _stream->pending.clear();
    _stream->plan.synchronised();
  }
  /// Downloads staged and not yet delivered.
  [[nodiscard]] std::size_t pending_downloads() const noexcept {
    return _stream->plan.pending_downloads();
  }

  /// A Thrust call returned a value to the host (reduce, count, copy_if's end, reduce_by_key's
  /// ends): on the device the host waited for the stream there. Counted only.
  void sync_point(stream_type = {}) noexcept { ++_transfers->host_syncs; }

  [[nodiscard]] usage const& memory() const noexcept { return *_usage; }
  [[nodiscard]] transfer_counts const& transfers() const noexcept { return *_transfers; }
  /// The host bytes of one upload.
  struct upload_source {
    unsigned char const* data;
    std::size_t bytes;
  };
  /// Every upload so far, in order: tests check that a job copies each of its columns once.
  [[nodiscard]] std::vector<upload_source> const& upload_sources() const noexcept {
    return *_sources;
  }
  /// The next `n` allocations succeed; every later one throws (device_error, out of memory,
  /// unless `with` names what Thrust would throw).
  void fail_allocation_after(std::size_t n, failure with = failure::device_error) noexcept {
    _usage->fail_after = _usage->allocations + n;
    _usage->fail_with = with;
  }

 private:
  std::shared_ptr<usage> _usage = std::make_shared<usage>();
  /// The stream's queue: staged downloads not yet delivered, and the staging plan.
  struct stream_state {
    struct pending_copy {
      unsigned char* dst;
      std::vector<unsigned char> bytes;
    };
    std::vector<pending_copy> pending;
    staging_plan plan;
  };
  std::shared_ptr<transfer_counts> _transfers = std::make_shared<transfer_counts>();
  std::shared_ptr<std::vector<upload_source>> _sources =
      std::make_shared<std::vector<upload_source>>();
  std::shared_ptr<stream_state> _stream = std::make_shared<stream_state>();
};

}  // namespace tracesweep::cuda_detail
