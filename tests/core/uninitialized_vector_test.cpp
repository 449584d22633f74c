// SPDX-License-Identifier: Apache-2.0
// uninitialized_vector: a std::vector but for resize(n) of trivial elements, which leaves them to
// the caller's scatter; everything given a value keeps it.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include <tracesweep/uninitialized_vector.hpp>

namespace uninitialized_vector_test {

using tracesweep::uninitialized_vector;

TEST(uninitialized_vector, values_given_are_kept) {
  uninitialized_vector<std::int64_t> v(3, 7);
  EXPECT_EQ(std::vector<std::int64_t>(v.begin(), v.end()), (std::vector<std::int64_t>{7, 7, 7}));
  v.push_back(-1);
  v.resize(6, 5);
  EXPECT_EQ(std::vector<std::int64_t>(v.begin(), v.end()),
            (std::vector<std::int64_t>{7, 7, 7, -1, 5, 5}));
  v.emplace_back(9);
  EXPECT_EQ(v.back(), 9);
  auto const copy = v;  // copies, moves and reallocation keep the values
  EXPECT_EQ(copy, v);
}

TEST(uninitialized_vector, resize_then_scatter_fills_every_element) {
  uninitialized_vector<std::uint32_t> v;
  v.resize(1000);  // not zeroed: every element is written below before it is read
  ASSERT_EQ(v.size(), 1000u);
  for (std::size_t k = 0; k < v.size(); ++k) v[(k * 7) % 1000] = static_cast<std::uint32_t>(k);
  std::uint64_t const sum = std::accumulate(v.begin(), v.end(), std::uint64_t{0});
  EXPECT_EQ(sum, 999u * 1000u / 2);
  static_assert(std::is_same_v<decltype(v)::value_type, std::uint32_t>);
}

}  // namespace uninitialized_vector_test
