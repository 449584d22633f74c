// SPDX-License-Identifier: Apache-2.0
// Transparent huge pages for large buffers before their first touch: on a virtual machine every
// first touch of a 4 KiB page is a costly trap, and memory marked MADV_HUGEPAGE faults in 2 MiB
// at a time where the system leaves huge pages to the program (transparent_hugepage "madvise").
#pragma once

#include <cstddef>

namespace tracesweep {

/// Marks the whole 2 MiB pages inside [data, data + bytes) for transparent huge pages. Does
/// nothing for less than one such page, on systems without them, or where the call fails (THP
/// "never"): it changes speed only, never contents.
void advise_huge_pages(void const* data, std::size_t bytes) noexcept;

}  // namespace tracesweep
