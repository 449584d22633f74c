// SPDX-License-Identifier: Apache-2.0
// The critical path against Holistic Trace Analysis on its own four critical-path test traces
// (hta_reference.json, recorded with HTA itself by bench/hta_reference/critical_path.py): length,
// shares by bound type, edge count, graph size, and the path edge by edge; the edge weights HTA's
// tests assert on simple_add; zero-weight sync edges; a hand-built step whose path, what-ifs and
// payoffs are derived by hand (one where another path takes over); every real trace against an
// independent longest-path search over the same graph.
#include <tracesweep/analysis/critical_path.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <tracesweep/input_reader.hpp>

#include "analysis/critical_path/path_graph.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;
namespace cp = tracesweep::critical_path_detail;
namespace fs = std::filesystem;

namespace {

constexpr char const* alexnet_forward = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

/// One of HTA's test cases: the trace folder, the annotation and instance its tests use.
struct hta_case {
  std::string folder;
  std::string annotation;
  std::optional<std::size_t> instance;
};

std::vector<hta_case> const& hta_cases() {
  static std::vector<hta_case> const cases{
      {"hta_critical_path_simple_add", alexnet_forward, 1},
      {"hta_critical_path_alexnet", alexnet_forward, 1},
      {"hta_critical_path_cuda_event_sync", "ProfilerStep", 0},
      {"hta_critical_path_cuda_event_sync_multi_stream", "", std::nullopt},
  };
  return cases;
}

/// A job read from `paths` with its model, backend and session.
struct job {
  ts::event_table table;
  std::unique_ptr<ts::trace_model> model;
  std::unique_ptr<ts::backend> be;
  std::unique_ptr<ts::job_session> session;

  explicit job(std::vector<std::string> const& paths) {
    ts::read_inputs(paths, table, {}, false);
    finish();
  }
  explicit job(ts::event_table t) : table(std::move(t)) { finish(); }

 private:
  void finish() {
    model = std::make_unique<ts::trace_model>(table);
    be = ts::make_cpu_backend(2);
    session = std::make_unique<ts::job_session>(*model, *be, ts::activity_needs{});
  }
};

std::vector<std::string> files_in(fs::path const& folder) {
  std::vector<std::string> files;
  for (auto const& e : fs::directory_iterator(folder))
    if (e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

ts::critical_path_options options_of(hta_case const& c) {
  ts::critical_path_options o;
  o.annotation = c.annotation;
  o.instance = c.instance.value_or(0);
  return o;
}

/// The graph of window `win`, its rows clipped here as HTA clips them.
cp::path_graph graph_of(job const& j, cp::launch_links const& links,
                        ts::critical_path_window const& win) {
  auto const start = win.start_ns, end = win.end_ns;
  cp::window_rows w{win.rank, start, end, {}, {}};
  auto const& t = j.table;
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (t.rank[r] != win.rank) continue;
    auto within = [&](std::size_t x) {
      return t.start_ns[x] >= start && t.start_ns[x] <= end && t.end_ns[x] > t.start_ns[x];
    };
    if (t.device[r] < 0 && within(r)) w.host.push_back(r);
    auto const call = links.linked[r];  // a GPU row's call, whatever else that call launched
    if (t.device[r] >= 0 && t.stream[r] >= 0 && call >= 0 &&
        t.device[static_cast<std::size_t>(call)] < 0 && within(static_cast<std::size_t>(call)))
      w.gpu.push_back(r);
    bool const sync = t.kind[r] == ts::event_kind::synchronization;
    if (sync && t.stream[r] < 0 && t.start_ns[r] >= start && t.start_ns[r] <= end &&
        t.end_ns[r] > t.start_ns[r])
      w.gpu.push_back(r);
    if (sync && t.stream[r] >= 0 && t.strings().at(t.name[r]) == "Stream Wait Event")
      w.gpu.push_back(r);
  }
  std::sort(w.gpu.begin(), w.gpu.end());
  w.gpu.erase(std::unique(w.gpu.begin(), w.gpu.end()), w.gpu.end());
  return cp::build_graph(*j.model, links, w);
}

/// The longest path's length by memoised depth-first search from every node (an explicit stack:
/// paths run to 100 000 edges): no topological order, no tie rules.
std::int64_t longest_by_search(cp::path_graph const& g) {
  std::vector<std::vector<std::size_t>> out(g.nodes.size());
  for (std::size_t i = 0; i < g.edges.size(); ++i) out[g.edges[i].from].push_back(i);
  std::vector<std::int64_t> longest(g.nodes.size(), -1);  // from the node on; -1: not yet
  std::int64_t best = 0;
  for (std::size_t root = 0; root < g.nodes.size(); ++root) {
    std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};  // node, next edge
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      if (longest[n] >= 0 && next == 0) {
        stack.pop_back();
        continue;
      }
      if (next < out[n].size()) {
        auto const to = g.edges[out[n][next++]].to;
        if (longest[to] < 0) stack.push_back({to, 0});
        continue;
      }
      std::int64_t from_here = 0;
      for (auto const e : out[n])
        from_here = std::max(from_here,
                             std::max<std::int64_t>(g.edges[e].weight, 0) + longest[g.edges[e].to]);
      longest[n] = from_here;
      best = std::max(best, from_here);
      stack.pop_back();
    }
  }
  return best;
}

simdjson::dom::element hta_reference(simdjson::dom::parser& parser) {
  auto const path =
      fs::path(TRACESWEEP_SOURCE_DIR) / "tests/analysis/critical_path/hta_reference.json";
  return parser.load(path.string()).value();
}

}  // namespace

TEST(critical_path, equals_hta_on_its_four_test_traces) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  simdjson::dom::parser parser;
  auto const reference = hta_reference(parser);
  for (auto const& c : hta_cases()) {
    SCOPED_TRACE(c.folder);
    auto const want = reference[c.folder];
    job const j(files_in(dir / "kineto" / c.folder));
    auto const result = ts::critical_path(*j.session, options_of(c));
    ASSERT_EQ(result.windows.size(), 1u);
    auto const& w = result.windows.front();
    ASSERT_EQ(w.failure, "");
    // HTA's times are whole microseconds; these traces' are too, so the answers are exact.
    EXPECT_EQ(w.total_ns, int64_t(want["total_us"]) * 1000);
    EXPECT_EQ(w.edges.size(), uint64_t(want["edges"]));
    EXPECT_EQ(w.graph_nodes, uint64_t(want["nodes_in_graph"]));
    EXPECT_EQ(w.graph_edges, uint64_t(want["edges_in_graph"]));
    std::map<std::string, std::int64_t> by_bound;
    for (std::size_t b = 0; b < ts::path_bound_count; ++b)
      if (w.bound_ns[b] > 0)
        by_bound[std::string(ts::path_bound_name(static_cast<ts::path_bound>(b)))] = w.bound_ns[b];
    std::map<std::string, std::int64_t> want_bound;
    for (auto [bound, us] : want["duration_us"].get_object())
      if (int64_t(us) > 0) want_bound[std::string(bound)] = int64_t(us) * 1000;
    EXPECT_EQ(by_bound, want_bound);
    for (auto [bound, pct] : want["share_pct"].get_object()) {
      auto const b = std::string(bound);
      double const share = by_bound.count(b) ? double(by_bound[b]) / double(w.total_ns) : 0.0;
      EXPECT_NEAR(share * 100, double(pct), 1e-9) << b;
    }
    // Edge by edge: type, weight and the times of both ends (HTA's from its trace start).
    auto const path = want["path"].get_array();
    ASSERT_EQ(path.size(), w.edges.size());
    std::int64_t const origin_us = w.edges.front().from_ns / 1000 - int64_t(path.at(0).at(2));
    std::size_t i = 0;
    for (auto edge : path) {
      auto const& e = w.edges[i++];
      SCOPED_TRACE("edge " + std::to_string(i - 1));
      EXPECT_EQ(ts::path_edge_type_name(e.type), std::string_view(edge.at(0)));
      EXPECT_EQ(e.weight_ns, int64_t(edge.at(1)) * 1000);
      EXPECT_EQ(e.from_ns / 1000 - origin_us, int64_t(edge.at(2)));
      EXPECT_EQ(e.to_ns / 1000 - origin_us, int64_t(edge.at(3)));
    }
  }
}

TEST(critical_path, simple_add_edges_weigh_what_htas_tests_assert) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  job const j(files_in(dir / "kineto/hta_critical_path_simple_add"));
  auto const result = ts::critical_path(*j.session, options_of(hta_cases()[0]));
  ASSERT_EQ(result.windows.size(), 1u);
  auto const links = cp::link_launches(*j.model);
  auto const g = graph_of(j, links, result.windows[0]);
  auto const& t = j.table;
  // The events HTA's test names by index, here by name and start (µs on the trace's clock).
  auto row = [&](std::string_view prefix, std::int64_t start_us) {
    for (std::size_t r = 0; r < t.size(); ++r)
      if (t.start_ns[r] == start_us * 1000 && t.strings().at(t.name[r]).starts_with(prefix))
        return r;
    ADD_FAILURE() << "no " << prefix << " at " << start_us;
    return std::size_t{0};
  };
  auto const relu = row("aten::relu_", 1694040009871913);
  auto const clamp = row("aten::clamp_min_", 1694040009871928);
  auto const launch = row("cudaLaunchKernel", 1694040009871942);
  auto const fft = row("void fft2d_r2c_32x32", 1694040010076734);
  auto const gemm = row("ampere_gcgemm_64x64_nt", 1694040010076804);
  auto const epilogue = row("void epilogue::impl::globalKernel", 1694040010096876);
  auto const sync = row("cudaDeviceSynchronize", 1694040010097115);
  auto start = [&](std::size_t r) { return g.nodes_of(r)->first; };
  auto end = [&](std::size_t r) { return g.nodes_of(r)->second; };
  auto edge = [&](std::uint32_t from, std::uint32_t to) -> cp::graph_edge {
    for (auto const& e : g.edges)
      if (e.from == from && e.to == to) return e;
    ADD_FAILURE() << "no edge " << from << " -> " << to;
    return {};
  };
  auto const op = ts::path_edge_type::operator_span;
  //  --------------aten::relu_---------------
  //   <e1>|-------aten::clamp_min_------|<e5>
  //       <-e2->|cudaLaunchKernel|<-e4->
  //             | <-----e3-----> |
  struct expected {
    std::uint32_t from, to;
    std::int64_t weight_us;
    std::size_t event;
  };
  for (auto const& x :
       {expected{start(relu), start(clamp), 15, relu},
        expected{start(clamp), start(launch), 14, clamp},
        expected{start(launch), end(launch), 17, launch},
        expected{end(launch), end(clamp), 15, clamp}, expected{end(clamp), end(relu), 32, relu}}) {
    auto const e = edge(x.from, x.to);
    EXPECT_EQ(e.type, op);
    EXPECT_EQ(e.weight, x.weight_us * 1000);
    EXPECT_EQ(e.event, static_cast<std::int64_t>(x.event));
  }
  auto const fft_launch = edge(start(static_cast<std::size_t>(links.linked[fft])), start(fft));
  EXPECT_EQ(fft_launch.type, ts::path_edge_type::kernel_launch_delay);
  EXPECT_EQ(fft_launch.weight, 27'000);
  auto const kernel_kernel = edge(end(fft), start(gemm));
  EXPECT_EQ(kernel_kernel.type, ts::path_edge_type::kernel_kernel_delay);
  EXPECT_EQ(kernel_kernel.weight, 7'000);
  auto const causal = edge(start(static_cast<std::size_t>(links.linked[gemm])), start(gemm));
  EXPECT_EQ(causal.type, ts::path_edge_type::kernel_launch_delay);
  EXPECT_EQ(causal.weight, 0);
  auto const device_sync = edge(end(epilogue), end(sync));
  EXPECT_EQ(device_sync.type, ts::path_edge_type::sync_dependency);
  EXPECT_EQ(device_sync.weight, 0);
  // Operator and kernel-kernel edges are attributed to an event; the others are not.
  for (auto const& e : g.edges) {
    bool const attributed = e.type == op || e.type == ts::path_edge_type::kernel_kernel_delay;
    EXPECT_EQ(e.event >= 0, attributed);
  }
}

TEST(critical_path, every_sync_edge_weighs_zero_and_the_synchronising_traces_have_them) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  for (auto const& c : hta_cases()) {
    SCOPED_TRACE(c.folder);
    job const j(files_in(dir / "kineto" / c.folder));
    auto const result = ts::critical_path(*j.session, options_of(c));
    ASSERT_EQ(result.windows.size(), 1u);
    auto const links = cp::link_launches(*j.model);
    auto const g = graph_of(j, links, result.windows[0]);
    EXPECT_EQ(g.edges.size(), result.windows[0].graph_edges);
    std::size_t syncs = 0;
    for (auto const& e : g.edges)
      if (e.type == ts::path_edge_type::sync_dependency) {
        ++syncs;
        EXPECT_EQ(e.weight, 0);
      }
    EXPECT_GT(syncs, 0u);
  }
}

namespace {

/// A step of one host thread and one stream whose critical path is derived by hand (ns):
///   host  ProfilerStep#1 [0, 1000]
///         A [0, 100] ⊃ cudaLaunchKernel L1 [10, 20]       → k1 [30, 400]
///         B [100, 200] ⊃ cudaLaunchKernel L2 [110, 120]   → k2 [400, 850]
///         C [200, 900] ⊃ cudaDeviceSynchronize S [600, 890] ← context sync [615, 860]
/// The path: A's 10 ns to L1, L1's launch delay 20, k1 370, k1 → k2 0, k2 450, k2 → S's end
/// (sync, 0), S's end → C's end 10: 860 ns. The host alone takes A 100 + B 100 + C to S 400 +
/// C after S 10 = 610 ns. As Kineto writes it (A, B, C operators; the step an annotation), or as
/// an nsys export (NVTX ranges; the step's a window, no operator; versioned runtime names; nsys's
/// sync type): the same path.
ts::event_table known_chain(bool nsys) {
  ts::event_table t;
  t.begin_input(nsys ? "step.sqlite" : "step.json", nsys ? "nsys-sqlite" : "kineto-json");
  auto add = [&](ts::event_kind kind, std::int64_t start, std::int64_t end, std::string_view name,
                 ts::category_role family, std::int64_t correlation = -1, std::int32_t device = -1,
                 std::int64_t stream = 100) {
    ts::event e;
    e.kind = kind, e.start_ns = start, e.end_ns = end, e.device = device, e.stream = stream;
    e.name = t.strings().intern(name), e.correlation = correlation;
    e.role = nsys ? ts::event_role() : ts::event_role(family);
    t.append(e);
  };
  using k = ts::event_kind;
  using f = ts::category_role;
  auto const op = nsys ? k::user_range : k::cpu_op;
  std::string_view const launch = nsys ? "cudaLaunchKernel_v7000" : "cudaLaunchKernel";
  add(nsys ? k::user_range : k::profiler_step, 0, 1000, "ProfilerStep#1", f::annotation);
  add(op, 0, 100, "aten::A", f::op);
  add(k::api_call, 10, 20, launch, f::runtime, 1);
  add(op, 100, 200, "aten::B", f::op);
  add(k::api_call, 110, 120, launch, f::runtime, 2);
  add(op, 200, 900, "aten::C", f::op);
  add(k::api_call, 600, 890, nsys ? "cudaDeviceSynchronize_v3020" : "cudaDeviceSynchronize",
      f::runtime, 3);
  add(k::kernel, 30, 400, "k1", f::none, 1, 0, 7);
  add(k::kernel, 400, 850, "k2", f::none, 2, 0, 7);
  add(k::synchronization, 615, 860, nsys ? "Context sync" : "Context Sync", f::none, 3, 0,
      nsys ? 4294967295 : -1);
  t.finish_input();
  return t;
}

std::string name_of(ts::event_table const& t, std::size_t row) {
  return std::string(t.strings().at(t.name[row]));
}

}  // namespace

TEST(critical_path, a_known_chain_gives_the_hand_derived_path_what_ifs_and_payoffs) {
  for (bool const nsys : {false, true}) {
    SCOPED_TRACE(nsys ? "nsys" : "kineto");
    job const j(known_chain(nsys));
    ts::critical_path_options o;
    o.what_ifs = {{"^k2$", 0.5}};
    auto const result = ts::critical_path(*j.session, o);
    ASSERT_EQ(result.windows.size(), 1u);  // the step
    auto const& w = result.windows.front();
    auto const& t = j.table;
    EXPECT_EQ(w.name, "ProfilerStep#1");
    EXPECT_EQ(w.total_ns, 860);
    using type = ts::path_edge_type;
    struct expected {
      std::string from, to;
      type kind;
      std::int64_t weight;
      std::string event;
    };
    std::string const launch = nsys ? "cudaLaunchKernel_v7000" : "cudaLaunchKernel";
    std::string const sync = nsys ? "cudaDeviceSynchronize_v3020" : "cudaDeviceSynchronize";
    std::vector<expected> want{
        {"aten::A", launch, type::operator_span, 10, "aten::A"},
        {launch, "k1", type::kernel_launch_delay, 20, ""},
        {"k1", "k1", type::operator_span, 370, "k1"},
        {"k1", "k2", type::kernel_kernel_delay, 0, "k1"},
        {"k2", "k2", type::operator_span, 450, "k2"},
        {"k2", sync, type::sync_dependency, 0, ""},
        {sync, "aten::C", type::operator_span, 10, "aten::C"},
    };
    ASSERT_EQ(w.edges.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      auto const& e = w.edges[i];
      SCOPED_TRACE("edge " + std::to_string(i));
      EXPECT_EQ(name_of(t, e.from_row), want[i].from);
      EXPECT_EQ(name_of(t, e.to_row), want[i].to);
      EXPECT_EQ(e.type, want[i].kind);
      EXPECT_EQ(e.weight_ns, want[i].weight);
      EXPECT_EQ(e.event >= 0 ? name_of(t, static_cast<std::size_t>(e.event)) : "", want[i].event);
    }
    auto bound = [&](ts::path_bound b) { return w.bound_ns[static_cast<std::size_t>(b)]; };
    EXPECT_EQ(bound(ts::path_bound::cpu_bound), 20);
    EXPECT_EQ(bound(ts::path_bound::gpu_compute_bound), 820);
    EXPECT_EQ(bound(ts::path_bound::gpu_kernel_launch_overhead), 20);
    EXPECT_EQ(bound(ts::path_bound::gpu_kernel_kernel_overhead), 0);
    EXPECT_EQ(w.path_events, 6u);  // A, L1, k1, k2, S, C
    // k2 at half its time: 225 ns shorter, the GPU chain still the longer (635 > 610).
    ASSERT_TRUE(w.what_if_ns);
    EXPECT_EQ(*w.what_if_ns, 635);
    // Without k2 the host's 610 ns take over: 250 saved, not k2's 450. Without k1 the chain
    // through L2's launch (110 + 450 + 10 = 570) is still shorter than the host's 610.
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> payoff;
    for (auto const& p : w.payoffs) payoff[name_of(t, p.row)] = {p.time_ns, p.saved_ns};
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> want_payoff{
        {"k2", {450, 250}}, {"k1", {370, 250}}, {"aten::A", {10, 10}}, {"aten::C", {10, 10}}};
    EXPECT_EQ(payoff, want_payoff);
    ASSERT_GE(w.events.size(), 2u);
    EXPECT_EQ(name_of(t, w.events[0].row), "k2");
    EXPECT_EQ(name_of(t, w.events[1].row), "k1");
  }
}

TEST(critical_path, every_real_trace_gives_a_path_an_independent_search_agrees_with) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  for (auto const& path : ts::test::real_trace_jobs(dir)) {
    SCOPED_TRACE(path.string());
    job const j(ts::expand_inputs({path.string()}));
    auto const result = ts::critical_path(*j.session, {});
    ASSERT_FALSE(result.windows.empty());
    auto const links = cp::link_launches(*j.model);
    std::size_t checked = 0;
    for (auto const& w : result.windows) {
      ASSERT_EQ(w.failure, "") << "rank " << w.rank << " window " << w.instance;
      std::int64_t sum = 0;
      for (std::size_t i = 0; i < w.edges.size(); ++i) {
        EXPECT_GE(w.edges[i].weight_ns, 0);
        sum += w.edges[i].weight_ns;
        if (i > 0) {  // consecutive: each edge starts where the last ended
          EXPECT_EQ(w.edges[i].from_row, w.edges[i - 1].to_row);
          EXPECT_EQ(w.edges[i].from_start, w.edges[i - 1].to_start);
        }
      }
      EXPECT_EQ(sum, w.total_ns);
      if (checked++ < 3) {  // the first windows of each job
        auto const g = graph_of(j, links, w);
        EXPECT_EQ(g.edges.size(), w.graph_edges);
        EXPECT_EQ(longest_by_search(g), w.total_ns);
      }
    }
  }
}

TEST(critical_path, every_kernel_of_a_call_that_launches_several_is_in_the_graph) {
  // A CUDA graph's kernels share their launch's correlation id: both run on the path.
  //   host  ProfilerStep#1 [0, 600] ⊃ aten::A [0, 50] ⊃ cudaGraphLaunch [10, 20]
  //   GPU   g1 [30, 100], g2 [100, 500] (stream 7)
  // The path: A's 10 ns to the call, the call's start → g1 (no queue counted for a graph
  // launch: a zero-weight launch edge), g1 70, g1 → g2 0, g2 400: 480 ns.
  ts::event_table t;
  t.begin_input("graph.json", "kineto-json");
  auto add = [&](ts::event_kind kind, std::int64_t start, std::int64_t end, std::string_view name,
                 ts::category_role family, std::int64_t correlation, std::int32_t device,
                 std::int64_t stream) {
    ts::event e;
    e.kind = kind, e.start_ns = start, e.end_ns = end, e.device = device, e.stream = stream;
    e.name = t.strings().intern(name), e.correlation = correlation;
    e.role = ts::event_role(family);
    t.append(e);
  };
  using k = ts::event_kind;
  using f = ts::category_role;
  add(k::profiler_step, 0, 600, "ProfilerStep#1", f::annotation, -1, -1, 100);
  add(k::cpu_op, 0, 50, "aten::A", f::op, -1, -1, 100);
  add(k::api_call, 10, 20, "cudaGraphLaunch", f::runtime, 1, -1, 100);
  add(k::kernel, 30, 100, "g1", f::none, 1, 0, 7);
  add(k::kernel, 100, 500, "g2", f::none, 1, 0, 7);
  t.finish_input();
  job const j(std::move(t));
  auto const result = ts::critical_path(*j.session, {});
  ASSERT_EQ(result.windows.size(), 1u);
  auto const& w = result.windows.front();
  EXPECT_EQ(w.total_ns, 480);
  std::vector<std::string> kernels;
  for (auto const& e : w.events)
    if (j.table.kind[e.row] == ts::event_kind::kernel) kernels.push_back(name_of(j.table, e.row));
  EXPECT_EQ(kernels, (std::vector<std::string>{"g2", "g1"}));
}

TEST(critical_path, the_edge_and_event_listings_make_their_rows_when_written_without_the_table) {
  ts::output::result_set set;
  std::vector<std::string> edge_from, event_names;
  {
    job const j(known_chain(false));
    auto const result = ts::critical_path(*j.session, {});
    ASSERT_EQ(result.windows.size(), 1u);
    for (auto const& e : result.windows[0].edges) edge_from.push_back(name_of(j.table, e.from_row));
    for (auto const& e : result.windows[0].events) event_names.push_back(name_of(j.table, e.row));
    set = ts::critical_path_results(result, *j.model);
  }  // the event table is gone, as when a Python caller keeps the results
  auto const table = [&](std::string const& name, unsigned views) -> ts::output::result_table& {
    auto const at = std::find_if(set.tables.begin(), set.tables.end(), [&](auto const& t) {
      return t.name == name && (t.views & views) != 0;
    });
    EXPECT_NE(at, set.tables.end()) << name;
    return *at;
  };
  auto const& edges = table("critical_path_edges", ts::output::json);
  EXPECT_TRUE(edges.rows.empty());  // made one at a time, not held
  ASSERT_EQ(ts::output::row_count(edges), edge_from.size());
  for (std::size_t i = 0; i < edge_from.size(); ++i) {
    auto const r = edges.generate(i);
    EXPECT_EQ(std::get<std::int64_t>(r.cells[2]), static_cast<std::int64_t>(i));  // index
    EXPECT_EQ(std::get<std::string>(r.cells[3]), edge_from[i]);
  }
  auto const& events = table("critical_path_events", ts::output::json);
  EXPECT_TRUE(events.rows.empty());
  ASSERT_EQ(ts::output::row_count(events), event_names.size());
  std::vector<std::string> listed;
  ts::output::for_each_row(events, [&](ts::output::row const& r) {
    listed.push_back(std::get<std::string>(r.cells[2]));
  });
  EXPECT_EQ(listed, event_names);
  // The text's list of each path's costliest events is held: it is short.
  auto const& top = table("critical_path_events", ts::output::text);
  EXPECT_EQ(top.rows.size(), std::min<std::size_t>(10, event_names.size()));
}
