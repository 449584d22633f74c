// SPDX-License-Identifier: Apache-2.0
// Streams the bytes of a trace file: plain files as they are, gzip files (one or several
// concatenated members) inflated on the fly with ISA-L's igzip. Nothing holds the whole file. The
// same sources also read bytes already in memory (tests, fuzzers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include <tracesweep/input_reader.hpp>

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

/// Inflated bytes after which a gzip source checks its expansion ratio (below it any ratio
/// passes: a small file of repeated text may legitimately inflate a lot).
inline constexpr std::uint64_t inflate_check_after = std::uint64_t{64} << 20;

/// Opens `path`; gzip is recognised by its magic bytes, never by the file name. A gzip source
/// whose inflated bytes pass `max_inflate_ratio` × its compressed bytes (once past
/// inflate_check_after) throws input_limit_error.
[[nodiscard]] std::unique_ptr<byte_source> open_byte_source(
    std::string const& path, std::uint64_t max_inflate_ratio = default_max_inflate_ratio);

/// Reads `bytes` (which must outlive the source) as if they were a file named `name`: gzip
/// (recognised by its magic bytes) inflated by the same code as files, anything else as it is.
/// The raw bytes are handed out at most `max_read` at a time, so callers can cut the stream
/// anywhere. gzip checks `max_inflate_ratio` as open_byte_source does.
[[nodiscard]] std::unique_ptr<byte_source> open_memory_source(
    std::string const& name, std::span<char const> bytes,
    std::size_t max_read = std::numeric_limits<std::size_t>::max(),
    std::uint64_t max_inflate_ratio = default_max_inflate_ratio);

}  // namespace tracesweep::chrome
