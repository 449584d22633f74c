// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/event_parser.hpp"

#include <tracesweep/error.hpp>
#include <tracesweep/event_table.hpp>

#include "ingest/chrome/decimal_time.hpp"
#include "ingest/chrome/event_classifier.hpp"
#include "ingest/chrome/event_fields.hpp"
#include "ingest/chrome/paddle_place.hpp"

#include <cmath>
#include <limits>
#include <optional>

namespace tracesweep::chrome {

namespace od = simdjson::ondemand;

std::string_view to_string(skip_reason r) noexcept {
  switch (r) {
    case skip_reason::missing_ts:
      return "missing_ts";
    case skip_reason::missing_dur:
      return "missing_dur";
    case skip_reason::negative_dur:
      return "negative_dur";
    case skip_reason::invalid_ts:
      return "invalid_ts";
    case skip_reason::invalid_dur:
      return "invalid_dur";
    case skip_reason::time_out_of_range:
      return skip_time_out_of_range;
    case skip_reason::duration_out_of_range:
      return skip_duration_out_of_range;
  }
  return "unknown";
}

void chunk_rows::clear() {
  start_ns.clear(), end_ns.clear(), kind.clear(), subkind.clear(), device.clear();
  stream.clear(), name.clear(), category.clear(), correlation.clear(), bytes.clear();
  role.clear();
  text_thread.clear();
  metric_row.clear(), blocks_per_sm.clear(), occupancy_pct.clear();
  shape_row.clear(), grid.clear(), block.clear();
  collective_row.clear(), collective.clear();
  sync_row.clear(), sync.clear();
  host_stream_row.clear(), host_stream.clear();
  memory = {};
  memory_skipped = 0;
  memory_other_place = 0;
  strings = string_pool();
  skipped.fill(0);
  paddle = false;
}

namespace {

/// The file offset of `p`, a pointer into the chunk's text (`[` + events as in the file + `]`).
std::uint64_t file_offset(event_chunk const& chunk, char const* p) {
  char const* const first = chunk.text.data() + 1;
  if (p == nullptr || p < first) return chunk.byte_offset;
  auto const events_length = static_cast<std::ptrdiff_t>(chunk.length) - 2;
  return chunk.byte_offset + static_cast<std::uint64_t>(std::min(p - first, events_length));
}

/// The first byte of the chunk simdjson's first pass rejects: a control byte inside a string,
/// or a byte that starts no valid UTF-8 sequence. Null when there is none.
char const* first_invalid_byte(event_chunk const& chunk) {
  char const* p = chunk.text.data();
  char const* const end = p + chunk.length;
  bool in_string = false;
  while (p < end) {
    auto const c = static_cast<unsigned char>(*p);
    if (in_string && c < 0x20) return p;
    if (c == '"') in_string = !in_string;
    if (in_string && c == '\\') {
      p += 2;
      continue;
    }
    int const tail = c < 0x80         ? 0
                     : (c >> 5) == 6  ? 1
                     : (c >> 4) == 14 ? 2
                     : (c >> 3) == 30 ? 3
                                      : -1;
    auto const length = static_cast<std::size_t>(tail + 1);
    if (tail < 0 || static_cast<std::size_t>(end - p) < length ||
        !simdjson::validate_utf8(p, length))
      return p;
    p += length;
  }
  return nullptr;
}

/// Throws the input_error for invalid JSON at `at` (null: where the parser stopped), or for
/// simdjson failing to allocate.
[[noreturn]] void fail_json(std::string const& path, event_chunk const& chunk, std::uint64_t index,
                            char const* at, simdjson::error_code e) {
  std::string why = e == simdjson::MEMALLOC
                        ? std::string("out of memory while reading it")
                        : std::string("invalid JSON: ") + simdjson::error_message(e);
  bool const bad_scalar = e == simdjson::NUMBER_ERROR || e == simdjson::TAPE_ERROR ||
                          e == simdjson::N_ATOM_ERROR || e == simdjson::T_ATOM_ERROR ||
                          e == simdjson::F_ATOM_ERROR;
  if (bad_scalar && at != nullptr) {  // name the value: "NaN", "+5", "0x10", "tru"
    char const* const end = chunk.text.data() + chunk.length;
    char const* stop = at;
    while (stop < end && stop - at < 40 && *stop != ',' && *stop != '}' && *stop != ']') ++stop;
    why = std::string(e == simdjson::NUMBER_ERROR ? "invalid JSON: bad number '"
                                                  : "invalid JSON: not a JSON value '") +
          std::string(at, stop) + "'";
  }
  throw input_error(
      path, "byte " + std::to_string(file_offset(chunk, at)) + ", event " + std::to_string(index),
      why);
}

/// A complete event's start and end in ns from its `ts` and `dur` (µs, exact), or why it is
/// skipped. The tokens' syntax was checked as they were read (by the fast conversion or
/// checked_type).
std::optional<skip_reason> event_times(event_fields const& f, std::int64_t& start,
                                       std::int64_t& end) {
  if (f.ts.state == presence::absent) return skip_reason::missing_ts;
  if (f.ts.state == presence::other) return skip_reason::invalid_ts;
  if (auto const st = f.ts.to_ns(start); st != number_status::ok)
    return st == number_status::out_of_range ? skip_reason::time_out_of_range
                                             : skip_reason::invalid_ts;
  if (f.dur.state == presence::absent) return skip_reason::missing_dur;
  if (f.dur.state == presence::other) return skip_reason::invalid_dur;
  std::int64_t dur = 0;
  if (auto const st = f.dur.to_ns(dur); st != number_status::ok)
    return st == number_status::out_of_range ? skip_reason::duration_out_of_range
                                             : skip_reason::invalid_dur;
  if (dur < 0) return skip_reason::negative_dur;
  if (__builtin_add_overflow(start, dur, &end)) return skip_reason::time_out_of_range;
  return std::nullopt;
}

/// The host thread of an event as host rows store it: its integer tid, or the integer a text
/// tid starts with (Paddle's "123(C++)"); -1 otherwise.
std::int64_t host_thread(event_fields const& f) {
  if (f.tid_int) return f.tid;
  if (f.tid_is_text && !f.tid_text.empty() && f.tid_text[0] >= '0' && f.tid_text[0] <= '9') {
    if (auto t = integer_in_text(f.tid_text)) return *t;
  }
  return -1;
}

/// A memory event as the columns take it, from either producer's args.
struct memory_fields {
  std::int32_t device = -1;
  std::int64_t bytes = 0;
  memory_pool pool = memory_pool::allocated;
  std::int64_t allocated = memory_total_absent, reserved = 0;
};

/// Kineto's args: device −1 when `Device Type` is 0 (c10's CPU) or the device is unknown; Total
/// Allocated memory_total_absent when absent (older PyTorch: the reader derives it in order),
/// Total Reserved 0 when absent.
memory_fields kineto_memory(event_fields const& f) {
  bool const host = !f.has_memory_device_type || f.memory_device_type == 0;
  bool const device_known = f.has_memory_device && f.memory_device >= 0 &&
                            f.memory_device <= std::numeric_limits<std::int32_t>::max();
  return {.device = !host && device_known ? static_cast<std::int32_t>(f.memory_device) : -1,
          .bytes = f.memory_bytes,
          .pool = memory_pool::allocated,
          .allocated = f.has_total_allocated ? f.total_allocated : memory_total_absent,
          .reserved = f.has_total_reserved ? f.total_reserved : 0};
}

/// Paddle's category: whether it is one of the memory event types, and which pool and sign.
std::optional<std::pair<memory_pool, bool>> paddle_memory_type(std::string_view cat) {
  if (cat == "Allocate") return std::pair{memory_pool::allocated, true};
  if (cat == "Free") return std::pair{memory_pool::allocated, false};
  if (cat == "ReservedAllocate") return std::pair{memory_pool::reserved, true};
  if (cat == "ReservedFree") return std::pair{memory_pool::reserved, false};
  return std::nullopt;
}

/// Paddle's args: the category decides the pool and the sign (a Free's increase_bytes is written
/// negative, Allocate's positive; the magnitude is taken either way); the totals are the place's
/// current_allocated and current_reserved.
memory_fields paddle_memory(event_fields const& f, std::int32_t device, memory_pool pool,
                            bool allocates) {
  auto const magnitude = f.increase_bytes < 0 ? -f.increase_bytes : f.increase_bytes;
  return {.device = device,
          .bytes = allocates ? magnitude : -magnitude,
          .pool = pool,
          .allocated = f.has_current_allocated ? f.current_allocated : memory_total_absent,
          .reserved = f.has_current_reserved ? f.current_reserved : 0};
}

/// A `[memory]` instant event into the chunk's memory columns. Kineto's carry a Bytes integer;
/// Paddle's an increase_bytes integer and a memory category, and their place must be host
/// memory or a GPU (paddle_place_device), else they are counted in memory_other_place. Any
/// other is left alone; one without a usable ts is counted in memory_skipped.
void add_memory_event(event_fields const& f, chunk_rows& out) {
  memory_fields e;
  if (f.has_memory_bytes) {
    e = kineto_memory(f);
  } else if (auto const type = paddle_memory_type(f.cat); type && f.has_increase_bytes) {
    auto const device = paddle_place_device(f.place);
    if (!device) {
      ++out.memory_other_place;
      return;
    }
    e = paddle_memory(f, *device, type->first, type->second);
  } else {
    return;
  }
  std::int64_t time = 0;
  if (f.ts.state != presence::number || f.ts.to_ns(time) != number_status::ok) {
    ++out.memory_skipped;
    return;
  }
  auto& m = out.memory;
  m.time_ns.push_back(time);
  m.device.push_back(e.device);
  m.thread.push_back(host_thread(f));
  m.bytes.push_back(e.bytes);
  m.pool.push_back(e.pool);
  m.allocated.push_back(e.allocated);
  m.reserved.push_back(e.reserved);
}

/// Per-chunk memo of what a local string id classifies to.
struct name_memo {
  std::int8_t kind = -1;  ///< -1 unknown yet, -2 no kind from the name, else event_kind
  copy_kind copy = copy_kind::unknown;
  bool communication_op = false;  ///< is_communication_op_name
};

/// The chunk's memos: each category's classification and each name's kind, copy kind and
/// communication verdict, computed once per distinct string.
struct chunk_memos {
  std::vector<std::int16_t> category;  ///< local id → index into infos, -1 not yet
  std::vector<category_info> infos;
  std::vector<name_memo> names;

  category_info const& category_of(std::uint32_t cat_id, std::string_view cat) {
    if (cat_id >= category.size()) category.resize(cat_id + 1, -1);
    if (category[cat_id] < 0) {
      category[cat_id] = static_cast<std::int16_t>(infos.size());
      infos.push_back(classify_category(cat));
    }
    return infos[static_cast<std::size_t>(category[cat_id])];
  }

  name_memo const& name_of(std::uint32_t name_id, std::string_view name) {
    if (name_id >= names.size()) names.resize(name_id + 1);
    auto& memo = names[name_id];
    if (memo.kind == -1) {
      auto const k = kind_from_name(name);
      memo.kind = k ? static_cast<std::int8_t>(*k) : std::int8_t{-2};
      memo.copy = memcpy_kind_from_name(name);
      memo.communication_op = is_communication_op_name(name);
    }
    return memo;
  }
};

void reserve_rows(chunk_rows& out, std::size_t n) {
  out.start_ns.reserve(n), out.end_ns.reserve(n), out.kind.reserve(n);
  out.subkind.reserve(n), out.device.reserve(n), out.stream.reserve(n);
  out.name.reserve(n), out.category.reserve(n), out.correlation.reserve(n);
  out.bytes.reserve(n), out.role.reserve(n);
}

/// A GPU-side row's device (args, else pid) and stream (args, else tid, else the number in a
/// text tid).
std::pair<std::int32_t, std::int64_t> device_place(event_fields const& f) {
  std::int64_t d = -1, stream = -1;
  if (f.has_device)
    d = f.device;
  else if (f.pid_int)
    d = f.pid;
  std::int32_t const device =
      d >= 0 && d <= std::numeric_limits<std::int32_t>::max() ? static_cast<std::int32_t>(d) : -1;
  if (f.has_stream) {
    stream = f.stream;
  } else if (f.tid_int) {
    stream = f.tid;
  } else if (f.tid_is_text) {
    if (auto s = integer_in_text(f.tid_text)) stream = *s;
  }
  return {device, stream};
}

/// A host row's thread (host_thread); a text tid without a leading number is kept as text
/// (resolved to a number per input later) and the row's stream stays -1.
std::int64_t row_thread(event_fields const& f, chunk_rows& out) {
  auto const t = host_thread(f);
  if (t < 0 && !f.tid_int && f.tid_is_text)
    out.text_thread.emplace_back(static_cast<std::uint32_t>(out.size()),
                                 out.strings.intern(f.tid_text));
  return t;
}

/// A kernel's launch metrics (blocks per SM, occupancy) when the event carries either.
void add_launch_metrics(event_fields const& f, chunk_rows& out) {
  double const occupancy = std::isnan(f.est_occupancy) ? f.theoretical_occupancy : f.est_occupancy;
  if (std::isnan(f.blocks_per_sm) && std::isnan(occupancy)) return;
  out.metric_row.push_back(static_cast<std::uint32_t>(out.size()));
  out.blocks_per_sm.push_back(f.blocks_per_sm);
  out.occupancy_pct.push_back(occupancy);
}

/// A kernel's collective args (chunk-local string ids; absent text stays npos).
void add_collective_args(event_fields const& f, chunk_rows& out) {
  auto id = [&](std::string_view s) {
    return s.empty() ? string_pool::npos : out.strings.intern(s);
  };
  out.collective_row.push_back(static_cast<std::uint32_t>(out.size()));
  out.collective.push_back({id(f.collective), id(f.dtype), id(f.process_group), f.in_elements,
                            f.out_elements, f.group_size});
}

/// Appends the row of complete event `f` spanning [start, end).
void add_row(event_fields const& f, std::int64_t start, std::int64_t end, bool paddle_schema,
             chunk_memos& memos, chunk_rows& out) {
  auto const cat_id = out.strings.intern(f.cat);
  auto const& info = memos.category_of(cat_id, f.cat);
  bool const paddle_event = info.paddle_only || (f.tid_is_text && is_paddle_thread_id(f.tid_text));
  out.paddle |= paddle_event;
  auto const name_text =
      paddle_event || paddle_schema ? strip_paddle_duration_suffix(f.name) : f.name;
  auto const name_id = out.strings.intern(name_text);
  auto const& memo = memos.name_of(name_id, name_text);

  event_kind kind = info.kind;
  if (info.name_rules && memo.kind >= 0) kind = static_cast<event_kind>(memo.kind);
  std::uint8_t const subkind =
      kind == event_kind::memcpy ? static_cast<std::uint8_t>(memo.copy) : std::uint8_t{0};
  auto const [device, stream] =
      info.device_side ? device_place(f) : std::pair{std::int32_t{-1}, row_thread(f, out)};
  if (kind == event_kind::kernel) add_launch_metrics(f, out);
  // A kernel's NCCL args, or a host record of a collective (older traces: `nccl:*`, `c10d::*`).
  if ((kind == event_kind::kernel || device == -1) && f.has_collective_args())
    add_collective_args(f, out);
  if (kind == event_kind::synchronization && f.has_sync_wait()) {
    out.sync_row.push_back(static_cast<std::uint32_t>(out.size()));
    out.sync.push_back({f.wait_stream, f.wait_record_correlation});
  }
  if (!info.device_side && f.has_stream && f.stream_is_number) {
    out.host_stream_row.push_back(static_cast<std::uint32_t>(out.size()));
    out.host_stream.push_back(f.stream);
  }
  if (kind == event_kind::kernel && f.has_launch_shape()) {
    out.shape_row.push_back(static_cast<std::uint32_t>(out.size()));
    out.grid.push_back(f.grid);
    out.block.push_back(f.block);
  }

  out.start_ns.push_back(start);
  out.end_ns.push_back(end);
  out.kind.push_back(kind);
  out.subkind.push_back(subkind);
  out.device.push_back(device);
  out.stream.push_back(stream);
  out.name.push_back(name_id);
  out.category.push_back(cat_id);
  out.correlation.push_back(f.has_correlation ? f.correlation : -1);
  out.bytes.push_back(f.bytes);
  out.role.emplace_back(info.family,
                        info.communication || (info.communication_by_name && memo.communication_op),
                        info.python_range);
}

}  // namespace

struct event_parser::engine {
  od::parser parser;
};

event_parser::event_parser() : _engine(std::make_unique<engine>()) {}
event_parser::~event_parser() = default;

void event_parser::parse(event_chunk const& chunk, bool paddle_schema, std::string const& path,
                         chunk_rows& out) {
  out.clear();
  reserve_rows(out, chunk.events);
  chunk_memos memos;

  od::document doc;
  simdjson::padded_string_view json(chunk.text.data(), chunk.length, chunk.text.size());
  if (auto e = _engine->parser.iterate(json).get(doc))
    fail_json(path, chunk, chunk.first_event, first_invalid_byte(chunk), e);
  od::array events;
  if (auto e = doc.get_array().get(events))
    fail_json(path, chunk, chunk.first_event, first_invalid_byte(chunk), e);
  auto stopped_at = [&]() -> char const* {
    char const* p = nullptr;
    return doc.current_location().get(p) ? nullptr : p;
  };

  std::uint64_t index = chunk.first_event;
  for (auto element : events) {
    od::object obj;
    if (auto e = element.get_object().get(obj)) fail_json(path, chunk, index, stopped_at(), e);
    event_fields f;
    if (auto e = read_event(obj, f, chunk.backslash_free))
      fail_json(path, chunk, index, f.fault_at ? f.fault_at : stopped_at(), e);
    ++index;
    if (f.is_memory_event()) add_memory_event(f, out);
    if (f.ph != "X") continue;  // instant, flow, counter, metadata, begin/end: not rows
    std::int64_t start = 0, end = 0;
    if (auto const reason = event_times(f, start, end)) {
      ++out.skipped[static_cast<int>(*reason)];
      continue;
    }
    add_row(f, start, end, paddle_schema, memos, out);
  }
}

}  // namespace tracesweep::chrome
