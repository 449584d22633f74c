// SPDX-License-Identifier: Apache-2.0
// The Chrome-trace reader on hand-written files: layout variants (keys after traceEvents, bare
// array, concatenated gzip members, BOM, many chunks with tricky strings), a PaddlePaddle
// export with every quirk of its writer, each defect class (fatal and skipped), the kind
// mapping, and ranks across several inputs. Expected values are derived in the comments.
#include <tracesweep/error.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include <gtest/gtest.h>

#include "ingest/chrome/byte_source.hpp"
#include "ingest/chrome/chrome_source_reader.hpp"
#include "ingest/chrome/event_classifier.hpp"
#include "ingest/chrome/event_splitter.hpp"
#include "test_json.hpp"

#include <unistd.h>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <span>
#include <string>

namespace tracesweep::test {
namespace reader_test {

namespace fs = std::filesystem;

class ChromeReader : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    _dir = fs::temp_directory_path() /
           ("tracesweep_chrome_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(_dir);
  }
  void TearDown() override { fs::remove_all(_dir); }

  std::string file(std::string const& name, std::string_view text, bool gzip = false) {
    auto const path = _dir / name;
    gzip ? write_gzip(path, text) : write_text(path, text);
    return path.string();
  }
  static event_table read(std::string const& path, unsigned threads = 1) {
    event_table t;
    read_options o;
    o.threads = threads;
    read_input(path, t, o);
    return t;
  }
  /// The error a fatal file raises; the table must be left as it was.
  static input_error fatal(std::string const& path) {
    event_table t;
    t.begin_input("earlier", "test");
    t.append(event{1, 2});
    t.finish_input();
    try {
      read_options o;
      o.threads = 1;
      read_input(path, t, o);
    } catch (input_error const& e) {
      EXPECT_EQ(t.size(), 1u);
      EXPECT_EQ(t.inputs().size(), 1u);
      return e;
    }
    ADD_FAILURE() << path << " was read without error";
    return input_error(path, "", "");
  }

  fs::path _dir;
};

std::string name_of(event_table const& t, std::size_t i) {
  return std::string(t.strings().at(t.name[i]));
}
std::string cat_of(event_table const& t, std::size_t i) {
  return std::string(t.strings().at(t.category[i]));
}

TEST_F(ChromeReader, TopLevelKeysAfterTraceEventsStillApply) {
  auto const path = file("late.json", R"({"schemaVersion": 1,
    "traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 3, "tid": 9, "ts": 10.5, "dur": 2.25,
       "args": {"stream": 9, "correlation": 44}}
    ],
    "distributedInfo": {"backend": "nccl", "rank": 5, "world_size": 8},
    "baseTimeNanoseconds": 1700000000000000000, "traceName": "x"})");
  auto const t = read(path);
  ASSERT_EQ(t.size(), 1u);
  // 10.5 µs = 10500 ns after the base; dur 2.25 µs = 2250 ns.
  EXPECT_EQ(t.start_ns[0], 1700000000000010500);
  EXPECT_EQ(t.end_ns[0], 1700000000000012750);
  EXPECT_EQ(t.rank[0], 5);
  EXPECT_EQ(t.device[0], 3);  // no args.device: the GPU row's pid
  EXPECT_EQ(t.stream[0], 9);
  EXPECT_EQ(t.correlation_of(0), 44);
  EXPECT_EQ(t.inputs()[0].ranks, std::vector<std::int32_t>{5});
  EXPECT_EQ(t.inputs()[0].format, "kineto-json");
}

TEST_F(ChromeReader, BareArrayBomAndFallbackRank) {
  auto const path = file("bare.json",
                         "\xEF\xBB\xBF  [ {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                         "\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":1} ]\n");
  event_table t;
  read_options o;
  o.fallback_rank = 3;
  read_input(path, t, o);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.rank[0], 3);
  EXPECT_EQ(t.kind[0], event_kind::cpu_op);
  EXPECT_EQ(t.device[0], -1);
  EXPECT_EQ(t.stream[0], 2);
}

// A source may hand out fewer bytes a read than the byte order mark's three (a pipe, a short
// read): the mark must still be recognised, not taken for a file that is not JSON.
TEST_F(ChromeReader, BomSplitAcrossShortReads) {
  std::string const text =
      "\xEF\xBB\xBF{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
      "\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":1}]}";
  for (std::size_t max_read : {1, 2, 3, 1000}) {
    SCOPED_TRACE(max_read);
    auto source =
        chrome::open_memory_source("bom.json", std::span(text.data(), text.size()), max_read);
    event_table t;
    read_options o;
    o.threads = 1;
    chrome::read_chrome_source(*source, "bom.json", t, o);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t.kind[0], event_kind::kernel);
    EXPECT_EQ(t.start_ns[0], 5000);  // 5 µs
    EXPECT_EQ(t.end_ns[0], 6000);
  }
}

// A row the table refuses (here a start past its time range) must not shift which row gets a
// thread named by text: each keeps the number of its own tid, -2 - the tid text's string id.
TEST_F(ChromeReader, TextThreadsStayOnTheirRowsPastARefusedRow) {
  auto const path = file("text_tids.json", R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": "loader", "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "far", "pid": 1, "tid": 3, "ts": 5000000000000000, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": "main", "ts": 2, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 7, "ts": 3, "dur": 1}]})");
  auto const t = read(path);
  // 5e15 µs = 5e18 ns, past the table's 2^62 ns: that row is skipped.
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.inputs()[0].skipped.at(std::string(skip_time_out_of_range)), 1);
  EXPECT_EQ(name_of(t, 1), "b");
  EXPECT_EQ(t.stream[0], -2 - static_cast<std::int64_t>(t.strings().find("loader")));
  EXPECT_EQ(t.stream[1], -2 - static_cast<std::int64_t>(t.strings().find("main")));
  EXPECT_EQ(t.stream[2], 7);
}

/// A trace of `n` events cycling through categories, with strings full of JSON metacharacters.
std::string tricky_trace(int n) {
  std::string s = R"({"deviceProperties": [{"id": 0, "name": "x]}{[\"y"}], "traceEvents": [)";
  for (int i = 0; i < n; ++i) {
    if (i) s += ",\n";
    switch (i % 4) {
      case 0:
        s += R"({"ph": "X", "cat": "kernel", "name": "k\"{[<)" + std::to_string(i % 7) +
             R"(>]}\\", "pid": 0, "tid": 7, "ts": )" + std::to_string(1000 + i) +
             R"(.125, "dur": 3.5, "args": {"device": 1, "stream": 7, "correlation": )" +
             std::to_string(i) + R"(, "grid": [1, 2, 3], "note": "]]}}\\\\"}})";
        break;
      case 1:
        s +=
            R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel\u0021", "pid": 10, "tid": 11, "ts": )" +
            std::to_string(1000 + i) + R"(, "dur": 2, "args": {"correlation": )" +
            std::to_string(i) + "}}";
        break;
      case 2:
        s +=
            R"({"ph": "s", "id": 1, "pid": 10, "tid": 11, "ts": 1, "cat": "ac2g", "name": "ac2g"})";
        break;
      default:
        s +=
            R"({"name": "thread_name", "ph": "M", "pid": 10, "tid": 11, "args": {"name": "x\"}"}})";
    }
  }
  s += R"(], "traceName": "t"})";
  return s;
}

TEST_F(ChromeReader, ManyChunksSameRowsForAnyThreadCountPlainAndGzip) {
  auto const text = tricky_trace(120000);  // ~12 MB: several 4 MiB chunks
  ASSERT_GT(text.size(), std::size_t{9} << 20);
  auto const plain = file("big.json", text);
  // Two gzip members back to back, split mid-event.
  auto const half = text.size() / 2;
  auto const a = _dir / "a.gz", b = _dir / "b.gz";
  write_gzip(a, text.substr(0, half));
  write_gzip(b, text.substr(half));
  auto const members = load_text(a).size() + load_text(b).size();
  ASSERT_EQ(members, text.size());
  std::string both;
  for (auto const& p : {a, b}) {
    std::ifstream in(p, std::ios::binary);
    both += std::string(std::istreambuf_iterator<char>(in), {});
  }
  auto const gz = file("big.json.gz", both);

  auto const t1 = read(plain, 1);
  ASSERT_EQ(t1.size(), 60000u);  // events 0 and 1 mod 4 are complete events
  for (std::size_t r = 0; r < 4; ++r) {
    auto const i = 2 * r;  // row 2r is event 4r (a kernel), row 2r+1 is event 4r+1
    EXPECT_EQ(name_of(t1, i), "k\"{[<" + std::to_string((4 * r) % 7) + ">]}\\");
    EXPECT_EQ(t1.start_ns[i], (1000 + 4 * static_cast<std::int64_t>(r)) * 1000 + 125);
    EXPECT_EQ(t1.end_ns[i] - t1.start_ns[i], 3500);
    EXPECT_EQ(t1.device[i], 1);
    EXPECT_EQ(t1.correlation_of(i), static_cast<std::int64_t>(4 * r));
    EXPECT_EQ(name_of(t1, i + 1), "cudaLaunchKernel!");
    EXPECT_EQ(t1.kind[i + 1], event_kind::api_call);
    EXPECT_EQ(t1.stream[i + 1], 11);
  }
  for (auto const& other : {read(plain, 2), read(gz, 1), read(gz, 2)}) {
    ASSERT_EQ(other.size(), t1.size());
    EXPECT_EQ(other.start_ns, t1.start_ns);
    EXPECT_EQ(other.end_ns, t1.end_ns);
    EXPECT_EQ(other.name, t1.name);  // same interning order too
    EXPECT_EQ(other.category, t1.category);
    EXPECT_EQ(other.correlation, t1.correlation);
    EXPECT_EQ(other.stream, t1.stream);
  }
}

TEST_F(ChromeReader, BackslashRunsAndQuotedBracketsAtEveryBlockOffset) {
  // Names ending in n literal backslashes (2n in JSON) then an escaped quote and brackets, for
  // n = 0..130: escape runs and quotes land at every offset of the scanner's 64-byte blocks,
  // classified by AVX-512 (where the CPU has it) and by SSE2.
  std::string text = R"({"traceEvents": [)";
  std::vector<std::string> names;
  for (int n = 0; n <= 130; ++n) {
    // append() rather than operator+: GCC 12 -O3 reports a false -Wrestrict on the latter.
    std::string json_name = "k";
    json_name.append(static_cast<std::size_t>(n % 7), 'x');
    std::string name = json_name;
    json_name.append(2 * static_cast<std::size_t>(n), '\\').append(R"(\"]}[{)");
    name.append(static_cast<std::size_t>(n), '\\').append("\"]}[{");
    names.push_back(name);
    if (n) text += ",";
    text += R"({"ph": "X", "cat": "kernel", "name": ")" + json_name +
            R"(", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"s": "\\", "a": [[]]}})";
  }
  text += "]}";
  auto const path = file("escapes.json", text);
  for (bool const avx512 : {true, false}) {  // the CPU's widest block scan, then SSE2's
    chrome::allow_avx512_blocks(avx512);
    auto const t = read(path);
    ASSERT_EQ(t.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(name_of(t, i), names[i]) << i;
  }
  chrome::allow_avx512_blocks(true);
}

TEST_F(ChromeReader, ChunksWithAndWithoutBackslashesReadTheSameNames) {
  // Names are taken between their quotes without a look for escapes only in a chunk where the
  // splitter saw no backslash: with chunks of about 200 bytes (a few events each), escapes in
  // every seventh event (in the name, the category or an arg) leave some chunks free of them and
  // put others right after a free one; every name and category reads as decoded, with 1 and 2
  // threads. Each chunk's flag is checked against a search of its text.
  std::string text = R"({"traceEvents": [)";
  std::vector<std::string> names, cats;
  for (int i = 0; i < 120; ++i) {
    bool const escaped = i % 7 == 3;
    std::string json_name = "op" + std::to_string(i), json_cat = "cpu_op", arg = "1";
    std::string name = json_name, cat = json_cat;
    if (escaped && i % 3 == 0) json_name += R"(\"q\\)", name += "\"q\\";
    if (escaped && i % 3 == 1) json_cat += R"(\u0041)", cat += "A";
    if (escaped && i % 3 == 2) arg = R"("\n")";
    names.push_back(name), cats.push_back(cat);
    if (i) text += ",";
    text += R"({"ph": "X", "cat": ")" + json_cat + R"(", "name": ")" + json_name +
            R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(i) +
            R"(, "dur": 1, "args": {"x": )" + arg + "}}";
  }
  text += "]}";
  std::size_t free_chunks = 0, chunks = 0;
  {
    auto source = chrome::open_memory_source("mixed.json", std::span(text.data(), text.size()));
    chrome::event_splitter splitter(*source, "mixed.json", 200);
    chrome::event_chunk chunk;
    while (splitter.next(chunk)) {
      std::string_view const json(chunk.text.data(), chunk.length);
      EXPECT_EQ(chunk.backslash_free, json.find('\\') == std::string_view::npos) << chunks;
      free_chunks += chunk.backslash_free ? 1 : 0;
      ++chunks;
    }
  }
  EXPECT_GT(free_chunks, 0u);
  EXPECT_LT(free_chunks, chunks);
  for (unsigned const threads : {1u, 2u}) {
    auto source = chrome::open_memory_source("mixed.json", std::span(text.data(), text.size()));
    event_table t;
    read_options o;
    o.threads = threads;
    chrome::read_chrome_source(*source, "mixed.json", t, o, 200);
    ASSERT_EQ(t.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      EXPECT_EQ(name_of(t, i), names[i]) << i;
      EXPECT_EQ(t.strings().at(t.category[i]), cats[i]) << i;
    }
  }
}

TEST_F(ChromeReader, IntegerArgsOutsideInt64AreNotIntegers) {
  // Found by fuzz_chrome_events: a non-integral JSON number arg (1e300) was cast to int64 before
  // its range was checked (undefined behaviour). Out of range, it is no integer: the fallbacks
  // (integer tid, pid) apply, and bytes is 0.
  auto const path = file("huge_args.json", R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 2, "tid": 7, "ts": 0, "dur": 1,
     "args": {"stream": 1.5e300, "device": -1e19, "bytes": 9.5e18, "correlation": 4.0}}
  ]})J");
  auto const t = read(path);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.stream[0], 7);
  EXPECT_EQ(t.device[0], 2);
  EXPECT_EQ(t.bytes_of(0), 0);
  EXPECT_EQ(t.correlation_of(0), 4);
}

TEST_F(ChromeReader, RepeatedKeysTakeTheLastValue) {
  // A repeated key's last value counts, whichever path read the one before: ts 5 µs (converted
  // while read) then 1e3 µs (the general path), dur 2 then 3 µs, pid 1 then "x" (no integer:
  // the device stays unknown), name "a" then "b\u0063".
  auto const path = file("repeated_keys.json", R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "a", "pid": 1, "tid": 7, "ts": 5, "dur": 2,
     "ts": 1e3, "dur": 3, "pid": "x", "name": "b\u0063"}
  ]})J");
  auto const t = read(path);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.start_ns[0], 1'000'000);
  EXPECT_EQ(t.end_ns[0], 1'003'000);
  EXPECT_EQ(t.device[0], -1);
  EXPECT_EQ(name_of(t, 0), "bc");
}

TEST_F(ChromeReader, KindMappingByCategoryAndName) {
  auto const path = file("kinds.json", R"J({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#12", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 1, "tid": 1, "ts": 50, "dur": 5},
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.zero_grad#SGD.zero_grad", "pid": 1, "tid": 1, "ts": 56, "dur": 1},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#x", "pid": 1, "tid": 1, "ts": 57, "dur": 1},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#12", "pid": 0, "tid": 7, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": "stream 7", "ts": 2, "dur": 1, "args": {"bytes": 4096, "correlation": 9}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 3, "dur": 1},
    {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": "25738", "ts": 2, "dur": 1},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 1},
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 7, "ts": 4, "dur": 1, "args": {"stream": -1, "device": 0}},
    {"ph": "X", "cat": "python_function", "name": "train.py(10): main", "pid": 1, "tid": 1, "ts": 0, "dur": 9},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 200},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_request", "pid": 9, "tid": 801, "ts": 1, "dur": 1},
    {"ph": "X", "name": "no category", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "B", "cat": "cpu_op", "name": "begin", "pid": 1, "tid": 1, "ts": 1},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1, "s": "t"}
  ]})J");
  auto const t = read(path);
  using k = event_kind;
  std::vector<k> const want{
      k::profiler_step,   k::data_loader, k::optimizer, k::user_range, k::user_range,
      k::user_range,      k::memcpy,      k::memset,    k::api_call,   k::api_call,
      k::synchronization, k::other,       k::other,     k::other,      k::other};
  ASSERT_EQ(t.kind, want);
  EXPECT_EQ(t.subkind[6], static_cast<std::uint8_t>(copy_kind::device_to_host));
  EXPECT_EQ(t.stream[6], 7);  // "stream 7"
  EXPECT_EQ(t.device[6], 0);
  EXPECT_EQ(t.bytes_of(6), 4096);
  EXPECT_EQ(t.correlation_of(6), 9);
  EXPECT_EQ(t.device[5], 0);  // gpu_user_annotation is device-side
  EXPECT_EQ(t.stream[5], 7);
  EXPECT_EQ(t.stream[8], 25738);
  EXPECT_EQ(t.stream[10], -1);
  EXPECT_EQ(t.device[10], 0);
  EXPECT_EQ(t.stream[12], -2 - static_cast<std::int64_t>(t.strings().find("PyTorch Profiler")));
  EXPECT_EQ(t.device[13], -1);  // unknown categories are host rows
  EXPECT_EQ(cat_of(t, 14), "");
  EXPECT_TRUE(t.inputs()[0].skipped.empty());
}

// A PaddlePaddle export as `export_chrome_tracing` writes it (paddle-json-and-tb-plugin.md §1.14):
// string schemaVersion, string span_indx, "<name>[<dur>]" host names, "N(Python)"/"N(C++)" thread
// ids, whole-µs ts with 3-decimal dur, "correlation id", launch flows, [memory] instants, the
// "Deivce" typo in metadata, a trailing {} in traceEvents and ExtraInfo after it.
constexpr char const* paddle_trace = R"J({
  "schemaVersion": "1.0.1",
  "displayTimeUnit": "ms",
  "span_indx": "0",
  "deviceProperties": [{"id": 0, "name": "Tesla V100-SXM2-32GB", "totalGlobalMem": 34089730048,
    "computeMajor": 7, "computeMinor": 0, "smCount": 80}],
  "traceEvents": [
  { "name": "process_name", "pid": 4321, "tid": "1234(C++)", "ph": "M", "args": {"name": "Process 4321 (CPU)"} },
  { "name": "process_name", "pid": 0, "tid": 0, "ph": "M", "args": {"name": "Deivce 0 (GPU)"} },
  { "name": "thread_name", "pid": 0, "tid": 7, "ph": "M", "args": {"name": "stream 7"} },
  { "name": "Dataloader[400.000 us]", "pid": 4321, "tid": "1234(Python)", "ts": 600, "dur": 400.000,
    "ph": "X", "cat": "Dataloader", "cname": "thread_state_runnable",
    "args": {"start_time": "0.000 us", "end_time": "400.000 us"} },
  { "name": "ProfileStep#1[10.500 ms]", "pid": 4321, "tid": "1234(Python)", "ts": 1000, "dur": 10500.000,
    "ph": "X", "cat": "ProfileStep", "cname": "thread_state_runnable",
    "args": {"start_time": "400.000 us", "end_time": "10900.000 us"} },
  { "name": "Forward[3.000 ms]", "pid": 4321, "tid": "1234(Python)", "ts": 1100, "dur": 3000.000,
    "ph": "X", "cat": "Forward", "cname": "thread_state_runnable", "args": {} },
  { "name": "matmul dygraph[2.500 ms]", "pid": 4321, "tid": "1234(C++)", "ts": 1200, "dur": 2500.000,
    "ph": "X", "cat": "Operator", "cname": "thread_state_runnable",
    "args": {"input_shapes": {"X": [[4, 8]], "Y": [[8, 16]]}, "input_dtypes": {"X": ["float32"]}, "callstack": "x.py(1)"} },
  { "name": "matmul compute[1.250 ms]", "pid": 4321, "tid": "1234(C++)", "ts": 1300, "dur": 1250.000,
    "ph": "X", "cat": "OperatorInner", "cname": "thread_state_runnable", "args": {} },
  { "name": "cudaLaunchKernel[12.345 us]", "pid": 4321, "tid": "1234(C++)", "ts": 1400, "dur": 12.345,
    "ph": "X", "cat": "CudaRuntime", "cname": "thread_state_running", "args": {"correlation id": 77} },
  { "name": "launch", "id": 77, "pid": 4321, "tid": "1234(C++)", "ts": 1406, "ph": "s", "cat": "async" },
  { "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1500, "dur": 800.250,
    "ph": "X", "cat": "Kernel", "cname": "cq_build_failed",
    "args": {"start_time": "900.000 us", "end_time": "1700.250 us", "device": 0, "context": 1, "stream": 7,
             "correlation id": 77, "registers per thread": 128, "shared memory": "0.00 B", "blocks per SM": 0.05,
             "warps per SM": 0.4, "grid": [4, 1, 1], "block": [256, 1, 1], "theoretical achieved occupancy %": 12.5} },
  { "name": "launch", "id": 77, "pid": 0, "tid": 7, "ts": 1500, "ph": "f", "cat": "async", "bp": "e" },
  { "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 2400, "dur": 100.500,
    "ph": "X", "cat": "Memcpy", "cname": "cq_build_failed",
    "args": {"stream": 7, "correlation id": 78, "bytes": 4096, "memory bandwidth (GB/s)": 40.76} },
  { "name": "[memory]", "pid": 4321, "tid": "1234(C++)", "ts": 2500, "ph": "i", "cat": "Allocate",
    "args": {"place": "Place(gpu:0)", "addr": "0x7f", "increase_bytes": 4096} },
  { "name": "Backward[4.000 ms]", "pid": 4321, "tid": "1234(Python)", "ts": 4200, "dur": 4000.000,
    "ph": "X", "cat": "Backward", "cname": "thread_state_runnable", "args": {} },
  { "name": "Optimization Step[1.000 ms]", "pid": 4321, "tid": "1234(Python)", "ts": 8300, "dur": 1000.000,
    "ph": "X", "cat": "Optimization", "cname": "thread_state_runnable", "args": {} },
  { "name": "allreduce[500.000 us]", "pid": 4321, "tid": "1234(C++)", "ts": 9400, "dur": 500.000,
    "ph": "X", "cat": "Communication", "cname": "thread_state_runnable", "args": {} },
  { "name": "my_region[2.000 ms]", "pid": 4321, "tid": "1234(Python)", "ts": 9000, "dur": 2000.000,
    "ph": "X", "cat": "PythonUserDefined", "cname": "thread_state_runnable", "args": {} },
  {}
  ],
  "ExtraInfo": {"1234": "MainThread", "cpu utilization": "12.5"}
})J";

TEST_F(ChromeReader, PaddleExportWithEveryQuirk) {
  auto const t = read(file("host_x_time_2024.paddle_trace.json", paddle_trace));
  EXPECT_EQ(t.inputs()[0].format, "paddle-json");
  EXPECT_TRUE(t.inputs()[0].skipped.empty());
  struct want_row {
    std::string name, cat;
    event_kind kind;
    std::int64_t start, end;  // ts × 1000, ts × 1000 + dur × 1000
    std::int32_t device;
    std::int64_t stream, correlation, bytes;
  };
  using k = event_kind;
  std::vector<want_row> const want{
      {"Dataloader", "Dataloader", k::data_loader, 600000, 1000000, -1, 1234, -1, 0},
      {"ProfileStep#1", "ProfileStep", k::profiler_step, 1000000, 11500000, -1, 1234, -1, 0},
      {"Forward", "Forward", k::forward, 1100000, 4100000, -1, 1234, -1, 0},
      {"matmul dygraph", "Operator", k::cpu_op, 1200000, 3700000, -1, 1234, -1, 0},
      {"matmul compute", "OperatorInner", k::cpu_op, 1300000, 2550000, -1, 1234, -1, 0},
      {"cudaLaunchKernel", "CudaRuntime", k::api_call, 1400000, 1412345, -1, 1234, 77, 0},
      {"volta_sgemm_128x64_nn", "Kernel", k::kernel, 1500000, 2300250, 0, 7, 77, 0},
      {"Memcpy HtoD", "Memcpy", k::memcpy, 2400000, 2500500, 0, 7, 78, 4096},
      {"Backward", "Backward", k::backward, 4200000, 8200000, -1, 1234, -1, 0},
      {"Optimization Step", "Optimization", k::optimizer, 8300000, 9300000, -1, 1234, -1, 0},
      {"allreduce", "Communication", k::cpu_op, 9400000, 9900000, -1, 1234, -1, 0},
      {"my_region", "PythonUserDefined", k::user_range, 9000000, 11000000, -1, 1234, -1, 0},
  };
  ASSERT_EQ(t.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(name_of(t, i), want[i].name);
    EXPECT_EQ(cat_of(t, i), want[i].cat);
    EXPECT_EQ(t.kind[i], want[i].kind);
    EXPECT_EQ(t.start_ns[i], want[i].start);
    EXPECT_EQ(t.end_ns[i], want[i].end);
    EXPECT_EQ(t.device[i], want[i].device);
    EXPECT_EQ(t.stream[i], want[i].stream);
    EXPECT_EQ(t.correlation_of(i), want[i].correlation);
    EXPECT_EQ(t.bytes_of(i), want[i].bytes);
    EXPECT_EQ(t.rank[i], 0);
  }
  EXPECT_EQ(t.subkind[7], static_cast<std::uint8_t>(copy_kind::host_to_device));
  // The kernel (row 6) has "blocks per SM": 0.05 and no "est." occupancy: Paddle's
  // "theoretical achieved occupancy %" 12.5 stands in for it.
  ASSERT_EQ(t.launch_metrics.size(), 1u);
  EXPECT_EQ(t.launch_metrics.row[0], 6u);
  EXPECT_EQ(t.launch_metrics.blocks_per_sm[0], 0.05);
  EXPECT_EQ(t.launch_metrics.est_occupancy_pct[0], 12.5);
}

/// Event i of launch_metrics_trace: kernels with i % 5 == 0 both metrics and a theoretical
/// occupancy that must lose to the "est." one, 1 only "blocks per SM", 2 only the "est."
/// occupancy, 3 neither; 4 is a cuda_runtime row carrying both args (not a kernel: ignored).
/// Every 7th kernel writes "blocks per SM" as a string (not a number: absent).
std::string launch_metrics_trace(int n) {
  std::string s = R"({"traceEvents": [)";
  for (int i = 0; i < n; ++i) {
    if (i) s += ",\n";
    auto const id = std::to_string(i);
    auto const bps = std::to_string(i % 1000) + ".25";  // exact in binary
    auto const occ = std::to_string(i % 100) + ".5";    // exact in binary
    std::string bps_arg = R"("blocks per SM": )" + (i % 7 == 0 ? "\"" + bps + "\"" : bps);
    std::string args;
    switch (i % 5) {
      case 0:
        args = bps_arg +
               R"(, "theoretical achieved occupancy %": 99, "est. achieved occupancy %": )" + occ;
        break;
      case 1:
        args = bps_arg;
        break;
      case 2:
        args = R"("est. achieved occupancy %": )" + occ;
        break;
      case 3:
        args = R"("grid": [1, 1, 1])";
        break;
      default:
        args = bps_arg + R"(, "est. achieved occupancy %": )" + occ;
    }
    auto const cat = i % 5 == 4 ? "cuda_runtime" : "kernel";
    s += std::string(R"({"ph": "X", "cat": ")") + cat + R"(", "name": "k)" + std::to_string(i % 3) +
         R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(1000 + i) +
         R"(, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": )" + id + ", " + args +
         R"(, "padding": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}})";
  }
  s += "]}";
  return s;
}

TEST_F(ChromeReader, LaunchMetricsOfKernelRowsForAnyThreadCount) {
  int const n = 60000;  // ~14 MB: several chunks
  auto const text = launch_metrics_trace(n);
  ASSERT_GT(text.size(), std::size_t{9} << 20);
  auto const plain = file("metrics.json", text);
  auto const gz = file("metrics.json.gz", text, true);
  double const nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::uint64_t> rows;
  std::vector<double> bps, occ;
  for (int i = 0; i < n; ++i) {  // every event is a complete event: row i is event i
    double const b = i % 7 == 0 ? nan : (i % 1000) + 0.25;
    double const o = (i % 100) + 0.5;
    switch (i % 5) {
      case 0:
        rows.push_back(i), bps.push_back(b), occ.push_back(o);
        break;
      case 1:
        if (i % 7 != 0) rows.push_back(i), bps.push_back(b), occ.push_back(nan);
        break;
      case 2:
        rows.push_back(i), bps.push_back(nan), occ.push_back(o);
        break;
      default:
        break;
    }
  }
  auto same = [](std::vector<double> const& a, std::vector<double> const& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
    return true;
  };
  for (auto const& [path, threads] : std::vector<std::pair<std::string, unsigned>>{
           {plain, 1}, {plain, 2}, {plain, 3}, {gz, 1}, {gz, 2}}) {
    SCOPED_TRACE(path + " threads " + std::to_string(threads));
    auto const t = read(path, threads);
    ASSERT_EQ(t.size(), static_cast<std::size_t>(n));
    EXPECT_EQ(t.launch_metrics.row, rows);
    EXPECT_TRUE(same(t.launch_metrics.blocks_per_sm, bps));
    EXPECT_TRUE(same(t.launch_metrics.est_occupancy_pct, occ));
  }
}

TEST_F(ChromeReader, HostStreamsAreTheNumericStreamArgsOfHostRows) {
  // A Triton cpu_op and an MTIA event carry a numeric stream; ROCm's runtime calls a text
  // "0x0"; a kernel's stream is its stream column, not a host stream.
  auto const path = file("host_streams.json", R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused", "pid": 1, "tid": 2, "ts": 10,
     "dur": 5, "args": {"stream": 0}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 2, "ts": 20,
     "dur": 5, "args": {"stream": "0x0", "correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 30, "dur": 5,
     "args": {"stream": 7, "correlation": 7}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "job_exe", "pid": 1, "tid": 3, "ts": 40,
     "dur": 5, "args": {"stream": 102}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 2, "ts": 50, "dur": 5}
  ]})");
  auto const t = read(path);
  ASSERT_EQ(t.size(), 5U);
  EXPECT_EQ(t.host_streams.row, (std::vector<std::uint64_t>{0, 3}));
  EXPECT_EQ(t.host_streams.values, (std::vector<std::int64_t>{0, 102}));
  EXPECT_EQ(t.stream[2], 7);
}

TEST(ChromeClassifier, PaddleSuffixAndThreadIds) {
  using namespace chrome;
  EXPECT_EQ(strip_paddle_duration_suffix("conv2d [1.234 ms]"), "conv2d");
  EXPECT_EQ(strip_paddle_duration_suffix("conv2d[12.345 us]"), "conv2d");
  EXPECT_EQ(strip_paddle_duration_suffix("a[b] [0.001 ms]"), "a[b]");
  EXPECT_EQ(strip_paddle_duration_suffix("arr[3]"), "arr[3]");
  EXPECT_EQ(strip_paddle_duration_suffix("x [1 ms]"), "x [1 ms]");
  EXPECT_EQ(strip_paddle_duration_suffix("x [1.5 parsecs]"), "x [1.5 parsecs]");
  EXPECT_TRUE(is_paddle_thread_id("1234(Python)"));
  EXPECT_TRUE(is_paddle_thread_id("7(C++)"));
  EXPECT_FALSE(is_paddle_thread_id("(C++)"));
  EXPECT_FALSE(is_paddle_thread_id("stream 7"));
  EXPECT_EQ(integer_in_text("stream 7"), 7);
  EXPECT_EQ(integer_in_text("1234(Python)"), 1234);
  EXPECT_EQ(integer_in_text("PyTorch Profiler"), std::nullopt);
  EXPECT_EQ(integer_in_text("__MTIA_CCP_events__"), std::nullopt);
}

TEST_F(ChromeReader, SkippedEventsAreCountedPerReason) {
  auto const path = file("skips.json", R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "ok", "pid": 0, "tid": 7, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "no ts", "pid": 0, "tid": 7, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "no dur", "pid": 0, "tid": 7, "ts": 1},
    {"ph": "X", "cat": "kernel", "name": "null dur", "pid": 0, "tid": 7, "ts": 1, "dur": null},
    {"ph": "X", "cat": "kernel", "name": "negative", "pid": 0, "tid": 7, "ts": 1, "dur": -0.001},
    {"ph": "X", "cat": "kernel", "name": "string ts", "pid": 0, "tid": 7, "ts": "1", "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "huge ts", "pid": 0, "tid": 7, "ts": 1e30, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "string dur", "pid": 0, "tid": 7, "ts": 1, "dur": "2"},
    {"ph": "i", "name": "instant without dur", "pid": 0, "tid": 7, "ts": 1},
    {"ph": "f", "name": "flow", "id": 3, "pid": 0, "tid": 7, "ts": 1}
  ]})");
  auto const t = read(path);
  ASSERT_EQ(t.size(), 1u);
  std::map<std::string, std::int64_t> const want{{"missing_ts", 1},        {"missing_dur", 2},
                                                 {"negative_dur", 1},      {"invalid_ts", 1},
                                                 {"time_out_of_range", 1}, {"invalid_dur", 1}};
  EXPECT_EQ(t.inputs()[0].skipped, want);
  EXPECT_EQ(t.inputs()[0].events, 1);
}

TEST_F(ChromeReader, FatalDefects) {
  std::string const good =
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1}]})";
  struct fatal_case {
    std::string name, text, why;
  };
  std::vector<fatal_case> const cases{
      {"truncated.json", good.substr(0, good.size() - 10), "truncated JSON"},
      {"truncated_keys.json", R"({"schemaVersion": 1, "deviceProperties": [{"id": 0)",
       "truncated JSON"},
      {"no_comma.json", R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 1 "name": "a"}]})",
       "invalid JSON"},
      {"bad_number.json", R"({"traceEvents": [{"ph": "X", "ts": 12x, "dur": 1}]})", "invalid JSON"},
      {"mismatch.json", R"({"traceEvents": [{"ph": "X", "args": [}]})", "invalid JSON"},
      {"trailing_comma.json", R"([{"ph": "X", "ts": 1, "dur": 1},])", "invalid JSON"},
      {"after_end.json", good + " {}", "data after the end"},
      // Plain, these never reach the reader (format detection refuses them); gzip does.
      {"number.json.gz", "42", "not a trace"},
      {"string.json.gz", R"("traceEvents")", "not a trace"},
      {"no_events.json", R"({"schemaVersion": 1, "deviceProperties": []})", "no traceEvents"},
      {"events_object.json", R"({"traceEvents": {}})", "not an array"},
      {"scalar_events.json", R"([1, 2])", "not a JSON object"},
      {"only_metadata.json", R"({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1}]})",
       "no usable events"},
      {"empty_events.json", R"({"traceEvents": []})", "no usable events"},
      {"all_skipped.json", R"({"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "dur": 1}]})",
       "all 2 complete events were skipped"},
      {"bad_rank.json", R"({"distributedInfo": {"rank": "zero"}, "traceEvents": []})", "rank"},
      {"whitespace.json", "  \n ", "no JSON value"},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.name);
    auto const e = fatal(file(c.name, c.text, c.name.ends_with(".gz")));
    EXPECT_NE(std::string(e.why()).find(c.why), std::string::npos) << e.what();
    EXPECT_FALSE(e.where().empty()) << e.what();
    EXPECT_EQ(e.path(), (_dir / c.name).string());
  }
}

TEST_F(ChromeReader, FatalGzipDefects) {
  std::string text = tricky_trace(2000);
  auto const ok = file("ok.json.gz", text, true);
  std::ifstream in(ok, std::ios::binary);
  std::string const gz{std::istreambuf_iterator<char>(in), {}};
  ASSERT_GT(gz.size(), 200u);
  {
    auto const e = fatal(file("cut.json.gz", gz.substr(0, gz.size() / 2)));
    EXPECT_NE(e.why().find("truncated gzip"), std::string::npos) << e.what();
    EXPECT_NE(e.where().find("compressed byte"), std::string::npos) << e.what();
  }
  {
    auto const e = fatal(file("no_trailer.json.gz", gz.substr(0, gz.size() - 4)));
    EXPECT_NE(e.why().find("truncated gzip"), std::string::npos) << e.what();
  }
  {
    std::string bad = gz;
    for (std::size_t i = 40; i < 140; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5A);
    auto const e = fatal(file("corrupt.json.gz", bad));
    EXPECT_NE(e.why().find("gzip"), std::string::npos) << e.what();
  }
  {
    auto const e = fatal(file("garbage.json.gz", gz + "trailing"));
    EXPECT_NE(e.why().find("after the end of the gzip stream"), std::string::npos) << e.what();
  }
  {
    // A valid gzip of an invalid trace is a JSON defect, found after inflating.
    auto const e = fatal(file("cut_inside.json.gz", text.substr(0, text.size() / 2), true));
    EXPECT_NE(e.why().find("truncated JSON"), std::string::npos) << e.what();
  }
}

TEST_F(ChromeReader, RanksAcrossInputs) {
  auto const one =
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1}]})";
  fs::create_directories(_dir / "job");
  file("job/b.json", one);
  file("job/a.json.gz", one, true);
  event_table t;
  read_options o;
  o.threads = 1;
  EXPECT_TRUE(read_inputs({(_dir / "job").string()}, t, o, false).empty());
  ASSERT_EQ(t.size(), 2u);
  // Files taken in path order; the fallback rank is the index among the sorted paths.
  EXPECT_EQ(t.rank, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(t.inputs()[0].path, (_dir / "job" / "a.json.gz").string());

  auto const claimed =
      R"({"distributedInfo": {"rank": 4}, "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1}]})";
  auto const x = file("x.json", claimed);
  auto const y = file("y.json", claimed);
  event_table u;
  EXPECT_THROW(read_inputs({x, y}, u, o, false), input_error);
}

}  // namespace reader_test

}  // namespace tracesweep::test
