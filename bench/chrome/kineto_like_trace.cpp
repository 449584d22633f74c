// SPDX-License-Identifier: Apache-2.0
// Writes a one-rank synthetic Kineto JSON trace with the host mix of a real PyTorch job
// (with_kineto_host_mix: event polling, launch-free aten ops, device copies), for the Chrome
// benchmark's "generated" input. usage: kineto_like_trace EVENTS PATH_PREFIX [gz]
#include <tracesweep/event_table.hpp>
#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s EVENTS PATH_PREFIX [gz]\n", argv[0]);
    return 1;
  }
  tracesweep::synthetic_options options;
  options.ranks = 1;
  options.target_events = std::atoll(argv[1]);
  options = tracesweep::with_kineto_host_mix(options);
  tracesweep::event_table table;
  tracesweep::generate_synthetic_trace(options, table);
  bool const gzip = argc > 3 && std::string(argv[3]) == "gz";
  for (auto const& path : tracesweep::write_kineto_json(table, argv[2], gzip))
    std::printf("%s: %zu rows\n", path.c_str(), table.size());
  return 0;
}
