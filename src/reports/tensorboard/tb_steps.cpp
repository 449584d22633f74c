// SPDX-License-Identifier: Apache-2.0
// The TensorBoard overview's steps: the model's steps of an input, moved onto the device timeline
// as the plugin does, and each step's time attributed to roles by priority. Unions are computed by
// the backend on role intervals clipped to each step: with disjoint steps, the cost of role k in
// step s is |s ∩ (roles 0..k)| − |s ∩ (roles 0..k−1)|, exactly the plugin's successive
// subtraction.
#include <algorithm>
#include <limits>
#include <tuple>

#include "reports/tensorboard/tb_parts.hpp"

namespace tracesweep::tables::tb {

namespace {

constexpr std::int64_t none_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t none_min = std::numeric_limits<std::int64_t>::min();
constexpr span no_span{none_max, none_min};

std::string step_number(std::string_view name) {
  auto const hash = name.rfind('#');
  return hash == std::string_view::npos ? std::string(name) : std::string(name.substr(hash + 1));
}

/// Per step, the extent of the device rows launched by runtime calls lying inside the host step,
/// how many such rows, and which rows they were.
struct device_steps {
  std::vector<span> extent;
  std::vector<std::int64_t> matched_count;
  std::vector<std::uint8_t> matched;  ///< per table row
};

device_steps match_device_rows(trace_model const& model, input_rows const& in,
                               std::vector<span> const& steps) {
  auto const& table = model.table();
  auto runtimes = in.of_type(event_type::runtime);
  std::stable_sort(runtimes.begin(), runtimes.end(),
                   [&](auto a, auto b) { return table.start_ns[a] < table.start_ns[b]; });
  std::unordered_map<std::size_t, std::vector<std::size_t>> devices_of;  // runtime → device rows
  for (std::size_t k = 0; k < in.rows.size(); ++k) {
    auto const t = in.type[k];
    if (t != event_type::kernel && t != event_type::memcpy && t != event_type::memset) continue;
    auto const a = model.launcher(in.rows[k]);
    if (a >= 0 && type_of(table, static_cast<std::size_t>(a)) == event_type::runtime)
      devices_of[static_cast<std::size_t>(a)].push_back(in.rows[k]);
  }
  auto const ns = steps.size();
  device_steps out{std::vector<span>(ns, no_span), std::vector<std::int64_t>(ns, 0),
                   std::vector<std::uint8_t>(table.size(), 0)};
  std::size_t is = 0, ir = 0;
  span cur = no_span;
  while (is < ns && ir < runtimes.size()) {
    auto const r = runtimes[ir];
    if (table.start_ns[r] < steps[is].start) {
      ++ir;
    } else if (table.end_ns[r] <= steps[is].end) {
      if (auto it = devices_of.find(r); it != devices_of.end())
        for (auto d : it->second) {
          cur.start = std::min(cur.start, table.start_ns[d]);
          cur.end = std::max(cur.end, table.end_ns[d]);
          out.matched[d] = 1;
          ++out.matched_count[is];
        }
      ++ir;
    } else if (table.start_ns[r] < steps[is].end) {
      ++ir;
    } else {
      out.extent[is++] = cur;
      cur = no_span;
    }
  }
  for (; is < ns; ++is) out.extent[is] = cur, cur = no_span;
  return out;
}

/// How many steps to keep: trailing steps without matched device rows go, and the last one too
/// when it matched under 80 % of the one before (its kernels were not all captured).
std::size_t steps_to_keep(std::vector<std::int64_t> const& matched_count) {
  auto const ns = matched_count.size();
  if (ns <= 1) return ns;
  std::int64_t last = static_cast<std::int64_t>(ns) - 1;
  while (last >= 0 && matched_count[static_cast<std::size_t>(last)] == 0) --last;
  if (last < 0) return ns;
  auto const l = static_cast<std::size_t>(last);
  if (l > 0 &&
      static_cast<double>(matched_count[l - 1]) * 0.8 > static_cast<double>(matched_count[l]))
    return l;
  return l + 1;
}

}  // namespace

step_list host_steps(trace_model const& model, std::size_t input) {
  auto const& table = model.table();
  std::vector<std::size_t> rows;
  for (auto const rank : table.inputs()[input].ranks)
    for (auto i : model.steps(model.rank_index(rank)))
      if (static_cast<std::size_t>(table.input_of(i)) == input) rows.push_back(i);
  std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(table.start_ns[a], a) < std::tie(table.start_ns[b], b);
  });
  step_list out;
  for (auto i : rows) {
    out.spans.push_back({table.start_ns[i], table.end_ns[i]});
    out.names.push_back(step_number(table.strings().at(table.name[i])));
  }
  return out;
}

void move_steps_to_device(trace_model const& model, input_rows const& in, step_list& steps) {
  auto const& table = model.table();
  auto& spans = steps.spans;
  auto const device = match_device_rows(model, in, spans);
  std::vector<std::size_t> device_rows;
  for (std::size_t k = 0; k < in.rows.size(); ++k)
    if (in.type[k] == event_type::kernel || in.type[k] == event_type::memcpy ||
        in.type[k] == event_type::memset)
      device_rows.push_back(in.rows[k]);
  bool const any_matched = std::any_of(device_rows.begin(), device_rows.end(),
                                       [&](auto d) { return device.matched[d] != 0; });
  if (!any_matched) return;
  std::int64_t prev_end = spans[0].start;
  if (device.extent[0].start != none_max)
    for (auto d : device_rows)
      if (!device.matched[d] && table.end_ns[d] < device.extent[0].start)
        prev_end = std::max(prev_end, table.end_ns[d]);
  for (std::size_t s = 0; s < spans.size(); ++s) {
    auto const start = std::max(prev_end, spans[s].start);
    auto end = spans[s].end;
    if (device.extent[s].start == none_max)
      end = std::max(end, start);
    else
      end = std::max({end, device.extent[s].end, start});
    spans[s] = {start, end};
    prev_end = end;
  }
  auto const keep = steps_to_keep(device.matched_count);
  spans.resize(keep), steps.names.resize(keep);
}

void attribute_steps(backend& be, role_spans const& roles, step_list const& steps,
                     tb_overview& ov) {
  auto const& spans = steps.spans;
  auto const nsteps = spans.size();
  constexpr std::size_t nroles = tb_role_count - 1;
  // Roles 0..k clipped to each step, unioned per (step, k) by the backend.
  std::vector<std::int64_t> cs, ce;
  std::vector<group_id> cg;
  for (std::size_t k = 0; k < nroles; ++k)
    for (auto const& sp : roles.role[k]) {
      auto it = std::upper_bound(spans.begin(), spans.end(), sp.start,
                                 [](std::int64_t v, span const& st) { return v < st.end; });
      for (; it != spans.end() && it->start < sp.end; ++it) {
        auto const a = std::max(sp.start, it->start), b = std::min(sp.end, it->end);
        if (a >= b) continue;
        auto const s = static_cast<std::size_t>(it - spans.begin());
        for (std::size_t k2 = k; k2 < nroles; ++k2)
          cs.push_back(a), ce.push_back(b), cg.push_back(static_cast<group_id>(s * nroles + k2));
      }
    }
  auto const covered = busy_per_group(be.union_by_group({cs, ce, cg}), nsteps * nroles);
  for (std::size_t s = 0; s < nsteps; ++s) {
    tb_step st;
    st.name = steps.names[s];
    st.start_ns = spans[s].start, st.end_ns = spans[s].end;
    for (std::size_t k = 0; k < nroles; ++k)
      st.cost_ns[k] = covered[s * nroles + k] - (k ? covered[s * nroles + k - 1] : 0);
    st.cost_ns[nroles] = st.total_ns() - covered[s * nroles + nroles - 1];
    for (std::size_t k = 0; k < tb_role_count; ++k)
      ov.avg_cost_ns[k] += static_cast<double>(st.cost_ns[k]);
    ov.avg_step_ns += static_cast<double>(st.total_ns());
    ov.steps.push_back(std::move(st));
  }
  for (auto& c : ov.avg_cost_ns) c /= static_cast<double>(nsteps);
  ov.avg_step_ns /= static_cast<double>(nsteps);
}

}  // namespace tracesweep::tables::tb
