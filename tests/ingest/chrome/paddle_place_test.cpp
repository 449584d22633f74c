// SPDX-License-Identifier: Apache-2.0
// Paddle's memory place text → device: phi's "Place(…)" and fluid's "CUDAPlace(N)" forms, host
// memory, and the places left out (pinned, XPU, malformed ordinals).
#include <gtest/gtest.h>

#include "ingest/chrome/paddle_place.hpp"

namespace tracesweep::chrome {
namespace paddle_place_test {

TEST(PaddlePlace, HostAndGpuPlaces) {
  EXPECT_EQ(paddle_place_device("Place(cpu)"), -1);
  EXPECT_EQ(paddle_place_device("CPUPlace"), -1);
  EXPECT_EQ(paddle_place_device("Place(gpu:0)"), 0);
  EXPECT_EQ(paddle_place_device("Place(gpu:13)"), 13);
  EXPECT_EQ(paddle_place_device("gpu:2"), 2);
  EXPECT_EQ(paddle_place_device("CUDAPlace(3)"), 3);
}

TEST(PaddlePlace, OtherPlacesAreNotRead) {
  for (auto const* place :
       {"Place(gpu_pinned)", "CUDAPinnedPlace", "Place(xpu:0)", "Place(custom_npu:0)", "",
        "Place(gpu:)", "Place(gpu:-1)", "Place(gpu:1x)", "Place(gpu:99999999999)", "CUDAPlace(2",
        "Place(cpu", "cpu)"})
    EXPECT_FALSE(paddle_place_device(place).has_value()) << place;
}

}  // namespace paddle_place_test

}  // namespace tracesweep::chrome
