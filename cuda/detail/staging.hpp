// SPDX-License-Identifier: Apache-2.0
// Where host↔device copies go in the pinned staging buffer, and when the host must wait. Plain
// C++ shared by the CUDA context and its host twin, so that both make the same copies and the
// same waits and the twin's counts are the device's.
//
// Uploads fill the two halves of the buffer in turn: a chunk is appended to the current half;
// when it does not fit, the other half is taken from its start, after waiting for the copies
// that last read it (an event wait) if it has been used since the last synchronisation.
// Downloads are staged one after the other from the start of the buffer and reach their host
// destination only at the next synchronisation; an upload synchronises first while downloads
// are pending, so the two never share staging bytes.
#pragma once

#include <algorithm>
#include <cstddef>

#include <tracesweep/backend.hpp>

namespace tracesweep::cuda_detail {

/// Bytes of pinned staging memory per worker (halves of 16 MiB for uploads).
inline constexpr std::size_t staging_bytes = cuda_staging_bytes;

class staging_plan {
 public:
  explicit staging_plan(std::size_t bytes = staging_bytes) noexcept
      : _bytes(bytes), _half(std::max<std::size_t>(bytes / 2, 1)) {}

  /// The most bytes one upload chunk may take.
  [[nodiscard]] std::size_t upload_chunk() const noexcept { return _half; }
  /// The most bytes one download chunk may take.
  [[nodiscard]] std::size_t download_chunk() const noexcept { return _bytes; }

  /// Where an upload chunk goes, and whether the host waits for that half's event first.
  struct upload_place {
    std::size_t offset;
    int half;
    bool wait;
  };
  /// Places an upload chunk of `len` ≤ upload_chunk() bytes (no download may be pending).
  upload_place place_upload(std::size_t len) noexcept {
    bool wait = false;
    if (_offset + len > _half) {
      _current ^= 1;
      _offset = 0;
      wait = _used[_current];
    }
    upload_place const p{static_cast<std::size_t>(_current) * _half + _offset, _current, wait};
    _offset += len;
    _used[_current] = true;
    return p;
  }

  /// Whether a download chunk of `len` bytes needs a synchronisation before it fits.
  [[nodiscard]] bool download_needs_flush(std::size_t len) const noexcept {
    return _staged > 0 && _staged + len > _bytes;
  }
  /// Places a download chunk of `len` ≤ download_chunk() bytes; returns its offset.
  std::size_t place_download(std::size_t len) noexcept {
    std::size_t const at = _staged;
    _staged += len;
    ++_pending;
    return at;
  }
  /// Downloads staged and not yet delivered to the host.
  [[nodiscard]] std::size_t pending_downloads() const noexcept { return _pending; }

  /// The stream was synchronised: every copy is done and the whole buffer is free.
  void synchronised() noexcept {
    _current = 0;
    _offset = 0;
    _used[0] = _used[1] = false;
    _staged = 0;
    _pending = 0;
  }

 private:
  std::size_t _bytes;
  std::size_t _half;
  int _current = 0;
  std::size_t _offset = 0;
  bool _used[2] = {false, false};
  std::size_t _staged = 0;
  std::size_t _pending = 0;
};

}  // namespace tracesweep::cuda_detail
