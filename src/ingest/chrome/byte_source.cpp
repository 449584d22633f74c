// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/byte_source.hpp"

#include <tracesweep/error.hpp>

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

namespace tracesweep::chrome {

namespace {

/// An open file descriptor, read in large blocks.
class file_reader {
 public:
  explicit file_reader(std::string const& path) : _path(path) {
    _fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (_fd < 0) throw input_error(path, "", std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(_fd, &st) == 0) _size = static_cast<std::uint64_t>(st.st_size);
    ::posix_fadvise(_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  file_reader(file_reader const&) = delete;
  file_reader& operator=(file_reader const&) = delete;
  ~file_reader() { ::close(_fd); }

  std::size_t read(char* dst, std::size_t n) {
    for (;;) {
      auto const got = ::read(_fd, dst, n);
      if (got >= 0) {
        _consumed += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
      }
      if (errno == EINTR) continue;
      throw input_error(_path, "byte " + std::to_string(_consumed),
                        std::string("read failed: ") + std::strerror(errno));
    }
  }
  [[nodiscard]] std::uint64_t consumed() const noexcept { return _consumed; }
  [[nodiscard]] std::uint64_t size() const noexcept { return _size; }
  [[nodiscard]] std::string const& path() const noexcept { return _path; }

 private:
  std::string _path;
  int _fd = -1;
  std::uint64_t _size = 0;
  std::uint64_t _consumed = 0;
};

class plain_source final : public byte_source {
 public:
  explicit plain_source(std::string const& path) : _file(path) {}
  std::size_t read(char* dst, std::size_t n) override { return _file.read(dst, n); }
  [[nodiscard]] std::uint64_t file_bytes_consumed() const noexcept override {
    return _file.consumed();
  }
  [[nodiscard]] std::uint64_t file_size() const noexcept override { return _file.size(); }
  [[nodiscard]] bool compressed() const noexcept override { return false; }

 private:
  file_reader _file;
};

/// Bytes in memory, handed out at most `max_read` at a time.
class memory_source final : public byte_source {
 public:
  memory_source(std::span<char const> bytes, std::size_t max_read)
      : _bytes(bytes), _max_read(std::max<std::size_t>(max_read, 1)) {}
  std::size_t read(char* dst, std::size_t n) override {
    n = std::min({n, _max_read, _bytes.size() - _pos});
    if (n > 0) std::memcpy(dst, _bytes.data() + _pos, n);
    _pos += n;
    return n;
  }
  [[nodiscard]] std::uint64_t file_bytes_consumed() const noexcept override { return _pos; }
  [[nodiscard]] std::uint64_t file_size() const noexcept override { return _bytes.size(); }
  [[nodiscard]] bool compressed() const noexcept override { return false; }

 private:
  std::span<char const> _bytes;
  std::size_t _max_read;
  std::size_t _pos = 0;
};

/// What an ISA-L inflate error code means, for the one-line error.
char const* inflate_error_text(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate code";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "the member's CRC-32 or length does not match its data";
    case ISAL_NEED_DICT:
      return "needs a preset dictionary";
    default:
      return "inflate failed";
  }
}

/// gzip (RFC 1952) members, one after another, inflated by ISA-L's igzip (header, CRC-32 and
/// length checked) from a raw source (a file or memory); `path` names it in errors.
class gzip_source final : public byte_source {
 public:
  gzip_source(std::string const& path, std::unique_ptr<byte_source> raw, std::uint64_t max_ratio)
      : _path(path), _raw(std::move(raw)), _in(1 << 20), _max_ratio(max_ratio) {}
  gzip_source(gzip_source const&) = delete;
  gzip_source& operator=(gzip_source const&) = delete;

  std::size_t read(char* dst, std::size_t n) override {
    if (_done || n == 0) return 0;
    // igzip counts in uint32_t: ask for at most 1 GiB per call.
    auto const want = static_cast<std::uint32_t>(std::min<std::size_t>(n, std::size_t{1} << 30));
    _z.next_out = reinterpret_cast<std::uint8_t*>(dst);
    _z.avail_out = want;
    while (_z.avail_out > 0) {
      if (_between_members) {
        // A short read may deliver one byte at a time: a member header's magic and flags need
        // four.
        while (_z.avail_in < 4 && !_eof) fill();
        if (_z.avail_in == 0) {  // clean end after a complete member
          _done = true;
          break;
        }
        if (_z.avail_in < 2 || _z.next_in[0] != 0x1f || _z.next_in[1] != 0x8b)
          throw input_error(_path, where(), "data after the end of the gzip stream");
        // RFC 1952: a reserved flag bit set is an error (zlib refuses it; igzip does not).
        if (_z.avail_in >= 4 && (_z.next_in[3] & 0xE0) != 0)
          throw input_error(_path, where(),
                            "invalid gzip data: invalid gzip header (reserved flag bits set)");
        start_member();
      }
      if (_z.avail_in == 0) {
        if (_eof)
          throw input_error(_path, where(), "truncated gzip stream (unexpected end of file)");
        fill();
        continue;
      }
      auto const rc = isal_inflate(&_z);
      if (rc != ISAL_DECOMP_OK)
        throw input_error(_path, where(),
                          std::string("invalid gzip data: ") + inflate_error_text(rc));
      if (_z.block_state == ISAL_BLOCK_FINISH) _between_members = true;
    }
    auto const produced = want - _z.avail_out;
    _inflated += produced;
    check_ratio();
    return produced;
  }
  [[nodiscard]] std::uint64_t file_bytes_consumed() const noexcept override {
    return _raw->file_bytes_consumed() - _z.avail_in;
  }
  [[nodiscard]] std::uint64_t file_size() const noexcept override { return _raw->file_size(); }
  [[nodiscard]] bool compressed() const noexcept override { return true; }

 private:
  /// A new member begins at next_in: the state is reset (isal_inflate_init clears every field),
  /// the input and output buffers kept.
  void start_member() {
    auto* const in = _z.next_in;
    auto* const out = _z.next_out;
    auto const avail_in = _z.avail_in, avail_out = _z.avail_out;
    isal_inflate_init(&_z);
    _z.crc_flag = ISAL_GZIP;
    _z.next_in = in, _z.avail_in = avail_in;
    _z.next_out = out, _z.avail_out = avail_out;
    _between_members = false;
  }
  void fill() {
    // Keep unconsumed input at the front, then read behind it.
    std::size_t const left = _z.avail_in;
    if (left > 0 && _z.next_in != reinterpret_cast<std::uint8_t*>(_in.data()))
      std::memmove(_in.data(), _z.next_in, left);
    auto const got = _raw->read(_in.data() + left, _in.size() - left);
    if (got == 0) _eof = true;
    _z.next_in = reinterpret_cast<std::uint8_t*>(_in.data());
    _z.avail_in = static_cast<std::uint32_t>(left + got);
  }
  void check_ratio() const {
    auto const compressed = std::max<std::uint64_t>(file_bytes_consumed(), 1);
    if (_inflated <= inflate_check_after || _inflated / compressed < _max_ratio) return;
    throw input_limit_error(_path, where(),
                            "inflates more than " + std::to_string(_max_ratio) + "x (" +
                                std::to_string(_inflated) + " bytes from " +
                                std::to_string(compressed) +
                                " compressed bytes): a decompression bomb, or a trace padded "
                                "with filler",
                            input_limit_error::limit::inflate_ratio, _max_ratio);
  }
  [[nodiscard]] std::string where() const {
    return "compressed byte " + std::to_string(file_bytes_consumed());
  }

  std::string _path;
  std::unique_ptr<byte_source> _raw;
  std::vector<char> _in;
  inflate_state _z{};
  bool _eof = false;
  bool _done = false;
  bool _between_members = true;  ///< at the start of a member (the first one too)
  std::uint64_t _max_ratio;
  std::uint64_t _inflated = 0;
};

}  // namespace

std::unique_ptr<byte_source> open_byte_source(std::string const& path,
                                              std::uint64_t max_inflate_ratio) {
  unsigned char magic[2] = {0, 0};
  {
    file_reader probe(path);
    std::size_t got = 0;
    while (got < 2) {
      auto const n = probe.read(reinterpret_cast<char*>(magic) + got, 2 - got);
      if (n == 0) break;
      got += n;
    }
  }
  auto plain = std::make_unique<plain_source>(path);
  if (magic[0] == 0x1f && magic[1] == 0x8b)
    return std::make_unique<gzip_source>(path, std::move(plain), max_inflate_ratio);
  return plain;
}

std::unique_ptr<byte_source> open_memory_source(std::string const& name,
                                                std::span<char const> bytes, std::size_t max_read,
                                                std::uint64_t max_inflate_ratio) {
  auto plain = std::make_unique<memory_source>(bytes, max_read);
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b)
    return std::make_unique<gzip_source>(name, std::move(plain), max_inflate_ratio);
  return plain;
}

}  // namespace tracesweep::chrome
