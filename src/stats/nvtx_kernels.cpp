// SPDX-License-Identifier: Apache-2.0
// nvtx_kern_sum: per (input, rank, thread) a sweep over the launching calls by start with the
// ranges begun so far kept by end, so each call's enclosing ranges are those ending at or after
// its end; the kernel durations per group go through the backend's segmented statistics.
#include <tracesweep/nvtx_kernels.hpp>

#include <tracesweep/stats.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace tracesweep {

namespace {

using thread_key = std::tuple<std::int32_t, std::int32_t, std::int64_t>;  // input, rank, tid

bool is_range(event_table const& t, std::size_t i) {
  return t.kind[i] == event_kind::user_range && t.device[i] < 0 &&
         t.subkind[i] != static_cast<std::uint8_t>(range_style::mark);
}

/// (range row, kernel row) for every kernel and every range enclosing its launching call.
std::vector<std::pair<std::size_t, std::size_t>> attributions(trace_model const& model) {
  auto const& t = model.table();
  std::map<thread_key, std::vector<std::size_t>> ranges, calls;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_range(t, i)) ranges[{t.input[i], t.rank[i], t.stream[i]}].push_back(i);
  std::map<std::size_t, std::vector<std::size_t>> kernels_of;  // call → kernels
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != event_kind::kernel || t.device[i] < 0) continue;
    auto const c = model.launcher(i);
    if (c < 0) continue;
    auto const call = static_cast<std::size_t>(c);
    if (kernels_of[call].empty())
      calls[{t.input[call], t.rank[call], t.stream[call]}].push_back(call);
    kernels_of[call].push_back(i);
  }
  auto by_start = [&](std::size_t a, std::size_t b) {
    return std::pair(t.start_ns[a], a) < std::pair(t.start_ns[b], b);
  };
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (auto& [thread, list] : calls) {
    auto found = ranges.find(thread);
    if (found == ranges.end()) continue;
    auto& rs = found->second;
    std::sort(rs.begin(), rs.end(), by_start);
    std::sort(list.begin(), list.end(), by_start);
    std::multiset<std::pair<std::int64_t, std::size_t>> open;  // (end, range row)
    std::size_t next = 0;
    for (auto const call : list) {
      for (; next < rs.size() && t.start_ns[rs[next]] <= t.start_ns[call]; ++next)
        open.insert({t.end_ns[rs[next]], rs[next]});
      while (!open.empty() && open.begin()->first < t.start_ns[call]) open.erase(open.begin());
      for (auto it = open.lower_bound({t.end_ns[call], 0}); it != open.end(); ++it)
        for (auto const k : kernels_of[call]) out.emplace_back(it->second, k);
    }
  }
  return out;
}

std::string_view style_of(event_table const& t, std::size_t range) {
  return t.subkind[range] == static_cast<std::uint8_t>(range_style::start_end) ? "StartEnd"
                                                                               : "PushPop";
}

}  // namespace

std::vector<nvtx_kernel_table> compute_nvtx_kern_sum(trace_model const& model, backend& be,
                                                     bool merge) {
  auto const& t = model.table();
  std::vector<nvtx_kernel_table> out(merge ? 1 : t.inputs().size());
  for (std::size_t g = 0; g < out.size(); ++g)
    out[g].source = merge ? std::string("all inputs") : t.inputs()[g].path;
  // Group: (table, range name, style, pid, tid, kernel name id).
  using group_key =
      std::tuple<std::size_t, std::string, std::string, std::int32_t, std::int64_t, string_id>;
  std::map<group_key, std::uint32_t> ids;
  std::vector<std::set<std::size_t>> instances;  // per group: the enclosing range rows
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> values;
  for (auto const& [range, kernel] : attributions(model)) {
    auto const table = merge ? std::size_t{0} : static_cast<std::size_t>(t.input[range]);
    group_key const key{table,
                        std::string(t.strings().at(t.name[range])),
                        std::string(style_of(t, range)),
                        t.rank[range],
                        t.stream[range],
                        t.name[kernel]};
    auto const [it, fresh] = ids.try_emplace(key, static_cast<std::uint32_t>(ids.size()));
    if (fresh) instances.emplace_back();
    instances[it->second].insert(range);
    keys.push_back(it->second);
    values.push_back(t.end_ns[kernel] - t.start_ns[kernel]);
  }
  std::vector<exact_stats> stats(ids.size());
  if (!keys.empty())
    for (auto& s : be.segmented_stats(keys, values, {})) stats[s.key] = s;
  for (auto const& [key, id] : ids) {
    auto const& s = stats[id];
    auto const d = derive_stats(s, {});
    nvtx_kernel_row row;
    row.range = std::get<1>(key), row.style = std::get<2>(key);
    row.pid = std::get<3>(key), row.tid = std::get<4>(key);
    row.range_instances = static_cast<std::int64_t>(instances[id].size());
    row.kernel_instances = static_cast<std::int64_t>(s.count);
    row.total = narrow_sum(s.sum, "the kernel time of an NVTX range");
    row.min = s.min, row.max = s.max;
    row.avg = d.mean, row.median = d.median, row.stddev = d.stddev;
    row.kernel = std::string(t.strings().at(std::get<5>(key)));
    out[std::get<0>(key)].rows.push_back(std::move(row));
  }
  for (auto& table : out)
    std::sort(table.rows.begin(), table.rows.end(), [](auto const& a, auto const& b) {
      return std::tie(a.range, a.style, a.pid, a.tid) < std::tie(b.range, b.style, b.pid, b.tid) ||
             (std::tie(a.range, a.style, a.pid, a.tid) ==
                  std::tie(b.range, b.style, b.pid, b.tid) &&
              std::tuple(-a.total, a.kernel) < std::tuple(-b.total, b.kernel));
    });
  return out;
}

}  // namespace tracesweep
