// SPDX-License-Identifier: Apache-2.0
// What the CUDA backends of one process share, created once and kept for the process: the
// device-memory budget (split among the backends in use at once: a scan's workers), a private
// stream-ordered memory pool per device (the device's default pool is left as it is), and the
// pinned staging buffers, one per worker thread, reused by the backends it creates one after
// another. Plain C++ against the CUDA runtime API.
#pragma once

#include <cstddef>
#include <memory>

#include <cuda_runtime_api.h>

namespace tracesweep::cuda_detail {

/// This process's device-memory budget on `device`: `explicit_limit` when it is not 0, else
/// three quarters of the memory free on the device the first time it is asked (then fixed).
[[nodiscard]] std::size_t device_budget(int device, std::size_t explicit_limit);

/// The process's private memory pool on `device`, created at first use, its release threshold
/// set to the budget so that freed memory up to it stays in the pool for reuse.
[[nodiscard]] cudaMemPool_t device_pool(int device);

/// Page-locked host memory for staging copies.
class pinned_buffer {
 public:
  explicit pinned_buffer(std::size_t bytes);
  pinned_buffer(pinned_buffer const&) = delete;
  pinned_buffer& operator=(pinned_buffer const&) = delete;
  ~pinned_buffer();
  [[nodiscard]] char* data() const noexcept { return static_cast<char*>(_data); }
  [[nodiscard]] std::size_t size() const noexcept { return _bytes; }

 private:
  void* _data = nullptr;
  std::size_t _bytes = 0;
};

/// The calling thread's pinned staging buffer of staging_bytes, allocated on its first use and
/// taken exclusively until returned (a second backend alive on the same thread gets a buffer
/// of its own).
[[nodiscard]] std::unique_ptr<pinned_buffer> take_staging();
/// Gives a staging buffer back to the calling thread for its next backend, once no copy uses
/// it any more (its stream was synchronised).
void return_staging(std::unique_ptr<pinned_buffer> staging) noexcept;

}  // namespace tracesweep::cuda_detail
