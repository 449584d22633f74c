// SPDX-License-Identifier: Apache-2.0
// Paddle place text → device: an optional "Place(" wrapper around the place name.
#include "ingest/chrome/paddle_place.hpp"

#include <charconv>
#include <limits>

namespace tracesweep::chrome {

namespace {

/// The digits of `text` from its start to `end` (the whole rest when end is empty) as a
/// device ordinal; nullopt when they are not all digits or out of int32.
std::optional<std::int32_t> ordinal(std::string_view text, std::string_view end) noexcept {
  if (!end.empty()) {
    if (!text.ends_with(end)) return std::nullopt;
    text.remove_suffix(end.size());
  }
  std::int32_t n = 0;
  auto const [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || p != text.data() + text.size() || text.empty() || n < 0)
    return std::nullopt;
  return n;
}

}  // namespace

std::optional<std::int32_t> paddle_place_device(std::string_view place) noexcept {
  if (place.starts_with("Place(") && place.ends_with(")")) {
    place.remove_prefix(6);
    place.remove_suffix(1);
  }
  if (place == "cpu" || place == "CPUPlace") return -1;
  if (place.starts_with("gpu:")) return ordinal(place.substr(4), {});
  if (place.starts_with("CUDAPlace(")) return ordinal(place.substr(10), ")");
  return std::nullopt;
}

}  // namespace tracesweep::chrome
