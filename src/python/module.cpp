// SPDX-License-Identifier: Apache-2.0
// The Python module's native part, `tracesweep._tracesweep`: a job read once (_Job) and the
// command line's analysis commands run on it, their results as columns. The Python package
// (src/python/tracesweep) builds Trace and the DataFrames on it.
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include <tracesweep/error.hpp>
#include <tracesweep/output/frames.hpp>
#include <tracesweep/version.hpp>

#include "cli/app.hpp"
#include "cli/cli_context.hpp"
#include "python/free_memory.hpp"
#include "python/python_arrays.hpp"
#include "python/python_job.hpp"

namespace py = pybind11;

namespace tracesweep::python {

namespace {

/// The Python exception for bad input (an OSError), set at import.
py::object input_error_type;

/// Raises the Python exception for a command-line exit code with its one-line message.
[[noreturn]] void raise(int code, std::string line) {
  while (!line.empty() && line.back() == '\n') line.pop_back();
  if (code == static_cast<int>(exit_code::usage)) throw py::value_error(line);
  PyErr_SetString(input_error_type.ptr(), line.c_str());
  throw py::error_already_set();
}

/// Raises `e` as the command line reports it (its message and exit code).
[[noreturn]] void raise_reported(std::exception_ptr e, std::string_view where) {
  std::ostringstream err;
  int const code = cli::report_error(e, where, err);
  raise(code, err.str());
}

struct job_args {
  std::vector<std::string> paths;
  unsigned threads = 0;
  bool keep_duplicates = false;
  std::string ranks_from;
  std::uint64_t max_event_bytes = default_max_event_bytes;
  std::uint64_t max_inflate_ratio = default_max_inflate_ratio;
  std::map<std::string, std::string> filters;
};

row_filter filter_of(std::map<std::string, std::string> const& filters) {
  cli::analysis_args a;
  for (auto const& [key, text] : filters) {
    if (key == "name")
      a.filter_name = text;
    else if (key == "time_range")
      a.time_range = text;
    else if (key == "nvtx")
      a.filter_nvtx = text;
    else if (key == "ranks")
      a.ranks = text;
    else if (key == "steps")
      a.steps = text;
    else
      throw usage_error("unknown filter '" + key + "' (name, time_range, nvtx, ranks, steps)");
  }
  return cli::filter_of(a);
}

std::unique_ptr<python_job> make_job(job_args const& a) {
  try {
    if (a.paths.empty()) throw usage_error("read: no input given");
    job_settings s;
    s.paths = a.paths;
    s.reading.threads = a.threads;
    s.reading.keep_duplicates = a.keep_duplicates;
    s.reading.max_event_bytes = a.max_event_bytes;
    s.reading.max_inflate_ratio = a.max_inflate_ratio;
    if (a.ranks_from == "path")
      s.reading.ranks_from = rank_source::path;
    else if (a.ranks_from == "order")
      s.reading.ranks_from = rank_source::order;
    else if (!a.ranks_from.empty())
      throw usage_error("ranks_from: path or order");
    s.filter = filter_of(a.filters);
    py::gil_scoped_release unlocked;
    return std::make_unique<python_job>(std::move(s));
  } catch (py::error_already_set const&) {
    throw;
  } catch (...) {
    raise_reported(std::current_exception(), "reading the inputs");
  }
}

/// Runs `tracesweep ARGV…` on the job; returns its result tables as frames (with
/// `nested_frames`, nested tables of rows as frames too) and its notes.
py::tuple run_command(python_job& job, std::vector<std::string> const& argv, bool nested_frames) {
  std::vector<char const*> args{"tracesweep"};
  for (auto const& a : argv) args.push_back(a.c_str());
  output::result_set results;
  std::vector<output::frame> frames;
  cli::hooks h;
  h.job = [&](read_options const& wanted) -> event_table const& { return job.serving(wanted); };
  h.results = [&](output::result_set r) { results = std::move(r); };
  std::ostringstream err;
  int code = 0;
  {
    py::gil_scoped_release unlocked;
    code = cli::run(static_cast<int>(args.size()), args.data(), err, h);
    if (code == 0) frames = output::frames_of(results, {}, {.nested_rows = nested_frames});
  }
  if (code != 0) raise(code, err.str());
  py::list notes;
  for (auto const& n : results.notes) notes.append(python_text(n));
  return py::make_tuple(frame_objects(std::move(frames)), notes);
}

py::list inputs_of(event_table const& t) {
  py::list out;
  for (auto const& in : t.inputs()) {
    py::dict d;
    d["path"] = python_text(in.path);
    d["format"] = python_text(in.format);
    d["ranks"] = in.ranks;
    d["events"] = in.events;
    py::dict skipped;
    for (auto const& [why, n] : in.skipped) skipped[python_text(why)] = n;
    d["skipped"] = skipped;
    d["clock_offset_ns"] = in.clock_offset_ns;
    out.append(d);
  }
  return out;
}

}  // namespace

}  // namespace tracesweep::python

PYBIND11_MODULE(_tracesweep, m) {
  using namespace tracesweep;
  using namespace tracesweep::python;
  m.doc() = "tracesweep's native part; use the tracesweep package";
  m.attr("__version__") = std::string(version_string);
  input_error_type = py::reinterpret_borrow<py::object>(PyErr_NewExceptionWithDoc(
      "tracesweep.InputError", "A trace cannot be read or analysed (the command line's exit 2).",
      PyExc_OSError, nullptr));
  m.attr("InputError") = input_error_type;
  m.attr("event_columns") = event_column_names();
  m.attr("default_max_event_bytes") = default_max_event_bytes;
  m.attr("default_max_inflate_ratio") = default_max_inflate_ratio;
  m.def("release_free_memory", &release_free_memory,
        "Hands the C heap's free pages back to the system (after large temporaries are freed)");
  py::class_<python_job>(m, "_Job")
      .def(
          py::init([](std::vector<std::string> paths, unsigned threads, bool keep_duplicates,
                      std::string ranks_from, std::uint64_t max_event_bytes,
                      std::uint64_t max_inflate_ratio, std::map<std::string, std::string> filters) {
            return make_job({std::move(paths), threads, keep_duplicates, std::move(ranks_from),
                             max_event_bytes, max_inflate_ratio, std::move(filters)});
          }),
          py::arg("paths"), py::arg("threads"), py::arg("keep_duplicates"), py::arg("ranks_from"),
          py::arg("max_event_bytes"), py::arg("max_inflate_ratio"), py::arg("filters"))
      .def("inputs", [](python_job const& j) { return inputs_of(j.table()); })
      .def("size", [](python_job const& j) { return j.table().size(); })
      .def("memory_bytes", [](python_job const& j) { return j.table().memory_footprint().total(); })
      .def("events",
           [](python_job const& j, std::vector<std::string> const& kinds,
              std::vector<std::string> const& columns) {
             try {
               return event_arrays(j.table(), kinds, columns);
             } catch (std::invalid_argument const& e) {
               throw py::value_error(e.what());
             }
           })
      .def("memory_events", [](python_job const& j) { return memory_arrays(j.table()); })
      .def("run", &run_command, py::arg("argv"), py::arg("nested_frames") = false);
}
