// SPDX-License-Identifier: Apache-2.0
// The pages of an SQLite database file, read without SQLite (the file format is documented and
// stable: sqlite.org/fileformat2.html): the header's page size and usable size, and page N, from
// a file (a window of consecutive pages per read) or from an image in memory. Used to read the
// hot nsys tables' B-trees directly; anything it cannot vouch for is a page_format_error, on which
// the caller falls back to SQLite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tracesweep::nsys {

/// The bytes are not what this reader expects (a page out of range, a short read, a B-tree or
/// record it does not handle); SQLite reads the same rows instead.
class page_format_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One page source per thread: it keeps a window of pages and is not shared.
class page_reader {
 public:
  /// Reads the file at `path` (opened here, closed on destruction).
  explicit page_reader(std::string const& path);
  /// Reads a database image the caller keeps alive.
  explicit page_reader(std::span<std::byte const> image);
  page_reader(page_reader const&) = delete;
  page_reader& operator=(page_reader const&) = delete;
  ~page_reader();

  /// Page `number` (1-based), page_size bytes, valid until the next call.
  [[nodiscard]] std::span<std::uint8_t const> page(std::int64_t number);
  [[nodiscard]] std::uint32_t page_size() const noexcept { return _page_size; }
  /// The page size less the reserved bytes at each page's end.
  [[nodiscard]] std::uint32_t usable_size() const noexcept { return _usable_size; }
  [[nodiscard]] std::int64_t page_count() const noexcept { return _page_count; }

 private:
  void read_header(std::span<std::uint8_t const> head);
  void fill_window(std::int64_t first);

  int _fd = -1;
  std::span<std::uint8_t const> _image;
  std::uint32_t _page_size = 0;
  std::uint32_t _usable_size = 0;
  std::int64_t _page_count = 0;
  std::vector<std::uint8_t> _window;  // pages [_window_first, _window_first + _window_pages)
  std::int64_t _window_first = 0;
  std::int64_t _window_pages = 0;
};

}  // namespace tracesweep::nsys
