// SPDX-License-Identifier: Apache-2.0
// SQLite's on-disk encodings (sqlite.org/fileformat2.html): big-endian page fields, the
// variable-length integer, and a record's header of serial types with the integer values they
// encode. Malformed bytes are reported as such (a zero length, false), never read past.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tracesweep::nsys {

/// The big-endian 2- and 4-byte integers of page headers, cell pointers and child page numbers.
inline std::uint32_t big_endian16(std::uint8_t const* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) << 8 | p[1];
}
inline std::uint32_t big_endian32(std::uint8_t const* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

/// Reads the varint at `p` (at most up to `end`) into `value`; its length in bytes, 0 when it
/// runs past `end`.
inline std::size_t read_varint(std::uint8_t const* p, std::uint8_t const* end,
                               std::uint64_t& value) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    if (p + i >= end) return 0;
    v = (v << 7) | (p[i] & 0x7Fu);
    if ((p[i] & 0x80u) == 0) {
      value = v;
      return i + 1;
    }
  }
  if (p + 8 >= end) return 0;
  value = (v << 8) | p[8];  // the ninth byte gives all eight of its bits
  return 9;
}

/// One column of a record: its serial type and where its value starts in the payload.
struct record_value {
  std::uint64_t serial =
      0;  ///< 0 NULL, 1–6 integers, 7 real, 8 and 9 the integers 0 and 1, ≥ 12 blob/text
  std::uint32_t offset = 0;
};

/// Bytes a value of serial type `serial` takes in the record's body.
constexpr std::uint64_t value_bytes(std::uint64_t serial) noexcept {
  constexpr std::uint8_t fixed[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
  return serial < 12 ? fixed[serial] : (serial - 12) / 2;
}

/// True for the serial types SQLite returns as an INTEGER value.
constexpr bool is_integer_serial(std::uint64_t serial) noexcept {
  return (serial >= 1 && serial <= 6) || serial == 8 || serial == 9;
}

/// Decodes the serial types of columns [0, columns) of `payload` into `out`; a record with fewer
/// columns gives the rest NULL (a column added by ALTER TABLE, when its default is NULL). False
/// when the header or a value runs past the payload or uses a reserved serial type (10, 11).
inline bool decode_record(std::span<std::uint8_t const> payload, std::size_t columns,
                          record_value* out) noexcept {
  auto const* const base = payload.data();
  auto const* const end = base + payload.size();
  std::uint64_t header = 0;
  auto n = read_varint(base, end, header);
  if (n == 0 || header < n || header > payload.size()) return false;
  auto const* p = base + n;
  auto const* const header_end = base + header;
  std::uint64_t body = header;
  std::size_t c = 0;
  for (; c < columns && p < header_end; ++c) {
    std::uint64_t serial = 0;
    n = read_varint(p, header_end, serial);
    if (n == 0 || serial == 10 || serial == 11) return false;
    p += n;
    out[c] = {serial, static_cast<std::uint32_t>(body)};
    body += value_bytes(serial);
    if (body > payload.size()) return false;
  }
  for (; c < columns; ++c) out[c] = {0, 0};
  return true;
}

/// The integer a value of an integer serial type (or NULL, as 0) holds: big-endian two's
/// complement of 1–8 bytes. The value's bytes lie within the payload (decode_record checked).
inline std::int64_t integer_value(std::uint8_t const* payload, record_value v) noexcept {
  if (v.serial == 9) return 1;
  if (v.serial == 0 || v.serial == 8 || v.serial > 6) return 0;
  auto const bytes = value_bytes(v.serial);
  auto const* p = payload + v.offset;
  std::uint64_t u = p[0] & 0x80u ? ~std::uint64_t{0} : 0;  // sign extension
  for (std::uint64_t i = 0; i < bytes; ++i) u = (u << 8) | p[i];
  return static_cast<std::int64_t>(u);
}

}  // namespace tracesweep::nsys
