// SPDX-License-Identifier: Apache-2.0
// The host columns a job holds on a device backend (backend::hold): each is uploaded once, at
// its first use by a call, and stays on the device until its last hold ends, so that every
// later call reading the column, or a part of it, reads the device copy instead of uploading it
// again. A column that would take more than its share of the memory budget is not copied: the
// calls then upload what they read, as without a hold.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "cuda/detail/column.hpp"

namespace tracesweep::cuda_detail {

template <class Context>
class held_columns {
 public:
  /// `budget`: the device bytes held copies may take together (0 = no limit).
  explicit held_columns(std::size_t budget = 0) : _budget(budget) {}

  void hold(std::span<std::byte const> host) {
    if (host.empty()) return;
    for (auto& c : _columns)
      if (c.host.data() == host.data() && c.host.size() == host.size()) {
        ++c.holds;
        return;
      }
    _columns.push_back({host, 1, {}, false});
  }

  void release(std::span<std::byte const> host) noexcept {
    auto const it = std::find_if(_columns.begin(), _columns.end(), [&](held const& c) {
      return c.host.data() == host.data() && c.host.size() == host.size();
    });
    if (it == _columns.end() || --it->holds > 0) return;
    if (it->on_device) _resident -= it->host.size();
    _columns.erase(it);
  }

  /// The device copy of `host` when it lies inside a held column, uploading that column on
  /// first use; nothing when no held column holds it or its copy does not fit the budget.
  template <class T>
  std::optional<column_view<T>> find(Context& ctx, std::span<T const> host,
                                     typename Context::stream_type s) {
    if (host.empty()) return std::nullopt;
    auto const bytes = std::as_bytes(host);
    for (auto& c : _columns) {
      if (bytes.data() < c.host.data() ||
          bytes.data() + bytes.size() > c.host.data() + c.host.size())
        continue;
      if (!c.on_device && !upload(ctx, c, s)) return std::nullopt;
      auto const offset = static_cast<std::size_t>(bytes.data() - c.host.data());
      return column_view<T>{reinterpret_cast<T const*>(c.device.data() + offset), host.size()};
    }
    return std::nullopt;
  }

  /// Device bytes the held copies take now.
  [[nodiscard]] std::size_t resident_bytes() const noexcept { return _resident; }

 private:
  struct held {
    std::span<std::byte const> host;
    std::size_t holds = 0;
    typename Context::template buffer<std::byte> device;
    bool on_device = false;
  };

  bool upload(Context& ctx, held& c, typename Context::stream_type s) {
    if (_budget != 0 && _resident + c.host.size() > _budget) return false;
    c.device = ctx.template alloc<std::byte>(c.host.size(), s);
    ctx.upload(c.device.data(), c.host.data(), c.host.size(), s);
    c.on_device = true;
    _resident += c.host.size();
    return true;
  }

  std::size_t _budget;
  std::size_t _resident = 0;
  std::vector<held> _columns;
};

/// A column an algorithm reads: a view of a held device copy, or a column uploaded for the call.
template <class T, class Context>
class input_column {
 public:
  input_column() = default;
  explicit input_column(column<T, Context>&& owned) noexcept
      : _owned(std::move(owned)), _view(_owned.view()) {}
  explicit input_column(column_view<T> held) noexcept : _view(held) {}
  [[nodiscard]] T const* data() const noexcept { return _view.data; }
  [[nodiscard]] std::size_t size() const noexcept { return _view.size; }
  [[nodiscard]] column_view<T> view() const noexcept { return _view; }

 private:
  column<T, Context> _owned;
  column_view<T> _view;
};

/// `host` on the device: the held copy when `held` has one, else one upload for the call.
template <class T, class Context>
input_column<T, Context> read_column(Context& ctx, held_columns<Context>* held,
                                     std::span<T const> host, typename Context::stream_type s) {
  if (held != nullptr)
    if (auto const copy = held->find(ctx, host, s)) return input_column<T, Context>(*copy);
  return input_column<T, Context>(upload_column(ctx, host, s));
}

}  // namespace tracesweep::cuda_detail
