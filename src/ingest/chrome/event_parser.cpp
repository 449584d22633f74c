// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/event_parser.hpp"

#include <tracesweep/error.hpp>
#include <tracesweep/event_table.hpp>

#include "ingest/chrome/decimal_time.hpp"
#include "ingest/chrome/event_classifier.hpp"
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
  memory = {};
  memory_skipped = 0;
  memory_other_place = 0;
  strings = string_pool();
  skipped.fill(0);
  paddle = false;
}

namespace {

enum class presence : std::uint8_t { absent, number, other };

/// The fields of one event that the columns use.
struct event_fields {
  std::string_view ph, cat, name;
  std::string_view ts, dur;  ///< raw number tokens
  presence ts_state = presence::absent;
  presence dur_state = presence::absent;
  std::int64_t pid = 0;
  bool pid_int = false;
  std::int64_t tid = 0;
  bool tid_int = false;
  std::string_view tid_text;
  bool tid_is_text = false;
  std::int64_t device = -1, stream = -1, correlation = -1, bytes = 0;
  bool has_device = false, has_stream = false, has_correlation = false;
  // Launch metrics (kernels): Kineto's "est. achieved occupancy %", Paddle's "theoretical
  // achieved occupancy %" (used only when the "est." one is absent). NaN = absent.
  double blocks_per_sm = std::numeric_limits<double>::quiet_NaN();
  double est_occupancy = std::numeric_limits<double>::quiet_NaN();
  double theoretical_occupancy = std::numeric_limits<double>::quiet_NaN();
  // Memory events (Kineto `[memory]` args); found flags say the integer was there.
  std::int64_t memory_bytes = 0, total_allocated = 0, total_reserved = 0;
  std::int64_t memory_device = -1, memory_device_type = -1;
  bool has_memory_bytes = false, has_total_allocated = false, has_total_reserved = false;
  bool has_memory_device = false, has_memory_device_type = false;
  // Paddle's memory args: increase_bytes, current_allocated, current_reserved, place.
  std::int64_t increase_bytes = 0, current_allocated = 0, current_reserved = 0;
  bool has_increase_bytes = false, has_current_allocated = false, has_current_reserved = false;
  std::string_view place;
  /// An instant event's name read after its ph is compared as written (not unescaped, not
  /// checked): whether it is "[memory]".
  bool memory_name = false;
  [[nodiscard]] bool is_memory_event() const noexcept {
    return ph == "i" && (memory_name || name == "[memory]");
  }
  char const* fault_at = nullptr;  ///< where the invalid JSON starts, when an error is returned
};

/// Whether a raw JSON token (a value as written, maybe followed by blanks) is "[memory]".
bool is_memory_name(std::string_view token) {
  constexpr std::string_view memory = "\"[memory]\"";
  if (!token.starts_with(memory)) return false;
  token.remove_prefix(memory.size());
  return token.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

/// The type of a value the reader interprets, with its syntax checked where On-Demand leaves it
/// to the consumer: numbers (strict RFC 8259 grammar) and the atoms null, true, false. On an
/// error `at` is where the value starts.
simdjson::error_code checked_type(od::value& v, od::json_type& type, char const*& at) {
  std::string_view const token = v.raw_json_token();
  at = token.data();
  if (auto e = v.type().get(type)) return e;
  switch (type) {
    case od::json_type::number:
      return is_json_number(token) ? simdjson::SUCCESS : simdjson::NUMBER_ERROR;
    case od::json_type::null: {
      bool null = false;
      return v.is_null().get(null) || !null ? simdjson::N_ATOM_ERROR : simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b))
        return token[0] == 't' ? simdjson::T_ATOM_ERROR : simdjson::F_ATOM_ERROR;
      return simdjson::SUCCESS;
    }
    default:
      return simdjson::SUCCESS;
  }
}

/// A string holding an integer: decimal, or 0x-hex of at most 15 digits.
bool integer_text(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (s.size() > 17) return false;
    std::int64_t value = 0;
    for (char c : s.substr(2)) {
      int d = 0;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return false;
      value = value * 16 + d;
    }
    out = value;
    return true;
  }
  return is_json_integer(s) && decimal_to_scaled_int(s, 0, out) == number_status::ok;
}

/// A real-valued arg: a JSON number (integer or not). Anything else leaves `out` unchanged.
simdjson::error_code read_real(od::value& v, double& out, char const*& at) {
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  double d = 0;
  if (type == od::json_type::number && !v.get_double().get(d)) out = d;
  return simdjson::SUCCESS;
}

/// An integer arg: a JSON integer, or a string holding a decimal or 0x-hex integer. `found`
/// tells whether it was one; a value of another type or range leaves it false.
simdjson::error_code read_integer(od::value& v, std::int64_t& out, bool& found, char const*& at) {
  found = false;
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  if (type == od::json_type::number) {
    std::int64_t i = 0;
    if (!v.get_int64().get(i)) {
      out = i;
      found = true;
      return simdjson::SUCCESS;
    }
    double d = 0;  // e.g. 7.0 from a re-writer: accept exact integers only
    // The range first: casting a double outside int64 to int64 is undefined.
    if (!v.get_double().get(d) && d >= -9.0e18 && d <= 9.0e18 &&
        d == static_cast<double>(static_cast<std::int64_t>(d))) {
      out = static_cast<std::int64_t>(d);
      found = true;
    }
    return simdjson::SUCCESS;
  }
  if (type == od::json_type::string) {
    std::string_view s;
    if (auto e = v.get_string().get(s)) return e;
    found = integer_text(s, out);
  }
  return simdjson::SUCCESS;
}

/// `ts` or `dur`: a number (its raw token), null (absent), or a value of another type.
simdjson::error_code read_number_token(od::value& v, std::string_view& token, presence& state,
                                       char const*& at) {
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  state = type == od::json_type::null     ? presence::absent
          : type == od::json_type::number ? presence::number
                                          : presence::other;
  if (state == presence::number) token = v.raw_json_token();
  return simdjson::SUCCESS;
}

/// A string field (`ph`, `cat`, `name`): its text when it is a string, else left as it is.
simdjson::error_code read_text(od::value& v, std::string_view& out, char const*& at) {
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  return type == od::json_type::string ? v.get_string().get(out) : simdjson::SUCCESS;
}

/// Calls `read(key, value)` for each field of `obj` until it fails or sets `stop`.
template <class Read>
simdjson::error_code for_each_field(od::object& obj, bool const& stop, Read&& read) {
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return e;
    if (auto e = read(field.key(), field.value())) return e;
    if (stop) break;
  }
  return simdjson::SUCCESS;
}

/// A `[memory]` event's args: Kineto's Bytes, Total Allocated, Total Reserved, Device Id,
/// Device Type; Paddle's increase_bytes, current_allocated, current_reserved, place. Any other
/// key is left unread.
simdjson::error_code read_memory_arg(od::raw_json_string k, od::value& a, event_fields& f) {
  auto& at = f.fault_at;
  if (k == "increase_bytes") return read_integer(a, f.increase_bytes, f.has_increase_bytes, at);
  if (k == "current_allocated")
    return read_integer(a, f.current_allocated, f.has_current_allocated, at);
  if (k == "current_reserved")
    return read_integer(a, f.current_reserved, f.has_current_reserved, at);
  if (k == "place") return read_text(a, f.place, at);
  if (k == "Bytes") return read_integer(a, f.memory_bytes, f.has_memory_bytes, at);
  if (k == "Total Allocated") return read_integer(a, f.total_allocated, f.has_total_allocated, at);
  if (k == "Total Reserved") return read_integer(a, f.total_reserved, f.has_total_reserved, at);
  if (k == "Device Id") return read_integer(a, f.memory_device, f.has_memory_device, at);
  if (k == "Device Type")
    return read_integer(a, f.memory_device_type, f.has_memory_device_type, at);
  return simdjson::SUCCESS;
}

/// The `args` object's fields the columns use.
simdjson::error_code read_args(od::value& v, event_fields& f) {
  od::json_type type;
  if (auto e = checked_type(v, type, f.fault_at)) return e;
  if (type != od::json_type::object) return simdjson::SUCCESS;
  od::object args;
  if (auto e = v.get_object().get(args)) return e;
  bool const never = false;
  return for_each_field(args, never, [&](od::raw_json_string k, od::value& a) {
    auto& at = f.fault_at;
    simdjson::error_code e = simdjson::SUCCESS;
    if (k == "device") {
      e = read_integer(a, f.device, f.has_device, at);
    } else if (k == "stream") {
      e = read_integer(a, f.stream, f.has_stream, at);
    } else if (k == "correlation" || k == "correlation id") {
      e = read_integer(a, f.correlation, f.has_correlation, at);
    } else if (k == "bytes") {
      bool found = false;
      e = read_integer(a, f.bytes, found, at);
      if (!found) f.bytes = 0;
    } else if (k == "blocks per SM") {
      e = read_real(a, f.blocks_per_sm, at);
    } else if (k == "est. achieved occupancy %") {
      e = read_real(a, f.est_occupancy, at);
    } else if (k == "theoretical achieved occupancy %") {
      e = read_real(a, f.theoretical_occupancy, at);
    } else {
      e = read_memory_arg(k, a, f);
    }
    return e;
  });
}

/// Reads the fields of one event object. Returns an error code from simdjson; f.fault_at is
/// where the offending value starts when it is known.
simdjson::error_code read_event(od::object& obj, event_fields& f) {
  bool not_complete = false;  // ph is neither "X" nor "i": leave the rest of the event unread
  return for_each_field(obj, not_complete, [&](od::raw_json_string key, od::value& v) {
    auto& at = f.fault_at;
    simdjson::error_code e = simdjson::SUCCESS;
    switch (key.raw()[0]) {  // dispatch on the first byte: most keys are rejected at once
      case 'p':
        if (key == "ph") {
          if ((e = read_text(v, f.ph, at))) return e;
          // Complete events become rows and instant events may be memory events: leave the
          // rest of any other event unread.
          not_complete = f.ph != "X" && f.ph != "i";
        } else if (key == "pid") {
          e = read_integer(v, f.pid, f.pid_int, at);
        }
        break;
      case 't':
        if (key == "ts") {
          e = read_number_token(v, f.ts, f.ts_state, at);
        } else if (key == "tid") {
          od::json_type type;
          if ((e = checked_type(v, type, at))) return e;
          f.tid_is_text = type == od::json_type::string;
          e = f.tid_is_text ? v.get_string().get(f.tid_text)
                            : read_integer(v, f.tid, f.tid_int, at);
        }
        break;
      case 'd':
        if (key == "dur") e = read_number_token(v, f.dur, f.dur_state, at);
        break;
      case 'c':
        if (key == "cat") e = read_text(v, f.cat, at);
        break;
      case 'n':
        if (key == "name" && f.ph == "i")
          f.memory_name = is_memory_name(v.raw_json_token());
        else if (key == "name")
          e = read_text(v, f.name, at);
        break;
      case 'a':
        if (key == "args") e = read_args(v, f);
        break;
      default:
        break;
    }
    return e;
  });
}

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
/// skipped. The tokens' syntax was checked by checked_type.
std::optional<skip_reason> event_times(event_fields const& f, std::int64_t& start,
                                       std::int64_t& end) {
  if (f.ts_state == presence::absent) return skip_reason::missing_ts;
  if (f.ts_state == presence::other) return skip_reason::invalid_ts;
  if (auto const st = microseconds_to_ns(f.ts, start); st != number_status::ok)
    return st == number_status::out_of_range ? skip_reason::time_out_of_range
                                             : skip_reason::invalid_ts;
  if (f.dur_state == presence::absent) return skip_reason::missing_dur;
  if (f.dur_state == presence::other) return skip_reason::invalid_dur;
  std::int64_t dur = 0;
  if (auto const st = microseconds_to_ns(f.dur, dur); st != number_status::ok)
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
  if (f.ts_state != presence::number || microseconds_to_ns(f.ts, time) != number_status::ok) {
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

}  // namespace

void event_parser::parse(event_chunk const& chunk, bool paddle_schema, std::string const& path,
                         chunk_rows& out) {
  out.clear();
  auto const reserve = chunk.events;
  out.start_ns.reserve(reserve), out.end_ns.reserve(reserve), out.kind.reserve(reserve);
  out.subkind.reserve(reserve), out.device.reserve(reserve), out.stream.reserve(reserve);
  out.name.reserve(reserve), out.category.reserve(reserve), out.correlation.reserve(reserve);
  out.bytes.reserve(reserve), out.role.reserve(reserve);

  std::vector<std::int16_t> category_memo;  // local id → index into category_infos, -1 unknown
  std::vector<category_info> category_infos;
  std::vector<name_memo> names;

  od::document doc;
  simdjson::padded_string_view json(chunk.text.data(), chunk.length, chunk.text.size());
  if (auto e = _parser.iterate(json).get(doc))
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
    if (auto e = read_event(obj, f))
      fail_json(path, chunk, index, f.fault_at ? f.fault_at : stopped_at(), e);
    ++index;
    if (f.is_memory_event()) add_memory_event(f, out);
    if (f.ph != "X") continue;  // instant, flow, counter, metadata, begin/end: not rows

    auto skip = [&](skip_reason r) { ++out.skipped[static_cast<int>(r)]; };
    std::int64_t start = 0, end = 0;
    if (auto const reason = event_times(f, start, end)) {
      skip(*reason);
      continue;
    }

    auto const cat_id = out.strings.intern(f.cat);
    if (cat_id >= category_memo.size()) category_memo.resize(cat_id + 1, -1);
    if (category_memo[cat_id] < 0) {
      category_memo[cat_id] = static_cast<std::int16_t>(category_infos.size());
      category_infos.push_back(classify_category(f.cat));
    }
    auto const& info = category_infos[static_cast<std::size_t>(category_memo[cat_id])];
    bool const paddle_event =
        info.paddle_only || (f.tid_is_text && is_paddle_thread_id(f.tid_text));
    out.paddle |= paddle_event;

    auto const name_text =
        paddle_event || paddle_schema ? strip_paddle_duration_suffix(f.name) : f.name;
    auto const name_id = out.strings.intern(name_text);
    if (name_id >= names.size()) names.resize(name_id + 1);
    auto& memo = names[name_id];
    if (memo.kind == -1) {
      auto const k = kind_from_name(name_text);
      memo.kind = k ? static_cast<std::int8_t>(*k) : std::int8_t{-2};
      memo.copy = memcpy_kind_from_name(name_text);
      memo.communication_op = is_communication_op_name(name_text);
    }

    event_kind kind = info.kind;
    if (info.name_rules && memo.kind >= 0) kind = static_cast<event_kind>(memo.kind);
    std::uint8_t subkind = 0;
    if (kind == event_kind::memcpy) subkind = static_cast<std::uint8_t>(memo.copy);

    std::int32_t device = -1;
    std::int64_t stream = -1;
    if (info.device_side) {
      std::int64_t d = -1;
      if (f.has_device)
        d = f.device;
      else if (f.pid_int)
        d = f.pid;
      if (d >= 0 && d <= std::numeric_limits<std::int32_t>::max())
        device = static_cast<std::int32_t>(d);
      if (f.has_stream) {
        stream = f.stream;
      } else if (f.tid_int) {
        stream = f.tid;
      } else if (f.tid_is_text) {
        if (auto s = integer_in_text(f.tid_text)) stream = *s;
      }
    } else if (f.tid_int) {
      stream = f.tid;
    } else if (f.tid_is_text) {
      std::optional<std::int64_t> leading;
      if (!f.tid_text.empty() && f.tid_text[0] >= '0' && f.tid_text[0] <= '9')
        leading = integer_in_text(f.tid_text);
      if (leading) {
        stream = *leading;
      } else {
        out.text_thread.emplace_back(static_cast<std::uint32_t>(out.size()),
                                     out.strings.intern(f.tid_text));
      }
    }

    if (kind == event_kind::kernel) {
      double const occupancy =
          std::isnan(f.est_occupancy) ? f.theoretical_occupancy : f.est_occupancy;
      if (!std::isnan(f.blocks_per_sm) || !std::isnan(occupancy)) {
        out.metric_row.push_back(static_cast<std::uint32_t>(out.size()));
        out.blocks_per_sm.push_back(f.blocks_per_sm);
        out.occupancy_pct.push_back(occupancy);
      }
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
    out.role.emplace_back(
        info.family, info.communication || (info.communication_by_name && memo.communication_op),
        info.python_range);
  }
}

}  // namespace tracesweep::chrome
