// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the gzip byte source (the same inflate code files use) on bytes in memory.
// The first byte picks a mode and the read sizes:
//  - round trip: the rest is plain text, compressed here into one to four gzip members (zlib's
//    deflate) and read back in pieces; the text must come back exactly;
//  - raw: the rest is read as a gzip file, in pieces, and compared with a one-shot inflate of
//    the whole buffer written here (members one after another, nothing but members allowed):
//    same bytes, and an input_error exactly when the one-shot inflate fails.
// Output is capped at 64 MiB per input (a small input can inflate to a lot).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <zlib.h>

#include <tracesweep/error.hpp>

#include "ingest/chrome/byte_source.hpp"
#include "support/gzip_member.hpp"

namespace {

constexpr std::size_t max_output = std::size_t{64} << 20;

[[noreturn]] void fail(char const* why) {
  std::fprintf(stderr, "fuzz_gzip_source: %s\n", why);
  std::abort();
}

/// Everything the byte source gives for `bytes`, `piece` bytes asked per read; false on
/// input_error. Stops after max_output bytes.
bool read_all(std::span<char const> bytes, std::size_t max_read, std::size_t piece,
              std::string& out, std::string& error) {
  try {
    auto source = tracesweep::chrome::open_memory_source("fuzz.gz", bytes, max_read);
    if (bytes.size() >= 2 && !source->compressed()) fail("gzip magic not recognised");
    std::vector<char> buf(piece);
    while (out.size() < max_output) {
      auto const n = source->read(buf.data(), buf.size());
      if (n > buf.size()) fail("read returned more than asked");
      if (n == 0) {
        if (source->read(buf.data(), buf.size()) != 0) fail("bytes after the end");
        break;
      }
      out.append(buf.data(), n);
      if (source->file_bytes_consumed() > bytes.size()) fail("consumed more than the input");
    }
  } catch (tracesweep::input_error const& e) {
    error = e.what();
    return false;
  }
  return true;
}

/// One-shot inflate of gzip members filling all of `bytes`; false when they are not that.
/// Gives up (true, `capped`) past max_output.
bool inflate_members(std::span<char const> bytes, std::string& out, bool& capped) {
  auto const* in = reinterpret_cast<Bytef const*>(bytes.data());
  std::size_t left = bytes.size();
  std::vector<char> buf(1 << 16);
  do {
    if (left < 2 || in[0] != 0x1f || in[1] != 0x8b) return false;
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) std::abort();
    z.next_in = const_cast<Bytef*>(in);
    z.avail_in = static_cast<uInt>(left);
    int rc = Z_OK;
    while (rc == Z_OK) {
      z.next_out = reinterpret_cast<Bytef*>(buf.data());
      z.avail_out = static_cast<uInt>(buf.size());
      rc = inflate(&z, Z_NO_FLUSH);
      out.append(buf.data(), buf.size() - z.avail_out);
      if (out.size() > max_output) {
        inflateEnd(&z);
        capped = true;
        return true;
      }
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) return false;
    in += left - z.avail_in;
    left = z.avail_in;
  } while (left > 0);
  return true;
}

/// `text` as gzip members cut at `cuts`.
std::string compress(std::string_view text, std::vector<std::size_t> const& cuts, int level) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t k = 0; k <= cuts.size(); ++k) {
    std::size_t const to = k < cuts.size() ? cuts[k] : text.size();
    out += tracesweep::test::gzip_member(text.substr(from, to - from), level);
    from = to;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size == 0) return 0;
  auto const control = data[0];
  std::span<char const> const rest(reinterpret_cast<char const*>(data + 1), size - 1);
  std::size_t const max_read = 1 + (control & 0x0f) * 97;       // raw bytes per read of the source
  std::size_t const piece = 1 + ((control >> 4) & 0x07) * 331;  // inflated bytes asked per read
  if ((control & 0x80) != 0) {                                  // round trip
    std::string_view const text(rest.data(), rest.size());
    std::vector<std::size_t> cuts;
    for (std::size_t k = 0; k < 3 && k < text.size(); ++k)
      cuts.push_back((static_cast<unsigned char>(text[k]) * text.size() / 256 + cuts.size()) %
                     (text.size() + 1));
    std::sort(cuts.begin(), cuts.end());
    auto const packed = compress(text, cuts, 1 + control % 9);
    std::string got, error;
    if (!read_all(packed, max_read, piece, got, error))
      fail(("round trip: input_error on valid gzip: " + error).c_str());
    if (got != text) fail("round trip: the text differs");
    return 0;
  }
  if (rest.size() < 2 || data[1] != 0x1f || data[2] != 0x8b) return 0;  // not gzip: plain bytes
  std::string expected, got, error;
  bool capped = false;
  bool const valid = inflate_members(rest, expected, capped);
  bool const ok = read_all(rest, max_read, piece, got, error);
  if (capped) return 0;
  if (ok != valid)
    fail(valid ? ("input_error on valid gzip: " + error).c_str()
               : "invalid gzip read without error");
  if (ok && got != expected) fail("inflated bytes differ from the one-shot inflate");
  return 0;
}
