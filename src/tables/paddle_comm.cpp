// SPDX-License-Identifier: Apache-2.0
// Walks each host thread once: host events nest by (start, −end); each API call hangs under the
// deepest host event that contains it, and its kernels are classified by that chain.
#include "tables/paddle_comm.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <tuple>

namespace tracesweep::tables {

namespace {

bool contains_any(std::string_view name, std::initializer_list<std::string_view> parts) {
  std::string low(name);
  for (auto& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto p : parts)
    if (low.find(p) != std::string::npos) return true;
  return false;
}

}  // namespace

std::vector<comm_split> paddle_comm_split(event_links const& links) {
  auto const& t = links.table();
  std::vector<comm_split> out(links.ranks().size());
  auto const& pool = t.strings();
  auto is_comm_node = [&](std::size_t i) {
    auto const cat = pool.at(t.category[i]);
    return cat == "Communication" ||
           (cat == "Operator" &&
            contains_any(pool.at(t.name[i]), {"allreduce", "broadcast", "rpc"}));
  };

  // Host events and API calls of Paddle inputs, per (input, thread).
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::size_t>> threads;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (links.paddle(i) && t.device[i] < 0) threads[{t.input[i], t.stream[i]}].push_back(i);

  // Per API call: whether a communication event contains it, and whether its own parent is one.
  std::vector<std::int8_t> under_comm(t.size(), 0), parent_state(t.size(), -1);  // -1 no parent
  for (auto& [key, rows] : threads) {
    std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      bool const ha = t.kind[a] != event_kind::api_call, hb = t.kind[b] != event_kind::api_call;
      return std::tuple(t.start_ns[a], !ha, -t.end_ns[a]) <
             std::tuple(t.start_ns[b], !hb, -t.end_ns[b]);
    });
    std::vector<std::size_t> stack;
    std::vector<int> comm_depth;  // communication events on the stack up to and including j
    for (auto i : rows) {
      while (!stack.empty() && t.end_ns[stack.back()] <= t.start_ns[i])
        stack.pop_back(), comm_depth.pop_back();
      if (t.kind[i] != event_kind::api_call) {
        bool const c = is_comm_node(i);
        if (c) out[rank_index(links, t.rank[i])].cpu_comm.push_back(i);
        comm_depth.push_back((comm_depth.empty() ? 0 : comm_depth.back()) + (c ? 1 : 0));
        stack.push_back(i);
        continue;
      }
      for (auto j = stack.size(); j-- > 0;) {
        auto const n = stack[j];
        if (t.start_ns[n] <= t.start_ns[i] && t.end_ns[i] <= t.end_ns[n]) {
          under_comm[i] = comm_depth[j] > 0;
          parent_state[i] = is_comm_node(n) ? 1 : 0;
          break;
        }
      }
    }
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != event_kind::kernel || !links.paddle(i) || !links.kept(i)) continue;
    auto const a = links.launcher(i);
    if (a < 0) continue;
    auto const ai = static_cast<std::size_t>(a);
    auto& split = out[rank_index(links, t.rank[i])];
    if (under_comm[ai]) split.gpu_comm.push_back(i);
    if (parent_state[ai] == 0) {
      if (contains_any(pool.at(t.name[i]), {"nccl", "xccl"}))
        split.gpu_comm.push_back(i);
      else
        split.compute.push_back(i);
    }
  }
  return out;
}

}  // namespace tracesweep::tables
