// SPDX-License-Identifier: Apache-2.0
// Device columns, after libcudf's column / column_view: `column<T, Context>` owns a buffer of
// the context (device memory on CUDA, counted host memory in the twin); `column_view<T>` is a
// non-owning pointer + size that the algorithms take. Every call that allocates, copies or
// runs work names its stream explicitly; a column is ordered on the stream it was made on.
//
// A Context provides, besides what primitives.cuh lists:
//   stream_type, stream()             the stream type and the context's own stream
//   alloc<T>(n, stream)               an owning buffer ordered on `stream`
//   upload(dst, src, n, stream) / download(dst, src, n, stream)   host↔device copies, counted
//                                     in transfers() (a transfer_counts); download returns once
//                                     the data is on the host
//   download_async(dst, src, n, stream)   a download whose data reaches `dst` only at the next
//                                     synchronize(stream): read `dst` after that, not before
//   synchronize(stream)               waits for the stream; staged downloads land
//   sync_point(stream)                counts a host synchronisation a Thrust call made by
//                                     returning a value (reduce, copy_if's end, ...)
//   policy(stream)                    a Thrust execution policy on `stream`
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace tracesweep::cuda_detail {

/// Host↔device copies a context made (one per upload or download call, whatever its size) and
/// the times the host blocked on the device: stream synchronisations, waits for a staging half
/// to be free, and Thrust calls that return a value to the host (sync_point).
struct transfer_counts {
  std::size_t uploads = 0;
  std::size_t upload_bytes = 0;
  std::size_t downloads = 0;
  std::size_t download_bytes = 0;
  std::size_t host_syncs = 0;
  friend bool operator==(transfer_counts const&, transfer_counts const&) = default;
};

/// Non-owning view of `size` device values.
template <class T>
struct column_view {
  T const* data = nullptr;
  std::size_t size = 0;
  [[nodiscard]] T const* begin() const noexcept { return data; }
  [[nodiscard]] T const* end() const noexcept { return data + size; }
  [[nodiscard]] bool empty() const noexcept { return size == 0; }
};

/// An owning device column of `T`, allocated from `Context` on a given stream.
template <class T, class Context>
class column {
 public:
  using buffer_type = typename Context::template buffer<T>;
  using stream_type = typename Context::stream_type;

  column() = default;
  /// `n` uninitialised values ordered on `stream`.
  column(Context& ctx, std::size_t n, stream_type stream)
      : _data(ctx.template alloc<T>(n, stream)) {}
  /// Adopts a buffer the algorithms produced.
  explicit column(buffer_type&& data) noexcept : _data(std::move(data)) {}

  [[nodiscard]] std::size_t size() const noexcept { return _data.size(); }
  [[nodiscard]] T* data() noexcept { return _data.data(); }
  [[nodiscard]] T const* data() const noexcept { return _data.data(); }
  [[nodiscard]] column_view<T> view() const noexcept { return {_data.data(), _data.size()}; }
  /// Frees the device memory now (on the column's stream).
  void release() noexcept { _data = buffer_type{}; }

 private:
  buffer_type _data;
};

/// One upload: a new column holding `host`, ordered on `stream`.
template <class T, class Context>
column<T, Context> upload_column(Context& ctx, std::span<T const> host,
                                 typename Context::stream_type stream) {
  column<T, Context> c(ctx, host.size(), stream);
  ctx.upload(c.data(), host.data(), host.size(), stream);
  return c;
}

/// One download: the values of `v` on the host, once `stream` has produced them.
template <class T, class Context>
std::vector<T> download_column(Context& ctx, column_view<T> v,
                               typename Context::stream_type stream) {
  std::vector<T> out(v.size);
  ctx.download(out.data(), v.data, v.size, stream);
  return out;
}

}  // namespace tracesweep::cuda_detail
