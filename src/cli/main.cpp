// SPDX-License-Identifier: Apache-2.0
// tracesweep <command> [options] inputs…
#include <climits>
#include <iostream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/app.hpp"

namespace {

/// A run allocates and frees columns of hundreds of megabytes again and again (a sort's buffers,
/// a union's keys, a batch of rows). glibc serves each block that large with a mapping of its own
/// and unmaps it on free, so the kernel zero-fills every page of the next one again: a fifth of
/// the nsys diagnosis of bench/compare_builds.sh went to page faults. Taken from the heap instead,
/// with up to 2 GiB of freed memory kept for reuse, that run takes a fifth less time.
///
/// The heap grows 64 MiB at a time and every thread allocates from it (one arena, small blocks
/// still from each thread's cache): huge_page_heap.cpp marks each growth for transparent huge
/// pages before the columns in it are touched, which covers all the memory of a run only when
/// all of it lies in the one heap.
void reuse_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_ARENA_MAX, 1);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  reuse_freed_memory();
  return tracesweep::cli::run(argc, argv, std::cerr);
}
