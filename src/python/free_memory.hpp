// SPDX-License-Identifier: Apache-2.0
// Hands the C heap's free pages back to the system. glibc keeps what a freed event table or a
// large temporary array leaves, and a notebook's next arrays rarely fit those holes, so a
// process that read a multi-gigabyte trace would otherwise keep its peak for good.
#pragma once

namespace tracesweep::python {

/// Releases the free pages of the C heap (glibc's malloc_trim); a no-op on other C libraries.
void release_free_memory() noexcept;

}  // namespace tracesweep::python
