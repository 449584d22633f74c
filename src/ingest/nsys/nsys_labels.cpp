// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_labels.hpp"

#include <tracesweep/memcpy_labels.hpp>

namespace tracesweep::nsys {

namespace {

void load_enum(connection& db, export_schema const& schema, std::string const& table,
               std::array<std::string, 256>& labels) {
  if (!schema.has_column(table, "id") || !schema.has_column(table, "label")) return;
  statement rows(db.get(), db.path(), table,
                 "SELECT id, label FROM " + quote_identifier(table) + " ORDER BY rowid");
  while (rows.step()) {
    auto const id = sqlite3_column_int64(rows.get(), 0);
    auto const* text = reinterpret_cast<char const*>(sqlite3_column_text(rows.get(), 1));
    if (id >= 0 && id < 256 && text) labels[static_cast<std::size_t>(id)] = text;
  }
}

}  // namespace

nsys_labels::nsys_labels(connection& db, export_schema const& schema) {
  for (std::size_t k = 0; k < 256; ++k)
    _memcpy[k] = std::string(memcpy_label(static_cast<std::uint8_t>(k)));
  static constexpr char const* sync[] = {"Unknown", "Event sync", "Stream wait sync", "Stream sync",
                                         "Context sync"};
  for (std::size_t k = 0; k < 256; ++k) _sync[k] = k < 5 ? sync[k] : "Unknown";
  _memcpy_ids.fill(string_pool::npos);
  _sync_ids.fill(string_pool::npos);
  load_enum(db, schema, "ENUM_CUDA_MEMCPY_OPER", _memcpy);
  load_enum(db, schema, "ENUM_CUPTI_SYNC_TYPE", _sync);
}

string_id nsys_labels::memcpy_name(std::uint8_t copy_kind, string_pool& pool) const {
  auto& id = _memcpy_ids[copy_kind];
  if (id == string_pool::npos) id = pool.intern("[CUDA memcpy " + _memcpy[copy_kind] + "]");
  return id;
}

string_id nsys_labels::sync_name(std::uint8_t sync_type, string_pool& pool) const {
  auto& id = _sync_ids[sync_type];
  if (id == string_pool::npos) id = pool.intern(_sync[sync_type]);
  return id;
}

}  // namespace tracesweep::nsys
