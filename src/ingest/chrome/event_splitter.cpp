// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/event_splitter.hpp"

#include <tracesweep/error.hpp>

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TRACESWEEP_AVX512_SPLITTER 1
#endif

#include "ingest/chrome/json_space.hpp"

namespace tracesweep::chrome {

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);
constexpr std::size_t min_read = std::size_t{1} << 20;

/// Bytes asked of the source at least per read: min_read, or for a plain source smaller than
/// that its size + 1 (enough to see its end), so a small file does not get megabytes of buffer.
std::size_t read_size(byte_source const& source) noexcept {
  auto const size = source.file_size();
  return !source.compressed() && size > 0 && size < min_read ? static_cast<std::size_t>(size) + 1
                                                             : min_read;
}

/// First '"' or '\\' in [p, end), or end.
char const* find_string_special(char const* p, char const* end) noexcept {
#if defined(__SSE2__)
  auto const quote = _mm_set1_epi8('"');
  auto const backslash = _mm_set1_epi8('\\');
  for (; p + 16 <= end; p += 16) {
    auto const v = _mm_loadu_si128(reinterpret_cast<__m128i const*>(p));
    auto const hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
    if (auto const mask = _mm_movemask_epi8(hit); mask != 0) return p + __builtin_ctz(mask);
  }
#endif
  for (; p < end; ++p)
    if (*p == '"' || *p == '\\') return p;
  return end;
}

/// Bit i of each mask describes byte i of a 64-byte block.
struct block_masks {
  std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

block_masks classify_block(char const* p) noexcept {
  block_masks m;
#if defined(__SSE2__)
  auto const quote = _mm_set1_epi8('"');
  auto const backslash = _mm_set1_epi8('\\');
  auto const curly_open = _mm_set1_epi8('{'), square_open = _mm_set1_epi8('[');
  auto const curly_close = _mm_set1_epi8('}'), square_close = _mm_set1_epi8(']');
  for (int k = 0; k < 4; ++k) {
    auto const v = _mm_loadu_si128(reinterpret_cast<__m128i const*>(p + 16 * k));
    auto bits = [&](__m128i hit) {
      return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(hit)))
             << (16 * k);
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, quote));
    m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
    m.open |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, curly_open), _mm_cmpeq_epi8(v, square_open)));
    m.close |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, curly_close), _mm_cmpeq_epi8(v, square_close)));
  }
#else
  for (int i = 0; i < 64; ++i) {
    auto const bit = std::uint64_t{1} << i;
    char const c = p[i];
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if (c == '{' || c == '[') m.open |= bit;
    if (c == '}' || c == ']') m.close |= bit;
  }
#endif
  return m;
}

#if defined(TRACESWEEP_AVX512_SPLITTER)
/// classify_block with one 64-byte compare per character (AVX-512BW), for CPUs that have it.
struct avx512_classifier {
  __attribute__((target("avx512bw"))) block_masks operator()(char const* p) const noexcept {
    auto const v = _mm512_loadu_si512(p);
    return {_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"')),
            _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\')),
            _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('{')) |
                _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('[')),
            _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('}')) |
                _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(']'))};
  }
};

bool has_avx512bw() noexcept {
  static bool const yes = __builtin_cpu_supports("avx512bw");
  return yes;
}
#endif

std::atomic<bool> avx512_allowed{true};

/// Bits of the bytes that follow an unescaped backslash. `carry`: the block's first byte is
/// escaped by a backslash ending the previous block (updated for the next block).
std::uint64_t escaped_bits(std::uint64_t backslash, bool& carry) noexcept {
  std::uint64_t escaped = 0;
  if (carry) {
    escaped = 1;
    backslash &= ~std::uint64_t{1};
    carry = false;
  }
  while (backslash != 0) {  // rare in traces: a plain loop over the backslashes
    int const i = __builtin_ctzll(backslash);
    if (i == 63) {
      carry = true;
      break;
    }
    escaped |= std::uint64_t{1} << (i + 1);
    backslash &= ~(std::uint64_t{1} << (i + 1));  // an escaped backslash escapes nothing
    backslash &= backslash - 1;
  }
  return escaped;
}

/// Bit i set when an odd number of quote bits are at positions <= i (inside a string).
constexpr std::uint64_t prefix_xor(std::uint64_t x) noexcept {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace

event_splitter::event_splitter(byte_source& source, std::string path, std::size_t chunk_bytes,
                               std::uint64_t max_value_bytes)
    : _source(source),
      _path(std::move(path)),
      _chunk_bytes(std::max<std::size_t>(chunk_bytes, 1)),
      _max_value_bytes(max_value_bytes),
      _min_read(read_size(source)) {
  if (_min_read < min_read)
    grow(2 * _min_read);  // the whole file, then the read that finds its end
  else
    grow(std::max<std::size_t>(4 * _chunk_bytes, 4 * min_read));
}

void event_splitter::grow(std::size_t bytes) {
  // Not zeroed: a page is touched only when a read fills it (a small .gz file reads a few of the
  // window's 16 MiB).
  auto bigger = std::make_unique_for_overwrite<char[]>(bytes);
  if (_fill > 0) std::memcpy(bigger.get(), _buf.get(), _fill);
  _buf = std::move(bigger);
  _capacity = bytes;
}

std::string event_splitter::at_byte(std::uint64_t offset) const {
  return "byte " + std::to_string(offset);
}

void event_splitter::fail(std::uint64_t offset, std::string const& why) const {
  throw input_error(_path, at_byte(offset), why);
}

void event_splitter::check_kept_bytes() const {
  if (_mark == npos ||
      _fill - _mark <= _max_value_bytes + (_phase == phase::events ? _chunk_bytes : 0))
    return;
  // A chunk is cut at the first event boundary past _chunk_bytes, so more kept bytes mean one
  // event (or the whitespace before it), or one top-level value, is longer than the limit.
  fail_too_long(_base + _fill,
                _phase == phase::events ? too_long::event_with_space : too_long::top_level_value);
}

void event_splitter::fail_too_long(std::uint64_t offset, too_long what) const {
  std::string named = "a top-level value";
  if (what != too_long::top_level_value) {
    named = "event ";
    named += std::to_string(_event_index);
    if (what == too_long::event_with_space) named += " (with the whitespace before it)";
  }
  throw input_limit_error(_path, at_byte(offset),
                          named + " is longer than " + std::to_string(_max_value_bytes) + " bytes",
                          input_limit_error::limit::event_bytes, _max_value_bytes);
}

bool event_splitter::refill() {
  if (_eof) return false;
  check_kept_bytes();
  std::size_t const keep_from = std::min(_mark, _pos);
  if (keep_from > 0) {
    std::memmove(_buf.get(), _buf.get() + keep_from, _fill - keep_from);
    _fill -= keep_from;
    _pos -= keep_from;
    if (_mark != npos) _mark -= keep_from;
    _base += keep_from;
  }
  if (_capacity - _fill < _min_read) grow(std::max(2 * _capacity, _fill + _min_read));
  auto const got = _source.read(_buf.get() + _fill, _capacity - _fill);
  if (got == 0) {
    _eof = true;
    return false;
  }
  _fill += got;
  return true;
}

int event_splitter::peek_nonspace() {
  for (;;) {
    while (_pos < _fill && is_json_space(_buf[_pos])) ++_pos;
    if (_pos < _fill) return static_cast<unsigned char>(_buf[_pos]);
    if (!refill()) return -1;
  }
}

void event_splitter::expect(char c, char const* what) {
  auto const got = peek_nonspace();
  if (got == -1) fail(_base + _pos, std::string("truncated JSON: end of input, expected ") + what);
  if (got != static_cast<unsigned char>(c))
    fail(_base + _pos, std::string("invalid JSON: expected ") + what);
  ++_pos;
}

std::string event_splitter::read_key() {
  auto const saved = _mark;
  _mark = _pos;
  auto const start = _base + _pos;
  scan_value();
  std::string_view const quoted(_buf.get() + _mark, _pos - _mark);
  _mark = saved;
  // A key is compared with the names the reader knows, so it must be valid JSON: a control
  // byte or a bad escape in it is an error, never a key that silently matches nothing.
  auto const control = std::find_if(quoted.begin(), quoted.end(),
                                    [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  if (control != quoted.end())
    fail(start + static_cast<std::uint64_t>(control - quoted.begin()),
         "invalid JSON: unescaped control byte in a key");
  if (quoted.find('\\') == std::string_view::npos)
    return std::string(quoted.substr(1, quoted.size() - 2));
  simdjson::padded_string json(quoted);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  std::string_view key;
  if (parser.iterate(json).get(doc) || doc.get_string().get(key))
    fail(start, "invalid JSON: bad escape in a key");
  return std::string(key);
}

void event_splitter::skip_value(std::string* capture) {
  auto const saved = _mark;
  if (capture) _mark = _pos;
  scan_value();
  if (capture && _pos - _mark > _max_value_bytes)
    fail_too_long(_base + _mark, too_long::top_level_value);
  if (capture) capture->assign(_buf.get() + _mark, _pos - _mark);
  _mark = saved;
}

void event_splitter::fail_truncated(std::uint64_t start) const {
  fail(_base + _fill, "truncated JSON: end of input inside the value that starts at byte " +
                          std::to_string(start));
}

void event_splitter::scan_value() {
  auto const start = _base + _pos;
  char const first = _buf[_pos];
  if (first == '{' || first == '[') {
    scan_container(start);
    return;
  }
  if (first == '"') {
    scan_string(start);
    return;
  }
  // A scalar: number, true, false, null.
  if (!(first == '-' || (first >= '0' && first <= '9') || first == 't' || first == 'f' ||
        first == 'n'))
    fail(start, std::string("invalid JSON: unexpected '") + first + "'");
  scan_scalar();
}

template <class Classify>
[[gnu::always_inline]] inline void event_splitter::scan_container_by(std::uint64_t start,
                                                                     Classify classify) {
  // 64 bytes at a time: quotes not escaped toggle the in-string state (prefix xor), and
  // only brackets outside strings count.
  _stack.clear();
  std::uint64_t in_string_carry = 0;  // all ones when the previous block ended in a string
  bool escape_carry = false;
  std::uint64_t backslashes = 0;  // of the blocks before (the chunk's backslash_free)
  std::size_t p = _pos;
  char tail[64];
  for (;;) {
    if (_fill - p < 64 && !_eof) {
      _pos = p;
      refill();
      p = _pos;
      continue;
    }
    auto const avail = _fill - p;
    if (avail == 0) fail_truncated(start);
    char const* block = _buf.get() + p;
    if (avail < 64) {
      std::memcpy(tail, block, avail);
      std::memset(tail + avail, ' ', 64 - avail);
      block = tail;
    }
    auto const m = classify(block);
    auto const escaped = (m.backslash | escape_carry) ? escaped_bits(m.backslash, escape_carry) : 0;
    auto const in_string = prefix_xor(m.quote & ~escaped) ^ in_string_carry;
    in_string_carry = static_cast<std::uint64_t>(static_cast<std::int64_t>(in_string) >> 63);
    auto brackets = (m.open | m.close) & ~in_string;
    while (brackets != 0) {
      int const i = __builtin_ctzll(brackets);
      brackets &= brackets - 1;
      char const c = block[i];
      if (c == '{' || c == '[') {
        _stack.push_back(c);
        continue;
      }
      char const open = c == '}' ? '{' : '[';
      if (_stack.back() != open)
        fail(_base + p + static_cast<std::size_t>(i),
             std::string("invalid JSON: '") + c + "' closes '" + _stack.back() + "'");
      _stack.pop_back();
      if (_stack.empty()) {
        _pos = p + static_cast<std::size_t>(i) + 1;
        // This block's backslashes up to the closing bracket: those past it are the next event's.
        auto const through = i == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << i) - 1;
        _chunk_backslash = _chunk_backslash || (backslashes | (m.backslash & through)) != 0;
        return;
      }
    }
    if (avail < 64) fail_truncated(start);
    backslashes |= m.backslash;
    p += 64;
  }
}

#if defined(TRACESWEEP_AVX512_SPLITTER)
__attribute__((target("avx512bw"))) void event_splitter::scan_container_avx512(
    std::uint64_t start) {
  scan_container_by(start, avx512_classifier{});
}
#endif

void allow_avx512_blocks(bool allowed) noexcept {
  avx512_allowed.store(allowed, std::memory_order_relaxed);
}

void event_splitter::scan_container(std::uint64_t start) {
#if defined(TRACESWEEP_AVX512_SPLITTER)
  if (has_avx512bw() && avx512_allowed.load(std::memory_order_relaxed))
    return scan_container_avx512(start);
#endif
  scan_container_by(start, [](char const* p) { return classify_block(p); });
}

void event_splitter::scan_string(std::uint64_t start) {
  ++_pos;
  for (;;) {
    char const* const buf = _buf.get();
    char const* const end = buf + _fill;
    auto const q = find_string_special(buf + _pos, end);
    if (q == end) {
      _pos = _fill;
      if (!refill()) fail_truncated(start);
      continue;
    }
    if (*q == '\\') {
      _chunk_backslash = true;
      if (q + 1 == end) {  // the escaped byte is not here yet
        _pos = static_cast<std::size_t>(q - buf);
        if (!refill()) fail_truncated(start);
        continue;
      }
      _pos = static_cast<std::size_t>(q - buf) + 2;
      continue;
    }
    _pos = static_cast<std::size_t>(q - buf) + 1;
    return;
  }
}

void event_splitter::scan_scalar() {
  for (;;) {
    while (_pos < _fill) {
      char const c = _buf[_pos];
      if (c == ',' || c == '}' || c == ']' || is_json_space(c)) return;
      ++_pos;
    }
    if (!refill()) return;
  }
}

void event_splitter::read_top_level_keys() {
  // Called after '{' (expecting a key or '}') or right after traceEvents' value.
  bool after_value = _seen_events && _phase == phase::keys;
  for (;;) {
    if (after_value) {
      auto const c = peek_nonspace();
      if (c == '}') {
        ++_pos;
        finish();
        return;
      }
      expect(',', "',' or '}' in the top-level object");
    }
    auto c = peek_nonspace();
    if (c == '}' && !after_value) {
      ++_pos;
      finish();
      return;
    }
    if (c == -1) fail(_base + _pos, "truncated JSON: end of input in the top-level object");
    if (c != '"') fail(_base + _pos, "invalid JSON: expected a key in the top-level object");
    auto const key = read_key();
    expect(':', "':' after a key");
    c = peek_nonspace();
    if (c == -1) fail(_base + _pos, "truncated JSON: end of input after key \"" + key + "\"");
    if (key == "traceEvents") {
      if (_seen_events) fail(_base + _pos, "traceEvents appears twice");
      if (c != '[') fail(_base + _pos, "traceEvents is not an array");
      ++_pos;
      _seen_events = true;
      _phase = phase::events;
      return;
    }
    bool const wanted = key == "distributedInfo" || key == "baseTimeNanoseconds" ||
                        key == "schemaVersion" || key == "ExtraInfo" || key == "deviceProperties";
    std::string text;
    skip_value(wanted ? &text : nullptr);
    if (wanted) apply_header_value(key, text);
    after_value = true;
  }
}

void event_splitter::finish() {
  if (!_header.bare_array && !_seen_events)
    fail(_base + _pos, "not a trace: the top-level object has no traceEvents");
  if (peek_nonspace() != -1) fail(_base + _pos, "invalid JSON: data after the end of the trace");
  _phase = phase::done;
}

void event_splitter::read_start() {
  if (!refill()) fail(0, "empty file");
  // UTF-8 byte order mark (a source may hand out fewer than its three bytes in one read).
  while (_fill < 3 && refill()) {
  }
  if (_fill >= 3 && std::memcmp(_buf.get(), "\xEF\xBB\xBF", 3) == 0) _pos = 3;
  auto const c = peek_nonspace();
  if (c == '[') {
    _header.bare_array = true;
    _seen_events = true;
    ++_pos;
    _phase = phase::events;
  } else if (c == '{') {
    ++_pos;
    _phase = phase::keys;
    read_top_level_keys();
  } else if (c == -1) {
    fail(_base + _pos, "not a trace: no JSON value");
  } else {
    fail(_base + _pos, "not a trace: the file is not a JSON object or array");
  }
}

void event_splitter::emit_chunk(event_chunk& out, std::uint64_t last_end) {
  auto const begin = _mark;
  auto const len = static_cast<std::size_t>(last_end - _base) - begin;
  out.text.resize(len + 2 + simdjson::SIMDJSON_PADDING);
  out.text[0] = '[';
  std::memcpy(out.text.data() + 1, _buf.get() + begin, len);
  out.text[len + 1] = ']';
  std::memset(out.text.data() + len + 2, 0, simdjson::SIMDJSON_PADDING);
  out.length = len + 2;
  out.backslash_free = !_chunk_backslash;
  _mark = npos;
}

bool event_splitter::next(event_chunk& out) {
  if (_phase == phase::start) read_start();
  while (_phase == phase::keys) read_top_level_keys();
  if (_phase == phase::done) return false;

  // phase::events: right after '[' or after a ',' that follows a complete chunk.
  out.events = 0;
  out.first_event = _event_index;
  std::uint64_t last_end = 0;
  bool const array_start = _event_index == 0;
  for (;;) {
    auto c = peek_nonspace();
    if (c == -1) fail(_base + _pos, "truncated JSON: end of input inside traceEvents");
    if (c == ']' && array_start && out.events == 0) {  // empty array
      ++_pos;
      break;
    }
    if (c == ']') fail(_base + _pos, "invalid JSON: ',' before ']' in traceEvents");
    if (c != '{')
      fail(_base + _pos, "not a trace: event " + std::to_string(_event_index) +
                             " of traceEvents is not a JSON object");
    if (out.events == 0) {
      _mark = _pos;
      out.byte_offset = _base + _pos;
      _chunk_backslash = false;
    }
    auto const event_start = _base + _pos;
    scan_value();
    last_end = _base + _pos;
    if (last_end - event_start > _max_value_bytes) fail_too_long(event_start, too_long::event);
    ++out.events;
    ++_event_index;
    c = peek_nonspace();
    if (c == ',') {
      ++_pos;
      if (last_end - out.byte_offset >= _chunk_bytes) {
        emit_chunk(out, last_end);
        return true;
      }
      continue;
    }
    if (c == ']') {
      ++_pos;
      emit_chunk(out, last_end);
      _phase = _header.bare_array ? phase::done : phase::keys;
      if (_header.bare_array) finish();
      return true;
    }
    if (c == -1) fail(_base + _pos, "truncated JSON: end of input inside traceEvents");
    fail(_base + _pos,
         "invalid JSON: expected ',' or ']' after event " + std::to_string(_event_index - 1));
  }
  // Empty traceEvents.
  _phase = _header.bare_array ? phase::done : phase::keys;
  if (_header.bare_array) finish();
  while (_phase == phase::keys) read_top_level_keys();
  return false;
}

}  // namespace tracesweep::chrome
