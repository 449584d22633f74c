// SPDX-License-Identifier: Apache-2.0
// Test-only helpers for the Chrome-trace tests: whole-file gzip/plain loading with zlib's gzread
// and a deliberately plain recursive-descent JSON parser that keeps numbers as their text, so
// the oracle shares no code with the streaming reader (no simdjson, no splitter).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracesweep::test {

/// Whole content of a file; gzip (any number of members) is inflated by gzread.
inline std::string load_text(std::filesystem::path const& path) {
  gzFile f = gzopen(path.string().c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path.string());
  std::string out;
  char buf[1 << 16];
  for (;;) {
    int const n = gzread(f, buf, sizeof buf);
    if (n < 0) throw std::runtime_error("gzread failed on " + path.string());
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  gzclose(f);
  return out;
}

inline void write_text(std::filesystem::path const& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

inline void write_gzip(std::filesystem::path const& path, std::string_view text) {
  gzFile f = gzopen(path.string().c_str(), "wb6");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
}

struct json {
  enum class type { null, boolean, number, string, array, object } t = type::null;
  std::string text;  ///< number: its literal text; string: unescaped; boolean: "true"/"false"
  std::vector<json> items;
  struct member;  // (a std::pair of an incomplete json is not allowed: a struct defined below)
  std::vector<member> members;

  [[nodiscard]] json const* find(std::string_view key) const;
};

struct json::member {
  std::string key;
  json value;
};

inline json const* json::find(std::string_view key) const {
  for (auto const& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

class json_reader {
 public:
  explicit json_reader(std::string_view s) : _s(s) {}
  json parse_document() {
    json v = value();
    space();
    if (_i != _s.size()) throw std::runtime_error("trailing data");
    return v;
  }

 private:
  void space() {
    while (_i < _s.size() && (_s[_i] == ' ' || _s[_i] == '\n' || _s[_i] == '\r' || _s[_i] == '\t'))
      ++_i;
  }
  char peek() {
    space();
    if (_i >= _s.size()) throw std::runtime_error("unexpected end");
    return _s[_i];
  }
  json value() {
    char const c = peek();
    json v;
    if (c == '{') {
      v.t = json::type::object;
      ++_i;
      if (peek() == '}') return ++_i, v;
      for (;;) {
        if (peek() != '"') throw std::runtime_error("key expected");
        std::string key = string();
        if (peek() != ':') throw std::runtime_error("':' expected");
        ++_i;
        v.members.push_back({std::move(key), value()});
        char const d = peek();
        ++_i;
        if (d == '}') return v;
        if (d != ',') throw std::runtime_error("',' expected");
      }
    }
    if (c == '[') {
      v.t = json::type::array;
      ++_i;
      if (peek() == ']') return ++_i, v;
      for (;;) {
        v.items.push_back(value());
        char const d = peek();
        ++_i;
        if (d == ']') return v;
        if (d != ',') throw std::runtime_error("',' expected");
      }
    }
    if (c == '"') {
      v.t = json::type::string;
      v.text = string();
      return v;
    }
    auto literal = [&](std::string_view w) {
      if (_s.substr(_i, w.size()) != w) throw std::runtime_error("bad literal");
      _i += w.size();
    };
    if (c == 't') return literal("true"), v.t = json::type::boolean, v.text = "true", v;
    if (c == 'f') return literal("false"), v.t = json::type::boolean, v.text = "false", v;
    if (c == 'n') return literal("null"), v;
    auto const start = _i;
    while (_i < _s.size() &&
           std::string_view("+-0123456789.eE").find(_s[_i]) != std::string_view::npos)
      ++_i;
    if (_i == start) throw std::runtime_error("bad value");
    v.t = json::type::number;
    v.text = std::string(_s.substr(start, _i - start));
    return v;
  }
  std::string string() {
    ++_i;  // opening quote
    std::string out;
    for (;;) {
      if (_i >= _s.size()) throw std::runtime_error("unterminated string");
      char const c = _s[_i++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      char const e = _s[_i++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          unsigned cp = std::stoul(std::string(_s.substr(_i, 4)), nullptr, 16);
          _i += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF && _s.substr(_i, 2) == "\\u") {
            unsigned const lo = std::stoul(std::string(_s.substr(_i + 2, 4)), nullptr, 16);
            _i += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default:
          out.push_back(e);
      }
    }
  }

  std::string_view _s;
  std::size_t _i = 0;
};

/// Microsecond literal (no exponent) to ns by digit-string arithmetic, half-to-even.
inline std::int64_t literal_us_to_ns(std::string const& text) {
  if (text.find_first_of("eE") != std::string::npos)
    throw std::runtime_error("exponent in " + text);
  bool const negative = !text.empty() && text[0] == '-';
  std::string const body = negative ? text.substr(1) : text;
  auto const dot = body.find('.');
  std::string const whole = body.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : body.substr(dot + 1);
  std::string const kept = frac.substr(0, std::min<std::size_t>(3, frac.size()));
  std::string const dropped = frac.size() > 3 ? frac.substr(3) : "";
  std::string digits = whole + kept + std::string(3 - kept.size(), '0');
  __int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  if (!dropped.empty()) {
    bool const rest_nonzero = dropped.find_first_not_of('0', 1) != std::string::npos;
    if (dropped[0] > '5' || (dropped[0] == '5' && (rest_nonzero || (v % 2) == 1))) ++v;
  }
  return static_cast<std::int64_t>(negative ? -v : v);
}

}  // namespace tracesweep::test
