// SPDX-License-Identifier: Apache-2.0
// Streams the bytes of a trace file: plain files as they are, gzip files (one or several
// concatenated members) inflated on the fly with zlib. Nothing holds the whole file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tracesweep::chrome {

class byte_source {
 public:
  virtual ~byte_source() = default;
  /// Writes up to `n` bytes of content to `dst`; returns 0 only at the end of the content.
  /// Throws input_error when the file is unreadable, or its gzip stream is invalid or truncated.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  /// Bytes of the file itself consumed so far (compressed bytes for gzip).
  [[nodiscard]] virtual std::uint64_t file_bytes_consumed() const noexcept = 0;
  /// Size of the file on disk.
  [[nodiscard]] virtual std::uint64_t file_size() const noexcept = 0;
  [[nodiscard]] virtual bool compressed() const noexcept = 0;
};

/// Opens `path`; gzip is recognised by its magic bytes, never by the file name.
[[nodiscard]] std::unique_ptr<byte_source> open_byte_source(std::string const& path);

}  // namespace tracesweep::chrome
