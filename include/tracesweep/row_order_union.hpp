// SPDX-License-Identifier: Apache-2.0
// The union per group of items whose groups interleave but each come in start order (the rows of
// an nsys export, whose tables are in start order, by device or thread): one pass holding an open
// member per group, no listing and no sort. Contiguous chunks of the items are swept on their own
// threads; their members, counted per group, are placed group by group, chunk after chunk, and
// swept once more only where a chunk's first member of a group touches what the chunks before it
// left.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include <tracesweep/intervals.hpp>
#include <tracesweep/task_threads.hpp>
#include <tracesweep/uninitialized_vector.hpp>

namespace tracesweep {

namespace row_order_detail {

/// One chunk's sweep: its members in the order they closed, with their groups; per group
/// whether it has non-empty items, the first and last start of those and the end of its last
/// member.
struct chunk {
  std::size_t first = 0, end = 0;
  uninitialized_vector<group_id> group;
  uninitialized_vector<std::int64_t> start, stop;
  std::vector<std::size_t> count;  ///< members per group
  std::vector<std::uint8_t> has;
  std::vector<std::int64_t> first_start, last_start, last_end;
  bool ordered = true;
};

/// Sweeps items [c.first, c.end) of `groups` groups: item(w, i) yields (taken, group, start, end)
/// on worker w. A taken non-empty item extends its group's open member when it starts at or
/// before the member's end, else closes it; one starting before its group's last item stops the
/// sweep (c.ordered false).
template <class Item>
void sweep_chunk(Item const& item, unsigned w, std::size_t groups, chunk& c) {
  c.count.assign(groups, 0), c.has.assign(groups, 0);
  c.first_start.assign(groups, 0), c.last_start.assign(groups, 0), c.last_end.assign(groups, 0);
  std::vector<std::int64_t> open_start(groups);  // of the open member, where last_start is set
  std::size_t n = 0;
  c.group.resize(c.end - c.first), c.start.resize(c.end - c.first), c.stop.resize(c.end - c.first);
  auto const close = [&](group_id g) {
    c.group[n] = g, c.start[n] = open_start[g], c.stop[n] = c.last_end[g];
    ++n, ++c.count[g];
  };
  for (auto i = c.first; i < c.end; ++i) {
    auto const [taken, g, s, e] = item(w, i);
    if (!taken || e <= s) continue;  // an empty interval adds nothing to a union
    auto& last = c.last_start[g];
    if (!c.has[g]) {
      c.has[g] = 1, c.first_start[g] = s;
    } else if (s < last) {
      c.ordered = false;
      return;
    } else if (s <= c.last_end[g]) {
      last = s, c.last_end[g] = std::max(c.last_end[g], e);
      continue;
    } else {
      close(g);
    }
    last = s, open_start[g] = s, c.last_end[g] = e;
  }
  for (group_id g = 0; g < groups; ++g)
    if (c.has[g]) close(g);
  c.group.resize(n), c.start.resize(n), c.stop.resize(n);
}

/// Whether each group's items stay in start order from chunk to chunk, and whether a chunk's
/// first member of a group touches the last one of the chunks before it.
struct seams {
  bool ordered = true;
  bool touching = false;
};

inline seams seams_of(std::vector<chunk> const& chunks, std::size_t groups) {
  seams out;
  for (std::size_t g = 0; g < groups; ++g) {
    chunk const* before = nullptr;  // the last chunk before with items of g
    std::int64_t last_end = 0;      // the greatest member end of g in the chunks before
    for (auto const& c : chunks) {
      if (!c.has[g]) continue;
      if (before != nullptr) {
        out.ordered = out.ordered && c.first_start[g] >= before->last_start[g];
        out.touching = out.touching || c.first_start[g] <= last_end;
      }
      last_end = before == nullptr ? c.last_end[g] : std::max(last_end, c.last_end[g]);
      before = &c;
    }
  }
  return out;
}

/// The chunks' members by group, chunk after chunk within a group, placed on the chunks' threads.
inline interval_union placed(std::vector<chunk> const& chunks, std::size_t groups) {
  auto const workers = chunks.size();
  std::vector<std::size_t> next(groups * workers);  // (group, chunk) → its first place
  std::size_t total = 0;
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t w = 0; w < workers; ++w)
      next[g * workers + w] = total, total += chunks[w].count[g];
  interval_union out;
  out.group.resize(total), out.start.resize(total), out.end.resize(total);
  run_workers(static_cast<unsigned>(workers), [&](unsigned w) {
    auto const& c = chunks[w];
    for (std::size_t k = 0; k < c.group.size(); ++k) {
      auto const at = next[std::size_t{c.group[k]} * workers + w]++;
      out.group[at] = c.group[k], out.start[at] = c.start[k], out.end[at] = c.stop[k];
    }
  });
  return out;
}

/// The union of members already in (group, start) order: the sweep's rule once more.
inline interval_union swept(interval_union const& u) {
  union_builder out(u.size());
  out.add_all(
      [&](std::size_t k) {
        return std::tuple{u.group[k], u.start[k], u.end[k]};
      },
      0, u.size());
  return out.finish();
}

}  // namespace row_order_detail

/// The union per group of n items, item(w, i) yielding (taken, group below `groups`, start, end)
/// for item i on worker w (each worker asks a contiguous range, in order), when each group's
/// taken items come in start order; nullopt as soon as one does not. `workers` chunks, each on
/// its own thread.
template <class Item>
[[nodiscard]] std::optional<interval_union> union_in_row_order(Item const& item, std::size_t n,
                                                               std::size_t groups,
                                                               unsigned workers) {
  using namespace row_order_detail;
  auto const bounds = item_chunks::exactly(0, n, workers);
  std::vector<chunk> chunks(bounds.workers);
  run_workers(bounds.workers, [&](unsigned w) {
    std::tie(chunks[w].first, chunks[w].end) = bounds[w];
    sweep_chunk(item, w, groups, chunks[w]);
  });
  for (auto const& c : chunks)
    if (!c.ordered) return std::nullopt;
  auto const s = seams_of(chunks, groups);
  if (!s.ordered) return std::nullopt;
  auto out = placed(chunks, groups);
  if (s.touching) return swept(out);
  return out;
}

}  // namespace tracesweep
