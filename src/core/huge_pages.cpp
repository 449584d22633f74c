// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/huge_pages.hpp>

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tracesweep {

void advise_huge_pages(void const* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;
  auto const begin = reinterpret_cast<std::uintptr_t>(data);
  auto const first = (begin + huge_page - 1) & ~(huge_page - 1);
  auto const end = (begin + bytes) & ~(huge_page - 1);
  if (data == nullptr || end <= first) return;
  (void)madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#else
  (void)data, (void)bytes;
#endif
}

}  // namespace tracesweep
