// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the Chrome-trace reader core (event splitter, event parser, classifier, the
// in-order merge) on bytes in memory. Each input is read twice, once whole with the reader's
// default chunk size and once cut into small chunks and small reads (sizes taken from the
// input's last two bytes; trailing whitespace gives the smallest), optionally gzip-compressed
// first: both reads must give the same table, or both must fail with input_error. Any other
// exception, or a sanitizer report, is a bug.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <tracesweep/error.hpp>
#include <tracesweep/event_table.hpp>

#include "ingest/chrome/byte_source.hpp"
#include "ingest/chrome/chrome_source_reader.hpp"
#include "support/gzip_member.hpp"

namespace {

using namespace tracesweep;

/// The table read from `bytes`, or nullopt when the reader refused them with input_error (whose
/// message goes to `error`).
std::optional<event_table> read(std::span<char const> bytes, std::size_t max_read,
                                std::size_t chunk_bytes, std::string& error) {
  event_table table;
  read_options options;
  options.threads = 1;
  try {
    auto source = chrome::open_memory_source("fuzz.json", bytes, max_read);
    chrome::read_chrome_source(*source, "fuzz.json", table, options, chunk_bytes);
  } catch (input_error const& e) {
    error = e.what();
    return std::nullopt;
  }
  return table;
}

template <class T>
bool same_bits(std::vector<T> const& a, std::vector<T> const& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

bool same(event_table const& a, event_table const& b) {
  if (a.size() != b.size() || a.strings().size() != b.strings().size()) return false;
  for (std::size_t i = 0; i < a.strings().size(); ++i)
    if (a.strings().at(static_cast<string_id>(i)) != b.strings().at(static_cast<string_id>(i)))
      return false;
  auto const& ia = a.inputs().back();
  auto const& ib = b.inputs().back();
  return same_bits(a.start_ns, b.start_ns) && same_bits(a.end_ns, b.end_ns) &&
         same_bits(a.kind, b.kind) && same_bits(a.subkind, b.subkind) &&
         same_bits(a.rank, b.rank) && same_bits(a.device, b.device) &&
         same_bits(a.stream, b.stream) && same_bits(a.name, b.name) &&
         same_bits(a.category, b.category) && same_bits(a.correlation, b.correlation) &&
         same_bits(a.byte_counts.row, b.byte_counts.row) &&
         same_bits(a.byte_counts.values, b.byte_counts.values) && same_bits(a.role, b.role) &&
         same_bits(a.launch_metrics.row, b.launch_metrics.row) &&
         same_bits(a.launch_metrics.blocks_per_sm, b.launch_metrics.blocks_per_sm) &&
         same_bits(a.launch_metrics.est_occupancy_pct, b.launch_metrics.est_occupancy_pct) &&
         same_bits(a.memory.time_ns, b.memory.time_ns) && same_bits(a.memory.rank, b.memory.rank) &&
         same_bits(a.memory.device, b.memory.device) &&
         same_bits(a.memory.thread, b.memory.thread) && same_bits(a.memory.bytes, b.memory.bytes) &&
         same_bits(a.memory.pool, b.memory.pool) &&
         same_bits(a.memory.allocated, b.memory.allocated) &&
         same_bits(a.memory.reserved, b.memory.reserved) && ia.format == ib.format &&
         ia.skipped == ib.skipped && ia.ranks == ib.ranks;
}

/// The size `sizes` gives a JSON whitespace byte (space, newline, tab, carriage return, in that
/// order), or nullopt for any other byte.
std::optional<std::size_t> whitespace_size(std::uint8_t byte, std::array<std::size_t, 4> sizes) {
  constexpr std::array<std::uint8_t, 4> whitespace = {' ', '\n', '\t', '\r'};
  for (std::size_t i = 0; i < whitespace.size(); ++i)
    if (byte == whitespace[i]) return sizes[i];
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::span<char const> bytes(reinterpret_cast<char const*>(data), size);
  // The last two bytes choose how the second read cuts the stream; they stay part of the JSON.
  // A trace can end only in whitespace, so whitespace picks the smallest sizes (1-byte reads and
  // chunks of one event), which a read that succeeds would otherwise never get.
  std::size_t chunk = 1, max_read = 1;
  bool compress = false;
  if (size >= 2) {
    auto const a = data[size - 2], b = data[size - 1];
    chunk = whitespace_size(a, {1, 64, 333, 4096}).value_or(1 + (a & 0x7f) * 13);
    max_read = whitespace_size(b, {1, 2, 5, 63}).value_or(1 + b * 7);
    compress = (a & 0x80) != 0 && size < (1 << 16);
  }
  std::string whole_error, cut_error;
  auto const whole =
      read(bytes, static_cast<std::size_t>(-1), chrome::default_chunk_bytes, whole_error);
  std::string packed;
  if (compress && (size < 2 || data[0] != 0x1f || data[1] != 0x8b)) {
    packed = test::gzip_member({bytes.data(), bytes.size()}, 1);
    bytes = packed;
  }
  auto const cut = read(bytes, max_read, chunk, cut_error);
  if (whole.has_value() != cut.has_value() || (whole && !same(*whole, *cut))) {
    std::fprintf(stderr,
                 "fuzz_chrome_events: read in chunks of %zu bytes, %zu bytes a read%s: %s\n", chunk,
                 max_read, packed.empty() ? "" : ", gzip",
                 whole.has_value() != cut.has_value() ? "one read failed, the other did not"
                                                      : "the tables differ");
    if (!whole)
      std::fprintf(stderr, "fuzz_chrome_events: the whole read failed: %s\n", whole_error.c_str());
    if (!cut)
      std::fprintf(stderr, "fuzz_chrome_events: the cut read failed: %s\n", cut_error.c_str());
    std::abort();
  }
  return 0;
}
