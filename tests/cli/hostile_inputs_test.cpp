// SPDX-License-Identifier: Apache-2.0
// Hostile and extreme inputs through the CLI, one test per class of the hardening issue:
//  1. inputs are never written (-o naming an input, a failed write);
//  2. resource bombs (gzip that inflates to GiBs of whitespace, one huge event) end fast, within
//     bounded memory, in one line naming the limit's option;
//  3. timestamps and durations at the int64 limits are skipped and counted, sums that cannot fit
//     are one line naming the file, and no printed duration or share is negative;
//  5. one JSON policy: invalid JSON in anything the reader interprets is exit 2 at its byte;
//  6. a user pattern is linear in the text (RE2), even on a 40 KB kernel name;
//  7. every error is one line, option errors come before any input is read.
// (4, SQLite types and journals, and the FIFO and rowid bombs of 2 are nsys_hostile_test.)
// Every run: exit 0 or 2 (1 for usage), stderr one line naming the file when it fails, and the
// input byte-identical afterwards.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <simdjson.h>

#include "support/address_sanitizer.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"

namespace tracesweep::test {
namespace hostile_inputs_test {

namespace fs = std::filesystem;

void write_bytes(fs::path const& p, std::string const& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

/// One complete event; `ts` and `dur` are written as given (any JSON text).
std::string event(std::string const& ts, std::string const& dur, std::string const& name = "k",
                  std::string const& cat = "kernel", std::string const& args = "") {
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":0,"tid":7,"ts":)" + ts +
         R"(,"dur":)" + dur + R"(,"args":{"device":0,"stream":7,"correlation":1)" + args + "}}";
}

std::string trace(std::vector<std::string> const& events, std::string const& head = "") {
  std::string out = "{" + head + R"("traceEvents":[)";
  for (std::size_t i = 0; i < events.size(); ++i) out += (i ? "," : "") + events[i];
  return out + "]}";
}

/// gzip member of `text` (zlib, level 9).
std::string gzip_member(std::string const& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// A .json.gz of concatenated members: `head`, then `fill_members` × 64 MiB of spaces, then
/// `tail`. Tiny on disk, GiBs when inflated.
std::string whitespace_bomb(std::string const& head, int fill_members, std::string const& tail) {
  std::string const spaces_member = gzip_member(std::string(std::size_t{64} << 20, ' '));
  std::string out = gzip_member(head);
  for (int i = 0; i < fill_members; ++i) out += spaces_member;
  return out + gzip_member(tail);
}

/// Checks the one-line failure: exit 2 (or `code`), one stderr line naming `file` and `why`.
void expect_one_line(cli_result const& r, fs::path const& file, std::string const& why,
                     int code = 2) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("tracesweep: ", 0), 0u) << r.err;
  if (!file.empty()) {
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
  }
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
}

/// Runs `args`, checks it took under 10 s and that no child so far passed 1 GB resident.
cli_result run_bounded(std::string const& args) {
  auto const t0 = std::chrono::steady_clock::now();
  auto r = run_cli(args, 60);
  auto const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 10.0) << args;
  rusage u{};
  EXPECT_EQ(getrusage(RUSAGE_CHILDREN, &u), 0);
  EXPECT_LT(u.ru_maxrss, 1024L * 1024L) << "KiB, " << args;  // ru_maxrss is KiB on Linux
  return r;
}

/// Keys of values that are durations, counts of time or shares (not points in time).
bool must_not_be_negative(std::string_view key) {
  bool const time_point =
      key.find("start") != std::string_view::npos || key.find("end") != std::string_view::npos;
  bool const amount = key.ends_with("_ns") || key.find("share") != std::string_view::npos ||
                      key.find("pct") != std::string_view::npos ||
                      key.find("percent") != std::string_view::npos ||
                      key.find("util") != std::string_view::npos;
  return amount && !time_point;
}

/// Every negative duration or share in a JSON document, as "key=value".
void find_negative(simdjson::dom::element e, std::string_view key, std::vector<std::string>& out) {
  simdjson::dom::object object;
  simdjson::dom::array array;
  if (e.get(object) == simdjson::SUCCESS) {
    for (auto [k, v] : object) find_negative(v, k, out);
  } else if (e.get(array) == simdjson::SUCCESS) {
    for (auto v : array) find_negative(v, key, out);
  } else if (e.is_number() && must_not_be_negative(key)) {
    double const v = e.get_double().value_unsafe();
    if (v < 0) out.push_back(std::string(key) + "=" + std::to_string(v));
  }
}

std::string read_all(fs::path const& p) {
  return slurp(p);
}

/// Every analysis command; each run on `input` in JSON must end in exit 0 with no negative
/// duration or share, or exit 2 in one line naming `input`; the input stays byte-identical.
void every_command_survives(fs::path const& input) {
  auto const before = read_all(input);
  for (std::string const cmd :
       {"summary", "diagnose", "overview", "overview --compat tb",
        "overview --table operators --op-detail", "overview --compat tb --table operators",
        "stats --report cuda_gpu_kern_sum", "stats --report cuda_api_sum",
        "stats --report cuda_gpu_mem_size_sum", "stats --report cuda_gpu_mem_time_sum",
        "stats --report nvtx_sum"}) {
    SCOPED_TRACE(cmd + " " + input.string());
    auto const r = run_cli(cmd + " --format json " + quote(input), 60);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.exit_code << " " << r.err;
    if (r.exit_code == 2) {
      // warnings (skipped rows) come first; the failure is the last line
      auto const last = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
      EXPECT_NE(last.find(input.string()), std::string::npos) << r.err;
      EXPECT_EQ(last.find("warning"), std::string::npos) << r.err;
      continue;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(simdjson::padded_string(r.out)).get(doc), simdjson::SUCCESS) << r.out;
    std::vector<std::string> negative;
    find_negative(doc, "", negative);
    EXPECT_TRUE(negative.empty()) << negative.front();
  }
  EXPECT_EQ(read_all(input), before);
}

/// The summary's inputs table: the `skipped` cell (`reason=count;…`).
std::string skipped_cell(fs::path const& file) {
  auto const r = run_cli("summary --table inputs --format json " + quote(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(r.out)).get(doc)) return "unparsable: " + r.out;
  std::string out;
  simdjson::dom::array inputs;
  if (doc["inputs"].get(inputs)) return "no inputs table: " + r.out;
  for (auto row : inputs) {
    std::string_view text;
    simdjson::dom::object counts;
    if (row["skipped"].get(text) == simdjson::SUCCESS) out += std::string(text);
    if (row["skipped"].get(counts) == simdjson::SUCCESS)
      for (auto [k, v] : counts)
        out += std::string(k) + "=" + std::to_string(std::int64_t(v)) + ";";
  }
  return out;
}

// 1. Inputs are never written.
TEST(hostile_inputs, an_output_naming_an_input_or_failing_to_write) {
  scratch dir("hostile_output");
  auto const input = dir.file("t.json");
  write_bytes(input, trace({event("1", "2"), event("5", "2")}));
  auto const before = read_all(input);
  fs::create_symlink(input, dir.file("link.json"));
  for (auto const& out : {input, dir.file("link.json")}) {
    auto const r = run_cli("-o " + quote(out) + " summary " + quote(input));
    expect_one_line(r, "", "refusing to overwrite", 1);
  }
  auto const full = run_cli("-o /dev/full summary " + quote(input));
  expect_one_line(full, "/dev/full", "write", 2);
  EXPECT_EQ(read_all(input), before);
}

// 2. A gzip file of a few hundred KB that inflates to 2 GiB of whitespace inside traceEvents,
// or 20 GiB between the top-level keys: stopped by the inflate ratio in bounded time and memory.
TEST(hostile_inputs, gzip_whitespace_bombs_stop_at_the_inflate_ratio) {
  scratch dir("hostile_bomb");
  auto const inside = dir.file("inside.json.gz");
  write_bytes(inside, whitespace_bomb(R"({"traceEvents":[)" + event("1", "2") + ",", 32,
                                      event("5", "2") + "]}"));
  auto const between = dir.file("between.json.gz");
  write_bytes(between,
              whitespace_bomb(R"({"a":1,)", 320, R"("traceEvents":[)" + event("1", "2") + "]}"));
  EXPECT_LT(fs::file_size(between), std::uintmax_t{30} << 20);
  for (auto const& f : {inside, between}) {
    auto const before = read_all(f);
    expect_one_line(run_bounded("summary " + quote(f)), f, "--max-inflate-ratio");
    EXPECT_EQ(read_all(f), before);
  }
  // With the ratio lifted, whitespace inside traceEvents is still bounded: by the event limit.
  expect_one_line(run_bounded("--max-inflate-ratio 100000 summary " + quote(inside)), inside,
                  "--max-event-bytes");
}

// 2. One event longer than the limit is one line naming the option; within it, it is read.
TEST(hostile_inputs, one_huge_event_passes_the_event_limit) {
  scratch dir("hostile_event");
  auto const f = dir.file("big.json");
  write_bytes(f, trace({event("1", "2", std::string(std::size_t{2} << 20, 'x')), event("5", "2")}));
  expect_one_line(run_bounded("--max-event-bytes 1048576 summary " + quote(f)), f,
                  "event 0 is longer than 1048576 bytes");
  EXPECT_EQ(run_bounded("summary " + quote(f)).exit_code, 0);
}

// 3. Times at the int64 limits: skipped and counted under a named reason, never wrapped.
TEST(hostile_inputs, times_outside_the_accepted_range_are_skipped_and_counted) {
  scratch dir("hostile_range");
  auto const f = dir.file("limits.json");
  write_bytes(f, trace({event("9223372036854775", "1"),     // ts × 1000 fits, end does not
                        event("-9223372036854775", "1"),    // below -2^62 ns
                        event("4611686018427388", "0"),     // just above 2^62 ns
                        event("1234567890123456789", "1"),  // 19 digits: not in int64 ns
                        event("0", "9223372036854775"),     // end past 2^62 ns
                        event("0", "92233720368547758"),    // dur not in int64 ns
                        event("-3000000000000000", "4611686018427388"),  // end − start ≥ 2^62
                        event("1", "2"), event("5", "2")}));
  EXPECT_EQ(skipped_cell(f), "duration_out_of_range=2;time_out_of_range=5;");
  every_command_survives(f);
}

// 3. Long overlapping events whose sums pass int64: one line naming the file, or exact results;
// nothing negative. Over several ranks and devices, with every kind of row.
TEST(hostile_inputs, sums_past_int64_are_one_line_never_negative) {
  scratch dir("hostile_sums");
  std::string const len = "4611686018427000";  // µs: just under 2^62 ns
  std::vector<std::string> events;
  for (int r = 0; r < 4; ++r) {
    auto const k = std::to_string(r % 2);
    // (each round a µs later: equal events would be dropped as duplicates)
    auto const lo = std::to_string(-4611686018427380 + r);
    events.push_back(event(lo, len, "ProfilerStep#" + k, "cpu_op"));
    events.push_back(event(lo, len, "enumerate(DataLoader)#x", "cpu_op"));
    events.push_back(event(lo, len, "cudaLaunchKernel", "cuda_runtime"));
    events.push_back(event(lo, len, "cudaDeviceSynchronize", "cuda_runtime"));
    events.push_back(event(lo, len, "k" + k));
    events.push_back(event(std::to_string(r), len, "k" + k));
    events.push_back(event(lo, len, "ncclKernel_AllReduce"));
    events.push_back(
        event(lo, len, "Memcpy HtoD", "gpu_memcpy", R"(,"bytes":4611686018427387000)"));
    events.push_back(event(lo, len, "cudaStreamSynchronize", "cuda_sync"));
  }
  auto const one = dir.file("one.json");
  write_bytes(one, trace(events));
  every_command_survives(one);
  auto const r = run_cli("summary " + quote(one));
  expect_one_line(r, one, "arithmetic overflow: the total time of kernel");
  // Far apart but short: exact, nothing overflows.
  auto const apart = dir.file("apart.json");
  std::vector<std::string> sparse;
  for (int i = 0; i < 30; ++i) {
    sparse.push_back(event(std::to_string(-4611686018427000 + i), "1"));
    sparse.push_back(event(std::to_string(4611686018427000 - 100 + i), "1"));
  }
  write_bytes(apart, trace(sparse));
  every_command_survives(apart);
  EXPECT_EQ(run_cli("summary " + quote(apart)).exit_code, 0);
}

// 3. --keep-going goes on past a file that fails while read (here: a decompression bomb).
TEST(hostile_inputs, keep_going_survives_a_bomb) {
  scratch dir("hostile_keep");
  auto const bomb = dir.file("a.json.gz");
  write_bytes(bomb, whitespace_bomb(R"({"traceEvents":[)", 8, event("1", "2") + "]}"));
  auto const good = dir.file("b.json");
  write_bytes(good, trace({event("1", "2"), event("5", "2")}));
  auto const r = run_bounded("--keep-going summary --table kernels --format csv " + quote(bomb) +
                             " " + quote(good));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bomb.string()), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\nk,2,"), std::string::npos) << r.out;
}

// 7. Out of memory while reading names the file, and --keep-going goes on past it. A gzip of
// 3 M small events (a few MB) under a 256 MiB address-space limit: the columns do not fit.
TEST(hostile_inputs, out_of_memory_while_reading_names_the_file) {
#if TRACESWEEP_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit allows";
#else
  scratch dir("hostile_oom");
  std::string block;
  for (int i = 0; i < 100000; ++i) block += event(std::to_string(i), "1") + ",";
  std::string const member = gzip_member(block);
  std::string bytes = gzip_member(R"({"traceEvents":[)");
  for (int i = 0; i < 60; ++i) bytes += member;
  bytes += gzip_member(event("0", "1") + "]}");
  auto const big = dir.file("big.json.gz");
  write_bytes(big, bytes);
  auto const good = dir.file("good.json");
  write_bytes(good, trace({event("1", "2"), event("5", "2")}));
  auto const run_limited = [](std::string const& args) {  // 256 MiB of address space
    return run_cli(args, 60, "sh -c 'ulimit -v 262144; exec \"$0\" \"$@\"' ");
  };
  std::string const options = "--threads 1 --backend cpu --max-inflate-ratio 100000 ";
  expect_one_line(run_limited(options + "summary " + quote(big)), big, "out of memory");
  auto const r = run_limited(options + "--keep-going summary --table kernels --format csv " +
                             quote(big) + " " + quote(good));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(big.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("out of memory while reading it"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\nk,2,"), std::string::npos) << r.out;
#endif
}

// 5. One JSON policy: invalid JSON wherever the reader interprets it is exit 2 at its byte.
TEST(hostile_inputs, invalid_json_in_interpreted_parts_is_exit_2_at_its_byte) {
  scratch dir("hostile_json");
  struct bad {
    char const* name;
    std::string text;
    std::string why;
  };
  auto const ok = event("5", "2");
  bad const cases[] = {
      {"nan", trace({event("NaN", "1"), ok}), "not a JSON value 'NaN'"},
      {"nan_lower", trace({event("nan", "1"), ok}), "invalid JSON"},
      {"infinity", trace({event("Infinity", "1"), ok}), "not a JSON value 'Infinity'"},
      {"minus_infinity", trace({event("-Infinity", "1"), ok}), "bad number '-Infinity'"},
      {"plus", trace({event("+5", "1"), ok}), "not a JSON value '+5'"},
      {"trailing_dot", trace({event("5.", "1"), ok}), "bad number '5.'"},
      {"leading_zero", trace({event("0123", "1"), ok}), "bad number '0123'"},
      {"hex", trace({event("0x10", "1"), ok}), "bad number '0x10'"},
      {"args_number", trace({event("1", "2", "k", "kernel", R"(,"bytes":01)"), ok}), "'01'"},
      {"atom", trace({event("1", "tru"), ok}), "invalid JSON"},
      {"escape", trace({event("1", "2", R"(a\qb)"), ok}), "invalid JSON"},
      {"control_byte_in_name", trace({event("1", "2", "a\x01z"), ok}), "invalid JSON"},
      {"control_byte_in_key", trace({ok}, "\"baseTime\x01Nanoseconds\":1000,"),
       "control byte in a key"},
      {"fractional_base", trace({ok}, R"("baseTimeNanoseconds":1.5,)"), "not an integer"},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.name);
    auto const f = dir.file(std::string(c.name) + ".json");
    write_bytes(f, c.text);
    auto const r = run_cli("summary " + quote(f));
    expect_one_line(r, f, c.why);
    EXPECT_NE(r.err.find(": byte "), std::string::npos) << r.err;
  }
  // The byte is where the bad value starts.
  auto const f = dir.file("offset.json");
  auto const text = trace({ok, event("NaN", "1")});
  write_bytes(f, text);
  auto const at = text.find("NaN");
  EXPECT_NE(run_cli("summary " + quote(f)).err.find("byte " + std::to_string(at) + ", event 1"),
            std::string::npos);
}

// 5. A key written with escapes is the key it spells; what the reader skips for speed (the rest
// of an event that is not "X") is checked for structure only, as documented.
TEST(hostile_inputs, escaped_keys_count_and_skipped_parts_are_structural_only) {
  scratch dir("hostile_policy");
  auto const plain = dir.file("plain.json");
  write_bytes(plain, trace({event("1", "2"), event("5", "2")}, R"("baseTimeNanoseconds":1000,)"));
  auto const escaped = dir.file("escaped.json");
  write_bytes(escaped,
              trace({event("1", "2"), event("5", "2")}, R"("baseTime\u004eanoseconds":1000,)"));
  auto const nobase = dir.file("nobase.json");
  write_bytes(nobase, trace({event("1", "2"), event("5", "2")}));
  auto const devices = [](fs::path const& p) {  // the devices table, the path left out
    auto out = run_cli("summary --table devices --format csv " + quote(p)).out;
    auto const at = out.find(p.string());
    return at == std::string::npos ? out : out.erase(at, p.string().size());
  };
  EXPECT_EQ(devices(escaped), devices(plain));
  EXPECT_NE(devices(plain), devices(nobase));
  auto const instant = dir.file("instant.json");
  write_bytes(instant, R"({"traceEvents":[{"ph":"i","name":"a\qb"},)" + event("1", "2") + "]}");
  EXPECT_EQ(run_cli("summary " + quote(instant)).exit_code, 0);
}

// 6. A user pattern runs in linear time on a 40 KB kernel name (std::regex overflowed the stack).
TEST(hostile_inputs, patterns_are_linear_in_a_40kb_name) {
  scratch dir("hostile_regex");
  auto const f = dir.file("long_name.json");
  write_bytes(f, trace({event("1", "2", std::string(40000, 'a')), event("5", "2")}));
  auto const r = run_bounded("summary --comm-pattern '.*nccl.*' " + quote(f));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// 7. Option errors: one line, exit 1, before any input is read (the input here does not exist).
TEST(hostile_inputs, option_errors_are_one_line_before_reading) {
  std::string const missing = "/nonexistent/trace.json";
  struct option_case {
    std::string args;
    std::string why;
  };
  option_case const cases[] = {
      {"summary --table bogus " + missing, "--table bogus: unknown table"},
      {"diagnose --table bogus " + missing, "--table bogus: unknown table"},
      {"diagnose --format csv --table totals " + missing, "--table totals"},
      {"overview --table bogus " + missing, "--table bogus"},
      {"summary --comm-pattern '(' " + missing, "--comm-pattern"},
      {"diagnose --step-pattern '(' " + missing, "--step-pattern"},
      {"-o /nonexistent/dir/out.txt summary " + missing, "-o /nonexistent/dir/out.txt"},
      {"summary --min-gap -5 " + missing, "--min-gap"},
      {"--threads many summary " + missing, "--threads"},
      {"--max-event-bytes 0 summary " + missing, "--max-event-bytes"},
      {"sumary " + missing, "unknown command 'sumary'"},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.args);
    expect_one_line(run_cli(c.args), "", c.why, 1);
  }
}

}  // namespace hostile_inputs_test

}  // namespace tracesweep::test
