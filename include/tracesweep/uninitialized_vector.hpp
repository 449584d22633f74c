// SPDX-License-Identifier: Apache-2.0
// A vector whose resize leaves new elements of trivial types uninitialised: for lists a scatter
// fills in full before anything reads them (a counting sort's output). The fresh pages behind a
// large list come zeroed from the system anyway; a value-initialising resize wrote them a second
// time (a memset of 12 bytes a row before the scatter wrote them again).
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tracesweep {

/// std::allocator, but default-initialising (for trivial types: leaving alone) what a vector
/// would value-initialise.
template <class T>
struct default_init_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = default_init_allocator<U>;
  };
  default_init_allocator() = default;
  template <class U>
  default_init_allocator(default_init_allocator<U> const&) noexcept {}

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector of trivially constructible elements that resize(n) does not zero.
template <class T>
requires std::is_trivially_default_constructible_v<T>
using uninitialized_vector = std::vector<T, default_init_allocator<T>>;

}  // namespace tracesweep
