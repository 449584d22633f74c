// SPDX-License-Identifier: Apache-2.0
// The executable's global operator new: the heap is marked for transparent huge pages as it
// grows, before the columns, sort buffers and read windows placed in it are touched.
//
// A run writes hundreds of megabytes of fresh columns once each, and on a virtual machine every
// first touch of a 4 KiB page is a costly trap: a third of `stats` on a 1 M-kernel export went to
// page faults. Where the system leaves huge pages to the program (transparent_hugepage "madvise",
// as on the development VM), memory marked MADV_HUGEPAGE faults in 2 MiB at a time: that `stats`
// run takes a third of the time (bench/README.md, "Huge pages for the heap"). glibc does the same
// when started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1; a program cannot set that for itself.
//
// Only this executable replaces operator new (never a library), and never under AddressSanitizer,
// whose own operator new pairs allocations with their deallocations.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACESWEEP_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TRACESWEEP_ADDRESS_SANITIZER 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(TRACESWEEP_ADDRESS_SANITIZER)
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

namespace {

constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;

/// The heap's end when first seen (what lies below was touched already) and the end up to which
/// it is marked.
std::atomic<std::uintptr_t> first_end{0};
std::atomic<std::uintptr_t> marked_to{0};

/// Marks the heap grown since the last call for transparent huge pages: main() has malloc take
/// every block from the heap (no block of its own mapped) and grow it 64 MiB at a time, so the
/// memory of every column lies in a stretch marked before anything but malloc's bookkeeping
/// touched it. Failure (no THP in this kernel, "never") changes nothing but speed: ignored.
void mark_heap_growth() noexcept {
  auto const end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  auto done = marked_to.load(std::memory_order_relaxed);
  if (end <= done || !marked_to.compare_exchange_strong(done, end, std::memory_order_relaxed))
    return;
  if (done == 0) {
    first_end.store(end, std::memory_order_relaxed);
    return;
  }
  // From the huge page the last mark ended in: its untouched part can still fault in whole.
  auto const from = std::max(done & ~(huge_page - 1), first_end.load(std::memory_order_relaxed));
  (void)madvise(reinterpret_cast<void*>(from), end - from, MADV_HUGEPAGE);
}

}  // namespace

// The replaceable allocation function: the nothrow and array forms call it, the default
// deallocation functions free what it returns (malloc's block).
void* operator new(std::size_t bytes) {
  void* block = std::malloc(bytes == 0 ? 1 : bytes);
  if (block == nullptr) throw std::bad_alloc();
  mark_heap_growth();
  return block;
}
#endif
