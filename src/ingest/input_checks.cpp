// SPDX-License-Identifier: Apache-2.0
// What inputs claim beyond their events: the rank number a file's name carries, and whether an
// input's clock lies far from the others' of its job.
#include <tracesweep/input_reader.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

#include <re2/re2.h>

namespace tracesweep {

std::optional<rank_token> rank_in_file_name(std::string const& file_name) {
  // A token: rank, worker, proc, gpu or node (any case) not inside a word, an optional
  // separator, digits not followed by a letter or digit.
  static RE2 const token(R"((?i)(?:^|[^a-z])(?:rank|worker|proc|gpu|node)[-_.]?(\d+))");
  static RE2 const bare(R"((\d+)\..*)");
  std::optional<rank_token> found;
  auto const take = [&](std::string_view text, std::string_view digits) {
    rank_token t{static_cast<std::size_t>(digits.data() - text.data()), digits.size(), 0};
    auto const [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t.rank);
    found = ec == std::errc() ? std::optional(t) : std::nullopt;
  };
  std::string_view const text(file_name);
  re2::StringPiece digits;
  if (RE2::FullMatch(file_name, bare, &digits)) {
    take(text, std::string_view(digits.data(), digits.size()));
    return found;
  }
  // The last rank token wins ("run3.rank-1.json": rank 1). A token followed by a letter is no
  // token; the search goes on from the character after its start.
  for (std::size_t from = 0; from < text.size();) {
    re2::StringPiece groups[2];
    if (!token.Match(file_name, from, text.size(), RE2::UNANCHORED, groups, 2)) break;
    auto const after = static_cast<std::size_t>(groups[1].data() + groups[1].size() - text.data());
    bool const ends_word =
        after == text.size() || !std::isalnum(static_cast<unsigned char>(text[after]));
    if (ends_word) {
      take(text, std::string_view(groups[1].data(), groups[1].size()));
      from = after;
    } else {
      from = static_cast<std::size_t>(groups[0].data() - text.data()) + 1;
    }
  }
  return found;
}

namespace {

struct window {
  std::int64_t first = 0, last = 0;
  std::size_t input = 0;
};

/// The window (first start, last end) of every input with rows, by start.
std::vector<window> input_windows(event_table const& table) {
  std::vector<window> out;
  for (std::size_t k = 0; k < table.inputs().size(); ++k) {
    auto const [first, end] = table.input_rows(k);
    if (first == end) continue;
    window w{table.start_ns[first], table.end_ns[first], k};
    for (auto i = first; i < end; ++i)
      w.first = std::min(w.first, table.start_ns[i]), w.last = std::max(w.last, table.end_ns[i]);
    out.push_back(w);
  }
  std::sort(out.begin(), out.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
  return out;
}

}  // namespace

std::vector<clock_outlier> find_clock_outliers(event_table const& table,
                                               std::int64_t threshold_ns) {
  if (table.inputs().size() < 2) return {};  // (no other input to lie apart from)
  auto const windows = input_windows(table);
  // Groups of windows, each starting within the threshold of the group's last end so far.
  struct group {
    std::int64_t first = 0, last = 0;
    std::size_t windows = 0;
  };
  std::vector<group> groups;
  for (auto const& w : windows) {
    if (!groups.empty() && w.first - groups.back().last <= threshold_ns) {
      groups.back().last = std::max(groups.back().last, w.last);
      ++groups.back().windows;
      continue;
    }
    groups.push_back({w.first, w.last, 1});
  }
  if (groups.size() < 2) return {};
  group main = groups.front();
  for (auto const& g : groups)
    if (g.windows >= main.windows) main = g;  // the later group on a tie
  std::vector<clock_outlier> out;
  for (auto const& w : windows) {
    if (w.first >= main.first && w.last <= main.last) continue;  // in the main group
    auto const apart = w.last < main.first ? main.first - w.last : w.first - main.last;
    out.push_back({w.input, apart});
  }
  std::sort(out.begin(), out.end(), [](auto const& a, auto const& b) { return a.input < b.input; });
  return out;
}

}  // namespace tracesweep
