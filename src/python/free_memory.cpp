// SPDX-License-Identifier: Apache-2.0
#include "python/free_memory.hpp"

#include <cstdlib>  // (defines __GLIBC__ on glibc)

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tracesweep::python {

void release_free_memory() noexcept {
#if defined(__GLIBC__)
  (void)malloc_trim(0);
#endif
}

}  // namespace tracesweep::python
