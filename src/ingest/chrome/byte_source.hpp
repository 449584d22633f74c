// SPDX-License-Identifier: Apache-2.0
// Streams the bytes of a trace file: plain files as they are, gzip files (one or several
// concatenated members) inflated on the fly with zlib. Nothing holds the whole file. The same
// sources also read bytes already in memory (tests, fuzzers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
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

/// Reads `bytes` (which must outlive the source) as if they were a file named `name`: gzip
/// (recognised by its magic bytes) inflated by the same code as files, anything else as it is.
/// The raw bytes are handed out at most `max_read` at a time, so callers can cut the stream
/// anywhere.
[[nodiscard]] std::unique_ptr<byte_source> open_memory_source(
    std::string const& name, std::span<char const> bytes,
    std::size_t max_read = std::numeric_limits<std::size_t>::max());

}  // namespace tracesweep::chrome
