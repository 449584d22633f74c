// SPDX-License-Identifier: Apache-2.0
// The TensorBoard plugin's overview, reproduced rule for rule (its step → device-step mapping,
// role priority attribution, GPU metrics and kernel table). Unions are computed by the backend
// on role intervals clipped to each step: with disjoint steps, the cost of role k in step s is
// |s ∩ (roles 0..k)| − |s ∩ (roles 0..k−1)|, which is exactly the plugin's successive subtraction.
#include <tracesweep/tables/tb_overview.hpp>

#include <tracesweep/analysis/kernel_stats.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace tracesweep {

namespace {

constexpr std::int64_t none_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t none_min = std::numeric_limits<std::int64_t>::min();

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

/// The plugin's event types: from the kind, else from the family the reader saw in the category.
enum class tb_type { none, op, python, user_annotation, runtime, kernel, memcpy, memset, step };

tb_type type_of(event_table const& t, std::size_t i) {
  switch (t.kind[i]) {
    case event_kind::kernel:
      return tb_type::kernel;
    case event_kind::memcpy:
      return tb_type::memcpy;
    case event_kind::memset:
      return tb_type::memset;
    case event_kind::profiler_step:
      return tb_type::step;
    default:
      break;
  }
  // By category_role: none, op, python, annotation, runtime, phase.
  constexpr std::array by_family{tb_type::none,    tb_type::op,
                                 tb_type::python,  tb_type::user_annotation,
                                 tb_type::runtime, tb_type::none};
  auto const family = static_cast<std::size_t>(t.role[i].family());
  return family < by_family.size() ? by_family[family] : tb_type::none;
}

std::string step_number(std::string_view name) {
  auto const hash = name.rfind('#');
  return hash == std::string_view::npos ? std::string(name) : std::string(name.substr(hash + 1));
}

struct span {
  std::int64_t start, end;
};

/// Orders kernel statistics by group, against a group number either side.
struct group_less {
  bool operator()(kernel_name_stats const& a, std::uint32_t g) const { return a.group < g; }
  bool operator()(std::uint32_t g, kernel_name_stats const& a) const { return g < a.group; }
};

}  // namespace

std::vector<tb_overview> compute_tb_overview(job_session const& session) {
  auto const& model = session.model();
  auto& be = session.primitives();
  auto const& table = model.table();
  // The plugin's collectives: NCCL and Gloo host ops by its fixed names (the model's policies).
  auto const is_nccl_op = [&](std::string_view n) {
    return model.is_communication(n, communication_policy::tensorboard_nccl_ops);
  };
  auto const is_gloo_op = [&](std::string_view n) {
    return model.is_communication(n, communication_policy::tensorboard_gloo_ops);
  };
  auto const& pool = table.strings();
  auto const n_inputs = table.inputs().size();

  // Launch metrics by row.
  std::unordered_map<std::uint64_t, std::size_t> metric_of;
  for (std::size_t j = 0; j < table.launch_metrics.size(); ++j)
    metric_of[table.launch_metrics.row[j]] = j;

  kernel_selection by_input;
  by_input.grouping = kernel_grouping::input;
  auto const kernel_stats = compute_kernel_stats(model, be, by_input);

  std::vector<std::vector<std::size_t>> rows_of(n_inputs);
  for (std::size_t i = 0; i < table.size(); ++i)
    rows_of[static_cast<std::size_t>(table.input_of(i))].push_back(i);

  std::vector<tb_overview> out;
  for (std::size_t in = 0; in < n_inputs; ++in) {
    auto const& rows = rows_of[in];
    if (rows.empty()) continue;
    tb_overview ov;
    ov.input = static_cast<std::int32_t>(in);
    ov.rank = table.rank[rows.front()];

    std::vector<tb_type> type(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) type[k] = type_of(table, rows[k]);

    // Communication ops: NCCL/Gloo-named host events; kernels launched inside an NCCL op.
    bool nccl = false, gloo = false;
    std::vector<std::size_t> comm_ops;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto const tp = type[k];
      if (tp != tb_type::op && tp != tb_type::python && tp != tb_type::user_annotation) continue;
      auto const name = pool.at(table.name[rows[k]]);
      if (is_nccl_op(name)) nccl = true, comm_ops.push_back(rows[k]);
      if (is_gloo_op(name)) gloo = true, comm_ops.push_back(rows[k]);
    }
    auto launched_in_comm = [&](std::size_t i) {
      auto const a = model.launcher(i);
      if (a < 0 || !nccl) return false;
      auto const ai = static_cast<std::size_t>(a);
      for (auto op : comm_ops)
        if (is_nccl_op(pool.at(table.name[op])) && table.stream[op] == table.stream[ai] &&
            table.start_ns[op] <= table.start_ns[ai] && table.end_ns[ai] <= table.end_ns[op])
          return true;
      return false;
    };

    // Steps: the model's steps of this input, in time order.
    std::vector<std::size_t> step_rows;
    for (auto const rank : table.inputs()[in].ranks)
      for (auto i : model.steps(model.rank_index(rank)))
        if (static_cast<std::size_t>(table.input_of(i)) == in) step_rows.push_back(i);
    std::sort(step_rows.begin(), step_rows.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(table.start_ns[a], a) < std::tie(table.start_ns[b], b);
    });
    std::vector<span> steps;
    std::vector<std::string> step_names;
    for (auto i : step_rows) {
      steps.push_back({table.start_ns[i], table.end_ns[i]});
      step_names.push_back(step_number(pool.at(table.name[i])));
    }

    // Role intervals.
    std::vector<span> role[tb_role_count - 1];
    std::int64_t cpu_min = none_max, cpu_max = none_min;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto const i = rows[k];
      span const sp{table.start_ns[i], table.end_ns[i]};
      auto const name = pool.at(table.name[i]);
      switch (type[k]) {
        case tb_type::kernel:
          role[static_cast<int>(launched_in_comm(i) ? tb_role::communication : tb_role::kernel)]
              .push_back(sp);
          break;
        case tb_type::memcpy:
          role[static_cast<int>(tb_role::memcpy)].push_back(sp);
          break;
        case tb_type::memset:
          role[static_cast<int>(tb_role::memset)].push_back(sp);
          break;
        case tb_type::runtime:
          role[static_cast<int>(tb_role::runtime)].push_back(sp);
          break;
        case tb_type::op:
        case tb_type::python:
        case tb_type::user_annotation:
          if (type[k] != tb_type::python &&
              ((starts_with(name, "enumerate(DataLoader)#") && ends_with(name, ".__next__")) ||
               starts_with(name, "enumerate(DataPipe)#")))
            role[static_cast<int>(tb_role::data_loader)].push_back(sp);
          else if (is_nccl_op(name) || is_gloo_op(name))
            role[static_cast<int>(tb_role::communication)].push_back(sp);
          else
            role[static_cast<int>(tb_role::cpu_exec)].push_back(sp);
          break;
        case tb_type::step:
        case tb_type::none:
          break;
      }
      if (type[k] == tb_type::op || type[k] == tb_type::python || type[k] == tb_type::step)
        cpu_min = std::min(cpu_min, sp.start), cpu_max = std::max(cpu_max, sp.end);
    }
    if (nccl && gloo) role[static_cast<int>(tb_role::communication)].clear();
    ov.has_communication = !role[static_cast<int>(tb_role::communication)].empty();
    if (steps.empty()) {
      if (cpu_min > cpu_max) continue;  // nothing on the host: no overview
      steps.push_back({cpu_min, cpu_max});
      step_names.emplace_back("0");
    }

    // Device steps: kernels of runtime calls lying inside each host step.
    std::vector<std::size_t> runtimes;
    for (std::size_t k = 0; k < rows.size(); ++k)
      if (type[k] == tb_type::runtime) runtimes.push_back(rows[k]);
    std::stable_sort(runtimes.begin(), runtimes.end(),
                     [&](auto a, auto b) { return table.start_ns[a] < table.start_ns[b]; });
    std::unordered_map<std::size_t, std::vector<std::size_t>>
        devices_of;  // runtime row → device rows
    std::vector<std::size_t> device_rows;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (type[k] != tb_type::kernel && type[k] != tb_type::memcpy && type[k] != tb_type::memset)
        continue;
      device_rows.push_back(rows[k]);
      auto const a = model.launcher(rows[k]);
      if (a >= 0 && type_of(table, static_cast<std::size_t>(a)) == tb_type::runtime)
        devices_of[static_cast<std::size_t>(a)].push_back(rows[k]);
    }
    auto const ns = steps.size();
    std::vector<span> steps_device(ns, span{none_max, none_min});
    std::vector<std::int64_t> matched_count(ns, 0);
    std::vector<std::uint8_t> matched(table.size(), 0);
    {
      std::size_t is = 0, ir = 0;
      span cur{none_max, none_min};
      while (is < ns && ir < runtimes.size()) {
        auto const r = runtimes[ir];
        if (table.start_ns[r] < steps[is].start) {
          ++ir;
        } else if (table.end_ns[r] <= steps[is].end) {
          if (auto it = devices_of.find(r); it != devices_of.end())
            for (auto d : it->second) {
              cur.start = std::min(cur.start, table.start_ns[d]);
              cur.end = std::max(cur.end, table.end_ns[d]);
              matched[d] = 1;
              ++matched_count[is];
            }
          ++ir;
        } else if (table.start_ns[r] < steps[is].end) {
          ++ir;
        } else {
          steps_device[is++] = cur;
          cur = {none_max, none_min};
        }
      }
      for (; is < ns; ++is) steps_device[is] = cur, cur = {none_max, none_min};
    }
    bool const any_matched = std::any_of(device_rows.begin(), device_rows.end(),
                                         [&](auto d) { return matched[d] != 0; });
    if (any_matched) {
      std::int64_t prev_end = steps[0].start;
      if (steps_device[0].start != none_max)
        for (auto d : device_rows)
          if (!matched[d] && table.end_ns[d] < steps_device[0].start)
            prev_end = std::max(prev_end, table.end_ns[d]);
      for (std::size_t s = 0; s < ns; ++s) {
        auto const start = std::max(prev_end, steps[s].start);
        auto end = steps[s].end;
        if (steps_device[s].start == none_max)
          end = std::max(end, start);
        else
          end = std::max({end, steps_device[s].end, start});
        steps[s] = {start, end};
        prev_end = end;
      }
      if (ns > 1) {  // drop trailing steps whose kernels were not all captured
        std::int64_t last = static_cast<std::int64_t>(ns) - 1;
        while (last >= 0 && matched_count[static_cast<std::size_t>(last)] == 0) --last;
        if (last >= 0) {
          auto keep = static_cast<std::size_t>(last) + 1;
          if (last > 0 &&
              static_cast<double>(matched_count[static_cast<std::size_t>(last) - 1]) * 0.8 >
                  static_cast<double>(matched_count[static_cast<std::size_t>(last)]))
            keep = static_cast<std::size_t>(last);
          steps.resize(keep), step_names.resize(keep);
        }
      }
    }

    // Attribution: roles 0..k clipped to each step, unioned per (step, k) by the backend.
    auto const nsteps = steps.size();
    constexpr std::size_t nroles = tb_role_count - 1;
    std::vector<std::int64_t> cs, ce;
    std::vector<group_id> cg;
    for (std::size_t k = 0; k < nroles; ++k)
      for (auto const& sp : role[k]) {
        auto it = std::upper_bound(steps.begin(), steps.end(), sp.start,
                                   [](std::int64_t v, span const& st) { return v < st.end; });
        for (; it != steps.end() && it->start < sp.end; ++it) {
          auto const a = std::max(sp.start, it->start), b = std::min(sp.end, it->end);
          if (a >= b) continue;
          auto const s = static_cast<std::size_t>(it - steps.begin());
          for (std::size_t k2 = k; k2 < nroles; ++k2)
            cs.push_back(a), ce.push_back(b), cg.push_back(static_cast<group_id>(s * nroles + k2));
        }
      }
    auto const covered = busy_per_group(be.union_by_group({cs, ce, cg}), nsteps * nroles);
    for (std::size_t s = 0; s < nsteps; ++s) {
      tb_step st;
      st.name = step_names[s];
      st.start_ns = steps[s].start, st.end_ns = steps[s].end;
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

    // GPU metrics over [first step start, last step end].
    auto const w0 = steps.front().start, w1 = steps.back().end;
    std::vector<std::size_t> kernels;
    for (std::size_t k = 0; k < rows.size(); ++k)
      if (type[k] == tb_type::kernel) kernels.push_back(rows[k]);
    // The input's GPUs: a run of the session's (input, device) groups, kernels' unions per GPU.
    auto const& gpu_busy = session.unions(table_union::kernels_by_input_device);
    auto const gpus = session.input_devices();
    auto const first_gpu = std::lower_bound(
        gpus.begin(), gpus.end(), table_device{in, std::numeric_limits<std::int32_t>::min()});
    auto const last_gpu = std::lower_bound(
        gpus.begin(), gpus.end(), table_device{in + 1, std::numeric_limits<std::int32_t>::min()});
    std::vector<std::int32_t> gpu_ids;
    for (auto it = first_gpu; it != last_gpu; ++it) gpu_ids.push_back(it->device);
    auto const window = static_cast<double>(w1 - w0);
    for (std::size_t gi = 0; gi < gpu_ids.size(); ++gi) {
      auto const group =
          static_cast<group_id>(first_gpu - gpus.begin()) + static_cast<group_id>(gi);
      tb_gpu gm;
      gm.device = gpu_ids[gi];
      gm.utilization =
          window > 0 ? static_cast<double>(members_of(gpu_busy, group).covered(w0, w1)) / window
                     : 0;
      // Est. SM efficiency: sweep of blocks-per-SM sums, each segment capped at 1.
      struct endpoint {
        std::int64_t time;
        int type;  // 0 start, 1 end
        double value;
      };
      std::vector<endpoint> eps;
      double occ_sum = 0, occ_time = 0;
      bool any_occ = false;
      for (auto i : kernels) {
        if (table.device[i] != gpu_ids[gi]) continue;
        auto const m = metric_of.find(i);
        if (m == metric_of.end()) continue;
        double const bps = table.launch_metrics.blocks_per_sm[m->second];
        double const occ = table.launch_metrics.est_occupancy_pct[m->second];
        if (bps > 0.0) {
          eps.push_back({table.start_ns[i], 0, bps});
          eps.push_back({table.end_ns[i], 1, bps});
        }
        if (occ >= 0.0) {
          any_occ = true;
          auto const a = std::max(table.start_ns[i], w0), b = std::min(table.end_ns[i], w1);
          if (a < b) {
            auto const d = static_cast<double>(b - a) / 1000.0;
            occ_sum += occ * d, occ_time += d;
          }
        }
      }
      if (!eps.empty()) {
        ov.has_blocks_per_sm = true;
        std::stable_sort(eps.begin(), eps.end(), [](endpoint const& a, endpoint const& b) {
          return a.time != b.time ? a.time < b.time : a.type < b.type;
        });
        double weighted = 0;
        bool any = false;
        std::int64_t last_t = eps[0].time;
        double last_v = eps[0].value;
        for (std::size_t k = 1; k < eps.size(); ++k) {
          auto const& ep = eps[k];
          if (ep.time > last_t && last_v > 0.0) {
            auto const a = std::max(last_t, w0), b = std::min(ep.time, w1);
            if (a < b)
              weighted += std::min(last_v, 1.0) * (static_cast<double>(b - a) / 1000.0), any = true;
          }
          last_t = ep.time;
          last_v += ep.type == 0 ? ep.value : -ep.value;
        }
        if (any) gm.sm_efficiency = weighted / (window / 1000.0);
      }
      if (any_occ) ov.has_occupancy = true;
      if (occ_time > 0) gm.occupancy_pct = occ_sum / occ_time;
      ov.gpus.push_back(gm);
    }

    // Kernel table: every kernel of the input, by name; the two means weighted by duration.
    std::unordered_map<string_id, std::array<double, 3>> weighted;  // Σ bps·w, Σ occ·w, Σ w
    for (auto i : kernels) {
      double bps = 0, occ = 0;
      if (auto m = metric_of.find(i); m != metric_of.end()) {
        bps = table.launch_metrics.blocks_per_sm[m->second];
        occ = table.launch_metrics.est_occupancy_pct[m->second];
        if (std::isnan(bps)) bps = 0;
        if (std::isnan(occ)) occ = 0;
      }
      auto const w = static_cast<double>(table.end_ns[i] - table.start_ns[i]) / 1000.0;
      auto& acc = weighted[table.name[i]];
      acc[0] += bps * w, acc[1] += occ * w, acc[2] += w;
    }
    auto const [first, last] = std::equal_range(kernel_stats.begin(), kernel_stats.end(),
                                                static_cast<std::uint32_t>(in), group_less{});
    for (auto it = first; it != last; ++it) {
      auto const& s = it->stats;
      auto const& acc = weighted.at(it->name);
      tb_kernel kr;
      kr.name = std::string(pool.at(it->name));
      kr.calls = static_cast<std::int64_t>(s.count);
      kr.total_ns = narrow_sum(s.sum, "the total time of kernel " + kr.name);
      kr.max_ns = s.max, kr.min_ns = s.min;
      kr.mean_ns = static_cast<double>(kr.total_ns) / static_cast<double>(kr.calls);
      kr.blocks_per_sm = acc[2] > 0 ? acc[0] / acc[2] : 0;
      kr.occupancy_pct = acc[2] > 0 ? acc[1] / acc[2] : 0;
      ov.kernels.push_back(std::move(kr));
    }
    std::stable_sort(ov.kernels.begin(), ov.kernels.end(),
                     [](tb_kernel const& a, tb_kernel const& b) {
                       return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
                     });
    out.push_back(std::move(ov));
  }
  return out;
}

}  // namespace tracesweep
