// SPDX-License-Identifier: Apache-2.0
// Exact 128-bit accumulation shared by device and host code: Σx as a sign-extended 128-bit
// two's-complement sum and Σx² as an unsigned 128-bit sum, both modulo 2^128 like the CPU's
// __int128 arithmetic, so any summation order gives the same bits.
#pragma once

#include "cuda/detail/host_device.hpp"

namespace tracesweep::cuda_detail {

struct u128 {
  ::cuda::std::uint64_t lo = 0;
  ::cuda::std::uint64_t hi = 0;
};

TRACESWEEP_HOST_DEVICE inline u128 add(u128 a, u128 b) {
  u128 r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo ? 1u : 0u);
  return r;
}

/// The full 128-bit product of two 64-bit unsigned values (schoolbook on 32-bit halves).
TRACESWEEP_HOST_DEVICE inline u128 mul_wide(::cuda::std::uint64_t a, ::cuda::std::uint64_t b) {
  ::cuda::std::uint64_t const mask = 0xFFFF'FFFFull;
  ::cuda::std::uint64_t const a0 = a & mask, a1 = a >> 32, b0 = b & mask, b1 = b >> 32;
  ::cuda::std::uint64_t const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  ::cuda::std::uint64_t const mid = (p00 >> 32) + (p01 & mask) + (p10 & mask);
  u128 r;
  r.lo = (mid << 32) | (p00 & mask);
  r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return r;
}

/// x sign-extended to 128 bits.
TRACESWEEP_HOST_DEVICE inline u128 widen(::cuda::std::int64_t x) {
  u128 r;
  r.lo = static_cast<::cuda::std::uint64_t>(x);
  r.hi = x < 0 ? ~::cuda::std::uint64_t{0} : 0;
  return r;
}

/// x² exactly (|x| ≤ 2^63, so x² < 2^126).
TRACESWEEP_HOST_DEVICE inline u128 square(::cuda::std::int64_t x) {
  ::cuda::std::uint64_t const m =
      x < 0 ? ::cuda::std::uint64_t{0} - static_cast<::cuda::std::uint64_t>(x)
            : static_cast<::cuda::std::uint64_t>(x);
  return mul_wide(m, m);
}

/// a + b for a sum that must stay below 2^128 (Σx²): `overflow` is set when it does not. As
/// every term is non-negative, some partial sum overflows in any order iff the total does.
TRACESWEEP_HOST_DEVICE inline u128 add_checked(u128 a, u128 b, ::cuda::std::uint32_t& overflow) {
  u128 r;
  r.lo = a.lo + b.lo;
  ::cuda::std::uint64_t const carry = r.lo < a.lo ? 1u : 0u;
  r.hi = a.hi + b.hi;
  if (r.hi < a.hi) overflow = 1;
  r.hi += carry;
  if (r.hi < carry) overflow = 1;
  return r;
}

/// count, Σx, Σx² of one group; `overflow` when Σx² does not fit 128 bits.
struct moments {
  ::cuda::std::uint64_t count = 0;
  u128 sum;
  u128 sum_sq;
  ::cuda::std::uint32_t overflow = 0;
};

struct to_moments_fn {
  TRACESWEEP_HOST_DEVICE moments operator()(::cuda::std::int64_t x) const {
    moments m;
    m.count = 1;
    m.sum = widen(x);
    m.sum_sq = square(x);
    return m;
  }
};

struct moments_plus_fn {
  TRACESWEEP_HOST_DEVICE moments operator()(moments const& a, moments const& b) const {
    moments r;
    r.count = a.count + b.count;
    r.sum = add(a.sum, b.sum);
    r.overflow = a.overflow | b.overflow;
    r.sum_sq = add_checked(a.sum_sq, b.sum_sq, r.overflow);
    return r;
  }
};

}  // namespace tracesweep::cuda_detail
