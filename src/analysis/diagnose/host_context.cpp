// SPDX-License-Identifier: Apache-2.0
// The host activity of some threads during an interval: which rows were in progress and how much
// of the interval each cause covers. One sweep over the interval's boundaries: the precedence
// classes (sync, memcpy, communication, data loading) win wherever they are in progress; then the
// time after a synchronising call until the thread's next launch counts as sync; then the
// innermost row in progress decides between launch and host compute; uncovered time is unknown.
#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <type_traits>

#include <tbb/parallel_for.h>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// Rows up to 2^20 ns (about 1 ms) are found by a binary search on their start, looking back
/// that far; longer ones are kept apart by duration class, each class searched the same way.
constexpr int short_bits = 20;
constexpr std::int64_t long_row_ns = std::int64_t{1} << short_bits;

/// 0 for a short row, else c ≥ 1 with the duration in (2^(19+c), 2^(20+c)].
std::size_t duration_class(event_table const& t, std::size_t r) {
  auto const d = t.end_ns[r] - t.start_ns[r];
  if (d <= long_row_ns) return 0;
  return static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(d - 1) >> short_bits));
}

}  // namespace

namespace {

/// Whether [s, e] meets one of `windows` (one thread's, merged: disjoint, by start).
bool meets(std::span<host_index::query const> windows, std::int64_t s, std::int64_t e) {
  auto const k =
      std::lower_bound(windows.begin(), windows.end(), s,
                       [](host_index::query const& w, std::int64_t v) { return w.end < v; });
  return k != windows.end() && k->start <= e;
}

/// Merges the windows of each thread in place: sorted by (thread, start), overlapping ones
/// joined (no copy: a gap costs its query's 32 bytes here, however many gaps there are).
void merge_windows(std::vector<host_index::query>& windows) {
  std::sort(windows.begin(), windows.end(),
            [](host_index::query const& a, host_index::query const& b) {
              return std::tie(a.thread, a.start) < std::tie(b.thread, b.start);
            });
  std::size_t n = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    auto const& w = windows[i];
    if (n > 0 && windows[n - 1].thread == w.thread && w.start <= windows[n - 1].end) {
      windows[n - 1].end = std::max(windows[n - 1].end, w.end);
      continue;
    }
    windows[n++] = w;
  }
  windows.resize(n);
}

/// Finds a thread's entry, remembering the last one (rows of a thread come in runs).
template <class Map>
class cached_lookup {
 public:
  explicit cached_lookup(Map& m) : _map(m) {}
  typename Map::mapped_type* operator()(host_index::key k) {
    if (_last_valid && k == _last) return _value;
    auto const it = _map.find(k);
    _last = k, _last_valid = true;
    _value = it == _map.end() ? nullptr : &it->second;
    return _value;
  }

 private:
  Map& _map;
  host_index::key _last{};
  bool _last_valid = false;
  typename Map::mapped_type* _value = nullptr;
};

/// One chunk's share of the pass over the table for one thread: its launches, synchronising
/// calls' ends and rows near a window, in row order.
struct found_rows {
  thread_rows* thread = nullptr;
  std::vector<std::int64_t> launches, sync_ends;
  std::vector<std::size_t> rows;
};

/// Rows a chunk of the pass takes: the chunks are fixed by the table's size, not by the threads,
/// and joined in order, so the result is the one pass's on any number of threads.
constexpr std::size_t rows_per_chunk = std::size_t{1} << 18;

/// The pass over the host rows of the threads in `threads`, in chunks of the table on the
/// threads TBB has: per chunk, what each thread found there.
template <class Threads, class Wanted>
std::vector<std::vector<found_rows>> find_thread_rows(trace_model const& model,
                                                      host_classifier const& classifier,
                                                      Threads& threads, Wanted& wanted) {
  auto const& t = model.table();
  if (t.size() > 0)
    (void)model.launches_device_work(0);  // the launch links built before the chunks read them
  std::vector<std::vector<found_rows>> found((t.size() + rows_per_chunk - 1) / rows_per_chunk);
  tbb::parallel_for(std::size_t{0}, found.size(), [&](std::size_t c) {
    cached_lookup thread_of(threads);  // look-ups only: the maps do not change here
    cached_lookup near(wanted);
    auto& mine = found[c];
    found_rows* last = nullptr;
    auto const end = std::min(t.size(), (c + 1) * rows_per_chunk);
    for (auto i = c * rows_per_chunk; i < end; ++i) {
      if (t.device[i] >= 0) continue;
      host_index::key const k{t.input_of(i), t.stream[i]};
      auto* th = thread_of(k);
      if (th == nullptr) continue;
      if (last == nullptr || last->thread != th) {
        auto const at = std::find_if(mine.begin(), mine.end(),
                                     [&](found_rows const& f) { return f.thread == th; });
        last = at != mine.end() ? &*at : &mine.emplace_back(found_rows{th, {}, {}, {}});
      }
      if (t.kind[i] == event_kind::api_call && model.launches_device_work(i))
        last->launches.push_back(t.start_ns[i]);
      if (classifier.is_sync(i)) last->sync_ends.push_back(t.end_ns[i]);
      if (meets(*near(k), t.start_ns[i], t.end_ns[i])) last->rows.push_back(i);
    }
  });
  return found;
}

/// A thread's parts from the chunks, in chunk order, moved to its lists: each list sized once,
/// each part freed once appended (the parts, grown by doubling, and the lists were held at once,
/// the index's peak).
void join(std::vector<found_rows*> const& parts, thread_rows& th) {
  std::size_t launches = 0, sync_ends = 0, rows = 0;
  for (auto const* f : parts)
    launches += f->launches.size(), sync_ends += f->sync_ends.size(), rows += f->rows.size();
  th.launches.reserve(th.launches.size() + launches);
  th.sync_ends.reserve(th.sync_ends.size() + sync_ends);
  th.rows.reserve(th.rows.size() + rows);
  auto append = [](auto& to, auto& from) {
    to.insert(to.end(), from.begin(), from.end());
    std::remove_reference_t<decltype(from)>().swap(from);
  };
  for (auto* f : parts)
    append(th.launches, f->launches), append(th.sync_ends, f->sync_ends), append(th.rows, f->rows);
}

}  // namespace

host_index::host_index(trace_model const& model, host_classifier const& classifier,
                       std::vector<query> windows) {
  merge_windows(windows);
  std::map<key, std::span<query const>> wanted;
  for (std::size_t b = 0, e = 0; b < windows.size(); b = e) {
    while (e < windows.size() && windows[e].thread == windows[b].thread) ++e;
    wanted.emplace(windows[b].thread, std::span(windows).subspan(b, e - b));
    _threads[windows[b].thread];
  }
  if (_threads.empty()) return;
  auto const& t = model.table();
  auto found = find_thread_rows(model, classifier, _threads, wanted);
  // Each thread's parts joined in chunk order (table order again), sorted and classified, the
  // threads in parallel (a part is one thread's: each is joined and freed by one task).
  std::map<thread_rows*, std::vector<found_rows*>> parts;
  for (auto& chunk : found)
    for (auto& f : chunk) parts[f.thread].push_back(&f);
  std::vector<thread_rows*> each;
  for (auto& entry : _threads) each.push_back(&entry.second);
  tbb::parallel_for(std::size_t{0}, each.size(), [&](std::size_t e) {
    auto& th = *each[e];
    if (auto const it = parts.find(&th); it != parts.end()) join(it->second, th);
    auto const by_start = [&](std::size_t a, std::size_t b) {
      return std::tie(t.start_ns[a], a) < std::tie(t.start_ns[b], b);
    };
    if (!std::is_sorted(th.launches.begin(), th.launches.end()))
      std::sort(th.launches.begin(), th.launches.end());
    if (!std::is_sorted(th.sync_ends.begin(), th.sync_ends.end()))
      std::sort(th.sync_ends.begin(), th.sync_ends.end());
    if (!std::is_sorted(th.rows.begin(), th.rows.end(), by_start))
      std::sort(th.rows.begin(), th.rows.end(), by_start);
    th.cls.reserve(th.rows.size());
    for (std::size_t k = 0; k < th.rows.size(); ++k) {
      auto const r = th.rows[k];
      if (auto const c = duration_class(t, r); c > 0) {
        if (th.long_rows.size() < c) th.long_rows.resize(c);
        th.long_rows[c - 1].push_back(k);
      }
      auto const first = std::lower_bound(th.launches.begin(), th.launches.end(), t.start_ns[r]);
      th.cls.push_back(classifier.classify(r, first != th.launches.end() && *first <= t.end_ns[r]));
    }
  });
}

thread_rows const* host_index::find(key k) const {
  auto const it = _threads.find(k);
  return it == _threads.end() ? nullptr : &it->second;
}

namespace {

/// One row (or after-sync stretch) clipped to the window.
struct piece {
  std::int64_t from = 0, to = 0;
  host_class cls = host_class::compute;
  bool after_sync = false;
  std::int64_t start = 0, end = 0;  ///< the row's own extent: the innermost is the latest start
  std::size_t row = 0;
};

void collect_rows(event_table const& t, thread_rows const& th, std::int64_t lo, std::int64_t hi,
                  std::vector<piece>& out) {
  auto take = [&](std::size_t k) {
    auto const r = th.rows[k];
    if (t.start_ns[r] >= hi || t.end_ns[r] <= lo) return;
    out.push_back({std::max(t.start_ns[r], lo), std::min(t.end_ns[r], hi), th.cls[k], false,
                   t.start_ns[r], t.end_ns[r], r});
  };
  // Short rows start in [lo − 2^20, hi); a class's rows in [lo − its longest, hi).
  auto const by_start = [&](std::size_t r, std::int64_t v) { return t.start_ns[r] < v; };
  auto const first = static_cast<std::size_t>(
      std::lower_bound(th.rows.begin(), th.rows.end(), lo - long_row_ns, by_start) -
      th.rows.begin());
  for (std::size_t k = first; k < th.rows.size() && t.start_ns[th.rows[k]] < hi; ++k)
    if (duration_class(t, th.rows[k]) == 0) take(k);
  for (std::size_t c = 0; c < th.long_rows.size(); ++c) {
    auto const& list = th.long_rows[c];
    auto const longest = std::int64_t{1} << std::min<std::size_t>(short_bits + c + 1, 62);
    auto const from = lo < std::numeric_limits<std::int64_t>::min() + longest
                          ? std::numeric_limits<std::int64_t>::min()
                          : lo - longest;
    auto it = std::lower_bound(list.begin(), list.end(), from, [&](std::size_t k, std::int64_t v) {
      return t.start_ns[th.rows[k]] < v;
    });
    for (; it != list.end() && t.start_ns[th.rows[*it]] < hi; ++it) take(*it);
  }
}

/// The stretches after a synchronising call until the thread's next launch, within [lo, hi).
void collect_after_sync(thread_rows const& th, std::int64_t lo, std::int64_t hi,
                        std::vector<piece>& out) {
  auto k = static_cast<std::size_t>(std::lower_bound(th.sync_ends.begin(), th.sync_ends.end(), hi) -
                                    th.sync_ends.begin());
  while (k-- > 0) {
    std::int64_t const from = th.sync_ends[k];
    auto const next = std::lower_bound(th.launches.begin(), th.launches.end(), from);
    std::int64_t const to =
        next == th.launches.end() ? std::numeric_limits<std::int64_t>::max() : *next;
    if (to <= lo) break;  // earlier calls are followed by launches earlier still
    if (std::max(from, lo) < std::min(to, hi))
      out.push_back({std::max(from, lo), std::min(to, hi), host_class::sync, true, from, to, 0});
  }
}

idle_cause cause_of(host_class c) {
  switch (c) {
    case host_class::sync:
      return idle_cause::sync;
    case host_class::memcpy:
      return idle_cause::memcpy;
    case host_class::communication:
      return idle_cause::communication;
    case host_class::data_loading:
      return idle_cause::data_loading;
    case host_class::launching:
      return idle_cause::launch;
    case host_class::compute:
      return idle_cause::host_compute;
    case host_class::step:
      break;
  }
  return idle_cause::unknown;
}

/// The class in force while `active` pieces are in progress (see the file comment).
class active_set {
 public:
  void add(piece const& p) { change(p, +1); }
  void remove(piece const& p) { change(p, -1); }
  [[nodiscard]] idle_cause cause() const {
    for (int c = 0; c < 4; ++c)  // sync, memcpy, communication, data_loading
      if (_precedence[c] > 0) return cause_of(static_cast<host_class>(c));
    if (_after_sync > 0) return idle_cause::sync;
    if (!_generic.empty()) return cause_of(std::get<3>(*_generic.begin()));
    return idle_cause::unknown;
  }

 private:
  // Innermost first: latest start, then earliest end, then the latest row.
  using generic_key = std::tuple<std::int64_t, std::int64_t, std::size_t, host_class>;
  static generic_key key(piece const& p) { return {-p.start, p.end, ~p.row, p.cls}; }
  void change(piece const& p, int d) {
    if (p.after_sync) {
      _after_sync += d;
    } else if (p.cls == host_class::step) {
    } else if (static_cast<int>(p.cls) < 4) {
      _precedence[static_cast<int>(p.cls)] += d;
    } else if (d > 0) {
      _generic.insert(key(p));
    } else {
      _generic.erase(key(p));
    }
  }
  std::array<int, 4> _precedence{};
  int _after_sync = 0;
  std::set<generic_key> _generic;
};

}  // namespace

host_window attribute(trace_model const& model, host_index const& index,
                      std::span<host_index::key const> threads, std::int64_t start,
                      std::int64_t end) {
  host_window out;
  auto const& t = model.table();
  std::vector<piece> pieces;
  for (auto const& k : threads) {
    auto const* th = index.find(k);
    if (th == nullptr) continue;
    collect_rows(t, *th, start, end, pieces);
    collect_after_sync(*th, start, end, pieces);
  }
  // Boundaries: (position, +1 add / −1 remove, piece); removals first at one position.
  std::vector<std::tuple<std::int64_t, int, std::size_t>> edges;
  edges.reserve(2 * pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    edges.emplace_back(pieces[i].from, 1, i);
    edges.emplace_back(pieces[i].to, -1, i);
  }
  std::sort(edges.begin(), edges.end());
  active_set active;
  std::int64_t at = start;
  for (auto const& [pos, d, i] : edges) {
    if (pos > at) {
      out.cover[static_cast<std::size_t>(active.cause())] += pos - at;
      at = pos;
    }
    if (d > 0)
      active.add(pieces[i]);
    else
      active.remove(pieces[i]);
  }
  if (end > at) out.cover[static_cast<std::size_t>(idle_cause::unknown)] += end - at;

  for (auto const& p : pieces)
    if (!p.after_sync && p.cls != host_class::step) out.rows.emplace_back(p.to - p.from, p.row);
  std::sort(out.rows.begin(), out.rows.end(), [](auto const& a, auto const& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  return out;
}

std::int64_t enclosing_op(trace_model const& model, host_index const& index, std::size_t call,
                          bool outermost) {
  auto const& t = model.table();
  auto const* th = index.find({t.input_of(call), t.stream[call]});
  if (th == nullptr) return -1;
  std::vector<piece> around;
  collect_rows(t, *th, t.start_ns[call], t.end_ns[call] + 1, around);
  std::int64_t best = -1;
  auto better = [&](std::size_t r) {
    if (best < 0) return true;
    auto const b = static_cast<std::size_t>(best);
    if (t.start_ns[r] != t.start_ns[b])
      return outermost ? t.start_ns[r] < t.start_ns[b] : t.start_ns[r] > t.start_ns[b];
    if (t.end_ns[r] != t.end_ns[b])
      return outermost ? t.end_ns[r] > t.end_ns[b] : t.end_ns[r] < t.end_ns[b];
    return outermost ? r < b : r > b;
  };
  for (auto const& p : around) {
    auto const r = p.row;
    if (r == call || p.cls == host_class::step || t.kind[r] == event_kind::api_call) continue;
    if (t.start_ns[r] > t.start_ns[call] || t.end_ns[r] < t.end_ns[call]) continue;
    if (better(r)) best = static_cast<std::int64_t>(r);
  }
  return best;
}

}  // namespace tracesweep::diagnose_detail
