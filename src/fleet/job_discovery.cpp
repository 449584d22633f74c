// SPDX-License-Identifier: Apache-2.0
// Trace files under directories, grouped into jobs by their rank-number pattern; shards.
#include <tracesweep/fleet/jobs.hpp>

#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include <tracesweep/error.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep::fleet {

namespace fs = std::filesystem;

std::string rank_pattern(std::string const& file_name) {
  auto const token = rank_in_file_name(file_name);
  if (!token) return file_name;
  // (appends: GCC 12 warns falsely on `substr + "*" + substr`)
  std::string out;
  return out.append(file_name, 0, token->position)
      .append("*")
      .append(file_name, token->position + token->length);
}

namespace {

/// `p` made absolute and normal, for comparing paths.
std::string canonical_or_absolute(std::string const& p) {
  std::error_code ec;
  auto c = fs::weakly_canonical(p, ec);
  return (ec ? fs::absolute(p) : c).lexically_normal().string();
}

/// The name of `file` under `root` (a directory), or its file name when `root` is the file.
std::string name_under(fs::path const& root, fs::path const& file, bool root_is_dir) {
  if (!root_is_dir) return file.filename().string();
  return file.lexically_relative(root).parent_path().string();
}

}  // namespace

std::vector<job_spec> find_jobs(std::vector<std::string> const& roots,
                                std::vector<std::string> const& exclude) {
  std::vector<std::string> excluded;
  for (auto const& e : exclude) excluded.push_back(canonical_or_absolute(e));
  std::map<std::string, job_spec> jobs;
  for (auto const& root : roots) {
    std::error_code ec;
    if (!fs::exists(root, ec)) throw input_error(root, "", "no such file or directory");
    bool const is_dir = fs::is_directory(root, ec);
    fs::path const root_path = fs::path(canonical_or_absolute(root));
    for (auto const& file : expand_inputs({root})) {
      auto const abs = canonical_or_absolute(file);
      if (std::find(excluded.begin(), excluded.end(), abs) != excluded.end()) continue;
      fs::path const p(abs);
      auto const pattern = rank_pattern(p.filename().string());
      auto const dir = name_under(root_path, p, is_dir);
      auto& job = jobs[(p.parent_path() / pattern).string()];
      if (job.path.empty()) {
        job.path = (p.parent_path() / pattern).string();
        job.name = dir.empty() ? pattern : dir + "/" + pattern;
      }
      if (std::find(job.files.begin(), job.files.end(), abs) == job.files.end())
        job.files.push_back(abs);
    }
  }
  std::vector<job_spec> out;
  for (auto& [path, job] : jobs) {
    std::sort(job.files.begin(), job.files.end());
    out.push_back(std::move(job));
  }
  return out;
}

shard parse_shard(std::string const& text) {
  auto const slash = text.find('/');
  auto const number = [&](std::string const& s) -> std::uint32_t {
    if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit))
      throw std::invalid_argument(text + ": expected K/N, two whole numbers with 0 <= K < N");
    return static_cast<std::uint32_t>(std::stoul(s));
  };
  if (slash == std::string::npos)
    throw std::invalid_argument(text + ": expected K/N, two whole numbers with 0 <= K < N");
  shard s{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (s.count == 0 || s.index >= s.count)
    throw std::invalid_argument(text + ": expected K/N with 0 <= K < N");
  return s;
}

bool in_shard(std::string const& job_path, shard s) noexcept {
  return XXH3_64bits(job_path.data(), job_path.size()) % s.count == s.index;
}

}  // namespace tracesweep::fleet
