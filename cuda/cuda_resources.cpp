// SPDX-License-Identifier: Apache-2.0
#include "cuda/detail/cuda_resources.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "cuda/detail/cuda_error.hpp"
#include "cuda/detail/staging.hpp"

namespace tracesweep::cuda_detail {
namespace {

std::mutex resources_mutex;

/// Budgets measured so far, by device (guarded by resources_mutex).
std::map<int, std::size_t>& measured_budgets() {
  static std::map<int, std::size_t> budgets;
  return budgets;
}

std::size_t measure_budget(int device) {
  TRACESWEEP_CUDA_TRY(cudaSetDevice(device));
  std::size_t free_bytes = 0, total_bytes = 0;
  TRACESWEEP_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes / 4 * 3;
}

}  // namespace

std::size_t device_budget(int device, std::size_t explicit_limit) {
  if (explicit_limit != 0) return explicit_limit;
  std::lock_guard lock(resources_mutex);
  auto& budgets = measured_budgets();
  if (auto const it = budgets.find(device); it != budgets.end()) return it->second;
  return budgets[device] = measure_budget(device);
}

cudaMemPool_t device_pool(int device) {
  std::size_t const threshold = device_budget(device, 0);
  std::lock_guard lock(resources_mutex);
  // Kept for the process's life: destroying a pool at exit races the runtime's own teardown.
  static std::map<int, cudaMemPool_t> pools;
  if (auto const it = pools.find(device); it != pools.end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  TRACESWEEP_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep = threshold;
  TRACESWEEP_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return pools[device] = pool;
}

pinned_buffer::pinned_buffer(std::size_t bytes) : _bytes(bytes) {
  TRACESWEEP_CUDA_TRY(cudaMallocHost(&_data, bytes));
}

pinned_buffer::~pinned_buffer() {
  (void)cudaFreeHost(_data);
}

namespace {
/// The calling thread's staging buffer while no backend holds it.
thread_local std::unique_ptr<pinned_buffer> idle_staging;
}  // namespace

std::unique_ptr<pinned_buffer> take_staging() {
  if (idle_staging) return std::move(idle_staging);
  return std::make_unique<pinned_buffer>(staging_bytes);
}

void return_staging(std::unique_ptr<pinned_buffer> staging) noexcept {
  if (!idle_staging) idle_staging = std::move(staging);
}

}  // namespace tracesweep::cuda_detail
