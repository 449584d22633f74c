// SPDX-License-Identifier: Apache-2.0
// Kineto Chrome-trace JSON as the PyTorch profiler writes it today: one file per rank with
// schemaVersion, deviceProperties, distributedInfo, baseTimeNanoseconds and "us.nnn" ts relative
// to it; X events with Kineto's fixed key order and args (device, stream, correlation, grid,
// block, bytes, bandwidth); each runtime call wrapped in the aten cpu_op that issued it and
// linked to its GPU row by an ac2g flow pair, as Kineto does; process/thread metadata.
// Text is built with fmt into a large buffer and written in big blocks (zlib for .gz).
#include <tracesweep/generator/kineto_json_writer.hpp>

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace tracesweep {

namespace {

constexpr std::size_t flush_bytes = std::size_t{16} << 20;

/// Buffered output to a plain or gzip file.
class sink {
 public:
  sink(std::string const& path, bool gzip) : _path(path) {
    if (gzip) {
      _gz = gzopen(path.c_str(), "wb6");
      if (!_gz) throw std::runtime_error("cannot create " + path);
      gzbuffer(_gz, 1 << 20);
    } else {
      _file = std::fopen(path.c_str(), "wb");
      if (!_file) throw std::runtime_error("cannot create " + path);
    }
  }
  sink(sink const&) = delete;
  sink& operator=(sink const&) = delete;
  ~sink() {
    if (_gz) gzclose(_gz);
    if (_file) std::fclose(_file);
  }
  fmt::memory_buffer& buf() { return _buf; }
  void maybe_flush() {
    if (_buf.size() >= flush_bytes) flush();
  }
  void flush() {
    std::size_t done = 0;
    while (done < _buf.size()) {
      auto const n = std::min<std::size_t>(_buf.size() - done, 1u << 30);
      bool ok =
          _gz ? gzwrite(_gz, _buf.data() + done, static_cast<unsigned>(n)) == static_cast<int>(n)
              : std::fwrite(_buf.data() + done, 1, n, _file) == n;
      if (!ok) throw std::runtime_error("write failed: " + _path);
      done += n;
    }
    _buf.clear();
  }
  void close() {
    flush();
    if (_gz && gzclose(_gz) != Z_OK) throw std::runtime_error("write failed: " + _path);
    if (_file && std::fclose(_file) != 0) throw std::runtime_error("write failed: " + _path);
    _gz = nullptr;
    _file = nullptr;
  }

 private:
  std::string _path;
  gzFile _gz = nullptr;
  std::FILE* _file = nullptr;
  fmt::memory_buffer _buf;
};

/// JSON string body (without quotes).
void put_escaped(fmt::memory_buffer& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '"':
        out.append(std::string_view("\\\""));
        break;
      case '\\':
        out.append(std::string_view("\\\\"));
        break;
      case '\n':
        out.append(std::string_view("\\n"));
        break;
      case '\t':
        out.append(std::string_view("\\t"));
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        else
          out.push_back(c);
    }
  }
}

/// Relative ns as Kineto's "us.nnn".
void put_us(fmt::memory_buffer& out, std::int64_t ns) {
  if (ns < 0) {
    out.push_back('-');
    ns = -ns;
  }
  fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
}

std::string_view default_category(event_kind k) {
  switch (k) {
    case event_kind::kernel:
      return "kernel";
    case event_kind::memcpy:
      return "gpu_memcpy";
    case event_kind::memset:
      return "gpu_memset";
    case event_kind::synchronization:
      return "cuda_sync";
    case event_kind::api_call:
      return "cuda_runtime";
    case event_kind::cpu_op:
      return "cpu_op";
    default:
      return "user_annotation";
  }
}

/// The aten op PyTorch runs around a runtime call of this name.
std::string_view aten_parent(std::string_view api) {
  if (api.find("Memcpy") != std::string_view::npos) return "aten::copy_";
  if (api.find("Memset") != std::string_view::npos) return "aten::zero_";
  if (api.find("Synchronize") != std::string_view::npos) return "aten::item";
  if (api.find("ExC") != std::string_view::npos) return "record_param_comms";
  return "aten::mm";
}

/// Ends a cpu_op's args with the input shapes and types Kineto records under record_shapes (one
/// of a few typical signatures, chosen by the op's external id).
void put_shapes(fmt::memory_buffer& out, std::int64_t external) {
  static constexpr std::string_view signatures[] = {
      R"(, "Input Dims": [[1], [], []], "Input type": ["int", "Scalar", "Scalar"]}})",
      R"(, "Input Dims": [[4096, 1024], [1024, 1024], []], "Input type": ["float", "float", "Scalar"]}})",
      R"(, "Input Dims": [[32, 128, 1024]], "Input type": ["c10::BFloat16"]}})",
      R"(, "Input Dims": [[1024], [1024]], "Input type": ["float", "float"]}})"};
  out.append(signatures[static_cast<std::uint64_t>(external) % std::size(signatures)]);
}

/// A collective kernel's args as Kineto records them for NCCL kernels (after its launch args).
void put_collective_args(fmt::memory_buffer& b, string_pool const& strings,
                         collective_args const& c) {
  auto text = [&](string_id id) { return id == string_pool::npos ? "" : strings.at(id); };
  fmt::format_to(std::back_inserter(b),
                 ", \"Collective name\": \"{}\", \"In msg nelems\": {}, \"Out msg nelems\": {}, "
                 "\"Group size\": {}, \"dtype\": \"{}\", \"In split size\": \"[]\", "
                 "\"Out split size\": \"[]\", \"Process Group Name\": \"{}\", "
                 "\"Process Group Description\": \"default_pg\"",
                 text(c.operation), c.in_elements, c.out_elements, c.group_size, text(c.dtype),
                 text(c.process_group));
}

/// CUPTI's runtime callback id of a call, as Kineto records it in args.cbid.
int callback_id(std::string_view api) {
  if (api == "cudaEventQuery") return 138;
  if (api == "cudaMemcpyAsync") return 41;
  if (api == "cudaMemsetAsync") return 51;
  if (api == "cudaStreamSynchronize") return 131;
  if (api == "cudaLaunchKernelExC") return 430;
  return 211;  // cudaLaunchKernel
}

/// The rank's memory events as Kineto writes them with profile_memory: `[memory]` instant
/// events on the allocating thread, Device Type 1 (CUDA) or 0 (CPU, Device Id -1).
void write_memory_events(event_table const& table, std::int32_t rank, std::int64_t pid,
                         std::int64_t base, fmt::memory_buffer& b) {
  auto const& m = table.memory;
  auto it = std::back_inserter(b);
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m.rank[i] != rank) continue;
    fmt::format_to(it,
                   ",\n  {{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
                   "\"name\": \"[memory]\", \"pid\": {}, \"tid\": {}, \"ts\": ",
                   pid, m.thread[i] >= 0 ? m.thread[i] : pid);
    put_us(b, m.time_ns[i] - base);
    fmt::format_to(it,
                   ", \"args\": {{\"Total Reserved\": {}, \"Total Allocated\": {}, \"Bytes\": {}, "
                   "\"Addr\": {}, \"Device Id\": {}, \"Device Type\": {}}}}}",
                   m.reserved[i], m.allocated[i], m.bytes[i], 0x7f0000000000 + 4096 * i,
                   m.device[i], m.device[i] < 0 ? 0 : 1);
  }
}

}  // namespace

std::vector<std::string> write_kineto_json(event_table const& table, std::string const& path_prefix,
                                           bool gzip) {
  auto const& strings = table.strings();
  std::map<std::int32_t, std::vector<std::size_t>> rows_of_rank;
  for (std::size_t i = 0; i < table.size(); ++i) rows_of_rank[table.rank[i]].push_back(i);
  auto const world = static_cast<std::int32_t>(rows_of_rank.size());

  std::vector<std::string> written;
  for (auto const& [rank, rows] : rows_of_rank) {
    auto const path = fmt::format("{}rank-{}.json{}", path_prefix, rank, gzip ? ".gz" : "");
    sink out(path, gzip);
    auto& b = out.buf();
    auto it = std::back_inserter(b);

    std::int64_t min_start = INT64_MAX;
    std::set<std::int32_t> devices;
    std::set<std::pair<std::int32_t, std::int64_t>> device_streams;
    std::set<std::int64_t> threads;
    std::unordered_map<std::int64_t, std::int64_t> device_start_of_corr;
    for (auto i : rows) {
      min_start = std::min(min_start, table.start_ns[i]);
      if (table.device[i] >= 0) {
        devices.insert(table.device[i]);
        device_streams.emplace(table.device[i], table.stream[i]);
        if (table.correlation_of(i) >= 0)
          device_start_of_corr[table.correlation_of(i)] = table.start_ns[i];
      } else {
        threads.insert(table.stream[i]);
      }
    }
    // Kineto's base: the profiler's start, here the first event rounded down to the second.
    std::int64_t const base =
        min_start - ((min_start % 1'000'000'000) + 1'000'000'000) % 1'000'000'000;
    std::int64_t const pid = 10'000 + rank;

    fmt::format_to(it, "{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
    bool first = true;
    for (auto d : devices) {
      fmt::format_to(
          it,
          "{}\n    {{\"id\": {}, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": "
          "84974239744, \"computeMajor\": 8, \"computeMinor\": 0, \"maxThreadsPerBlock\": "
          "1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, "
          "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": "
          "49152, \"sharedMemPerMultiprocessor\": 167936, \"numSms\": 108, "
          "\"sharedMemPerBlockOptin\": 166912}}",
          first ? "" : ",", d);
      first = false;
    }
    fmt::format_to(
        it,
        "\n  ],\n  \"record_shapes\": 1,\n  \"distributedInfo\": {{\"backend\": \"nccl\", "
        "\"rank\": {}, \"world_size\": {}, \"pg_count\": 1}},\n  \"displayTimeUnit\": "
        "\"ms\",\n  \"baseTimeNanoseconds\": {},\n  \"traceEvents\": [\n",
        rank, world, base);
    // Metadata first, as Kineto writes it.
    fmt::format_to(it,
                   "  {{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {}, "
                   "\"tid\": 0, \"args\": {{\"name\": \"python3\"}}}}",
                   pid);
    for (auto t : threads)
      fmt::format_to(it,
                     ",\n  {{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {}, "
                     "\"tid\": {}, \"args\": {{\"name\": \"thread {} (python3)\"}}}}",
                     pid, t, t);
    for (auto d : devices)
      fmt::format_to(
          it,
          ",\n  {{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {}, "
          "\"tid\": 0, \"args\": {{\"name\": \"GPU {}\"}}}}",
          d, d);
    for (auto const& [d, s] : device_streams)
      fmt::format_to(it,
                     ",\n  {{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {}, "
                     "\"tid\": {}, \"args\": {{\"name\": \"stream {}\"}}}}",
                     d, s, s);

    std::int64_t external = 0;
    auto head = [&](std::string_view cat, std::string_view name, std::int64_t p, std::int64_t t,
                    std::int64_t start, std::int64_t dur) {
      b.append(std::string_view(",\n  {\"ph\": \"X\", \"cat\": \""));
      put_escaped(b, cat);
      b.append(std::string_view("\", \"name\": \""));
      put_escaped(b, name);
      fmt::format_to(it, "\", \"pid\": {}, \"tid\": {}, \"ts\": ", p, t);
      put_us(b, start - base);
      b.append(std::string_view(", \"dur\": "));
      put_us(b, dur);
    };
    auto flow = [&](char phase, std::int64_t corr, std::int64_t p, std::int64_t t,
                    std::int64_t at) {
      fmt::format_to(it,
                     ",\n  {{\"ph\": \"{}\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": ", phase,
                     corr, p, t);
      put_us(b, at - base);
      b.append(phase == 'f'
                   ? std::string_view(", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}")
                   : std::string_view(", \"cat\": \"ac2g\", \"name\": \"ac2g\"}"));
    };
    for (auto i : rows) {
      auto const kind = table.kind[i];
      auto const name = strings.at(table.name[i]);
      auto cat = strings.at(table.category[i]);
      if (cat.empty()) cat = default_category(kind);
      auto const start = table.start_ns[i];
      auto const dur = table.end_ns[i] - start;
      auto const corr = table.correlation_of(i);
      ++external;
      if (table.device[i] >= 0) {
        auto const d = table.device[i];
        auto const s = table.stream[i];
        head(cat, name, d, s, start, dur);
        if (kind == event_kind::kernel) {
          // The launch configuration follows the kernel (its name), as a real kernel's does for a
          // given input size: long tails of one configuration stay findable.
          auto const blocks = 1 + (static_cast<std::uint64_t>(table.name[i]) * 2654435761u) % 4096;
          fmt::format_to(it,
                         ", \"args\": {{\"External id\": {}, \"queued\": 0, \"device\": {}, "
                         "\"context\": 1, \"stream\": {}, \"correlation\": {}, \"registers per "
                         "thread\": 64, \"shared memory\": 16384, \"blocks per SM\": {:.6f}, "
                         "\"warps per SM\": {:.6f}, \"grid\": [{}, 1, 1], \"block\": [256, 1, 1], "
                         "\"est. achieved occupancy %\": {}",
                         external, d, s, corr, blocks / 108.0, blocks * 8 / 108.0, blocks,
                         std::min<std::uint64_t>(100, blocks * 25 / 108));
          if (auto const* c = table.collectives.find(i)) put_collective_args(b, strings, *c);
          b.append(std::string_view("}}"));
        } else if (kind == event_kind::memcpy || kind == event_kind::memset) {
          fmt::format_to(
              it,
              ", \"args\": {{\"External id\": {}, \"device\": {}, \"context\": 1, "
              "\"stream\": {}, \"correlation\": {}, \"bytes\": {}, \"memory bandwidth "
              "(GB/s)\": {:.6f}}}}}",
              external, d, s, corr, table.bytes_of(i),
              dur > 0 ? static_cast<double>(table.bytes_of(i)) / static_cast<double>(dur) : 0.0);
        } else if (kind == event_kind::synchronization) {
          fmt::format_to(it,
                         ", \"args\": {{\"External id\": {}, \"cuda_sync_kind\": \"Stream Sync\", "
                         "\"stream\": {}, \"correlation\": {}, \"device\": {}, \"context\": 1}}}}",
                         external, s, corr, d);
        } else {
          fmt::format_to(it, ", \"args\": {{\"External id\": {}, \"device\": {}}}}}", external, d);
        }
        if (corr >= 0 && kind != event_kind::synchronization) flow('f', corr, d, s, start);
      } else {
        auto const t = table.stream[i] >= 0 ? table.stream[i] : pid;
        if (kind == event_kind::api_call) {
          bool const launches = corr >= 0 && device_start_of_corr.contains(corr);
          // A call that launches device work: the aten op around it (1 µs either side), then
          // the call, then its flow start.
          if (launches) {
            head("cpu_op", aten_parent(name), pid, t, start - 1000, dur + 2000);
            fmt::format_to(it,
                           ", \"args\": {{\"External id\": {}, \"Record function id\": 0, "
                           "\"Sequence number\": {}, \"Fwd thread id\": 0, \"Ev Idx\": {}",
                           external, external, external);
            put_shapes(b, external);
          }
          head(cat, name, pid, t, start, dur);
          fmt::format_to(it,
                         ", \"args\": {{\"External id\": {}, \"cbid\": {}, \"correlation\": {}}}}}",
                         external, callback_id(name), corr);
          // A call with no device work (cudaEventQuery polling, …) is issued outside any aten
          // op and gets a flow end on the host thread, as the real Kineto traces in
          // ../shared/traces/kineto have (hta_negative_queue_length_a100, alexnet, nccl_allreduce).
          if (launches)
            flow('s', corr, pid, t, start);
          else if (corr >= 0)
            flow('f', corr, pid, t, start);
        } else {
          head(cat, name, pid, t, start, dur);
          fmt::format_to(it, ", \"args\": {{\"External id\": {}, \"Ev Idx\": {}", external,
                         external);
          if (cat == "cpu_op")
            put_shapes(b, external);
          else
            b.append(std::string_view("}}"));
        }
      }
      out.maybe_flush();
    }
    write_memory_events(table, rank, pid, base, b);
    fmt::format_to(it, "\n  ],\n  \"traceName\": \"{}\"\n}}\n", path);
    out.close();
    written.push_back(path);
  }
  return written;
}

}  // namespace tracesweep
