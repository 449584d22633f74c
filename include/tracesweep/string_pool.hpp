// SPDX-License-Identifier: Apache-2.0
// Interns strings into dense 32-bit ids. Every name in the event table is an id into one pool;
// the strings themselves stay on the host.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tracesweep {

using string_id = std::uint32_t;

class string_pool {
 public:
  string_pool();
  string_pool(string_pool const&) = delete;
  string_pool& operator=(string_pool const&) = delete;
  string_pool(string_pool&&) = default;
  string_pool& operator=(string_pool&&) = default;

  /// The id of `s`, adding it on first sight. Id 0 is always the empty string.
  string_id intern(std::string_view s);
  /// The id of `s` if it was interned, else `npos`.
  [[nodiscard]] string_id find(std::string_view s) const;
  [[nodiscard]] std::string_view at(string_id id) const { return _strings[id]; }
  [[nodiscard]] std::size_t size() const noexcept { return _strings.size(); }
  /// The bytes the pool holds, estimated from the standard containers' layout: each string's
  /// object and heap buffer, the deque's blocks, the index's nodes and buckets.
  [[nodiscard]] std::size_t memory_bytes() const noexcept;

  static constexpr string_id npos = 0xFFFF'FFFFu;

 private:
  std::deque<std::string> _strings;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, string_id> _ids;
};

}  // namespace tracesweep
