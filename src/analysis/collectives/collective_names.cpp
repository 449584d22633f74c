// SPDX-License-Identifier: Apache-2.0
// Names of collectives (collectives.hpp): the kind of an NCCL kernel from its name or from the
// "Collective name" arg, data types and their sizes, nccl-tests' bus-bandwidth factors.
#include <tracesweep/analysis/collectives.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>
#include <utility>

namespace tracesweep {

std::string_view collective_kind_name(collective_kind k) noexcept {
  switch (k) {
    case collective_kind::all_reduce:
      return "all_reduce";
    case collective_kind::all_gather:
      return "all_gather";
    case collective_kind::reduce_scatter:
      return "reduce_scatter";
    case collective_kind::broadcast:
      return "broadcast";
    case collective_kind::reduce:
      return "reduce";
    case collective_kind::all_to_all:
      return "all_to_all";
    case collective_kind::send_recv:
      return "send_recv";
    case collective_kind::other:
      break;
  }
  return "other";
}

std::optional<collective_kind> collective_kind_of(std::string_view name) {
  if (!name.starts_with("nccl")) return std::nullopt;
  auto const kernel = name.find("Kernel_");
  if (kernel == std::string_view::npos ||
      name.substr(0, kernel).find('(') != std::string_view::npos)
    return std::nullopt;
  // The operation follows "Kernel_"; the first word that names one decides (ReduceScatter and
  // AllReduce before Reduce).
  auto const op = name.substr(kernel + 7);
  using enum collective_kind;
  static constexpr std::array<std::pair<std::string_view, collective_kind>, 10> words{{
      {"AllReduce", all_reduce},
      {"AllGather", all_gather},
      {"ReduceScatter", reduce_scatter},
      {"Broadcast", broadcast},
      {"AllToAll", all_to_all},
      {"Alltoall", all_to_all},
      {"SendRecv", send_recv},
      {"Send", send_recv},
      {"Recv", send_recv},
      {"Reduce", reduce},
  }};
  for (auto const& [word, kind] : words)
    if (op.starts_with(word)) return kind;
  return other;
}

double bus_factor(collective_kind kind, std::int64_t n) noexcept {
  if (n <= 0) return 1.0;
  auto const d = static_cast<double>(n);
  switch (kind) {
    case collective_kind::all_reduce:
      return 2.0 * (d - 1.0) / d;
    case collective_kind::all_gather:
    case collective_kind::reduce_scatter:
    case collective_kind::all_to_all:
      return (d - 1.0) / d;
    default:
      return 1.0;
  }
}

data_type data_type_of(std::string_view written) {
  // Kineto's dtype (c10 ScalarType names) and the type tokens of NCCL kernel names (nsys
  // "…_Sum_f32_RING_LL", older "…_Sum_float(…)").
  // Older traces' "Input type" names C++ types: "signed char", "long", "c10::Half".
  static constexpr std::array<std::tuple<std::string_view, std::string_view, std::int64_t>, 45>
      types{{{"Byte", "uint8", 1},
             {"unsigned char", "uint8", 1},
             {"signed char", "int8", 1},
             {"short", "int16", 2},
             {"long", "int64", 8},
             {"long int", "int64", 8},
             {"c10::Half", "float16", 2},
             {"c10::BFloat16", "bfloat16", 2},
             {"Bool", "bool", 1},
             {"bool", "bool", 1},
             {"u8", "uint8", 1},
             {"uint8_t", "uint8", 1},
             {"Char", "int8", 1},
             {"i8", "int8", 1},
             {"int8_t", "int8", 1},
             {"Short", "int16", 2},
             {"Int", "int32", 4},
             {"i32", "int32", 4},
             {"int32_t", "int32", 4},
             {"int", "int32", 4},
             {"u32", "uint32", 4},
             {"uint32_t", "uint32", 4},
             {"Long", "int64", 8},
             {"i64", "int64", 8},
             {"int64_t", "int64", 8},
             {"u64", "uint64", 8},
             {"uint64_t", "uint64", 8},
             {"Half", "float16", 2},
             {"f16", "float16", 2},
             {"half", "float16", 2},
             {"Float", "float32", 4},
             {"f32", "float32", 4},
             {"float", "float32", 4},
             {"Double", "float64", 8},
             {"f64", "float64", 8},
             {"double", "float64", 8},
             {"BFloat16", "bfloat16", 2},
             {"bf16", "bfloat16", 2},
             {"__nv_bfloat16", "bfloat16", 2},
             {"nv_bfloat16", "bfloat16", 2},
             {"Float8_e4m3fn", "float8_e4m3", 1},
             {"f8e4m3", "float8_e4m3", 1},
             {"Float8_e5m2", "float8_e5m2", 1},
             {"f8e5m2", "float8_e5m2", 1}}};
  for (auto const& [as_written, name, size] : types)
    if (written == as_written) return {std::string(name), size};
  return {std::string(written), 0};
}

std::optional<collective_kind> collective_kind_of_operation(std::string_view operation) {
  // "allreduce", "all_gather", "_allgather_base", "reduce_scatter_tensor_coalesced", "send", …:
  // lower case without underscores, then the leading word.
  std::string op;
  for (char c : operation)
    if (c != '_') op += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  using enum collective_kind;
  static constexpr std::array<std::pair<std::string_view, collective_kind>, 8> words{{
      {"allreduce", all_reduce},
      {"allgather", all_gather},
      {"reducescatter", reduce_scatter},
      {"broadcast", broadcast},
      {"alltoall", all_to_all},
      {"sendrecv", send_recv},
      {"send", send_recv},
      {"recv", send_recv},
  }};
  for (auto const& [word, kind] : words)
    if (std::string_view(op).starts_with(word)) return kind;
  if (op == "reduce") return reduce;
  return std::nullopt;
}

}  // namespace tracesweep
