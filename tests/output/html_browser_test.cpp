// SPDX-License-Identifier: Apache-2.0
// The HTML page in a real browser: Debian's chromium, headless, renders the sample page (see
// html_sample.hpp) to a PNG. Checks: chromium logs no console message (an uncaught error, a
// fetch the page's policy refused, …), and the screenshot is not blank: every series colour covers
// a few hundred pixels, and the page is not one colour. The console check is itself checked on a
// page with a deliberate error. Without chromium on PATH the tests skip, unless
// TRACESWEEP_REQUIRE_BROWSER=1 (CI). Chromium runs in its own process group, killed whole after
// a timeout, with sanitizer settings and preloads left out of its environment.
// TRACESWEEP_BROWSER_SCREENSHOT=FILE keeps a copy of the sample's screenshot. A summary page of a
// trace whose kernel name is 1 MB long renders in under 5 s and ends: the name is cut.
#include <fcntl.h>
#include <png.h>
#include <spawn.h>
#include <sys/wait.h>

#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/output/writer.hpp>

#include "output/html_sample.hpp"
#include "support/run_cli.hpp"

extern char** environ;

namespace fs = std::filesystem;
namespace ts = tracesweep::test;
using namespace std::chrono_literals;

namespace {

// ---- running a child with a deadline ---------------------------------------------------------

struct child_result {
  bool timed_out = false;
  int exit_code = -1;  ///< -1 when killed by a signal
  std::string err;     ///< its stderr
};

/// Variables kept from the child: the sanitizer settings and preloads a sanitized test binary
/// would pass on (Chromium is not built for them), and HOME and the XDG folders (set anew).
bool kept_from_child(std::string_view entry) {
  for (std::string_view name : {"LD_PRELOAD=", "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=",
                                "HOME=", "XDG_CONFIG_HOME=", "XDG_CACHE_HOME="})
    if (entry.starts_with(name)) return true;
  return false;
}

/// Runs `argv` in a process group of its own with HOME and the XDG folders in `home`, stdout to
/// /dev/null and stderr captured; after `timeout` the whole group is killed. Its group is killed
/// when it ends too, so no helper process outlives it.
child_result run_with_timeout(std::vector<std::string> const& argv, fs::path const& home,
                              std::chrono::milliseconds timeout) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (!kept_from_child(*e)) env.emplace_back(*e);
  env.push_back("HOME=" + home.string());
  env.push_back("XDG_CONFIG_HOME=" + (home / "config").string());
  env.push_back("XDG_CACHE_HOME=" + (home / "cache").string());
  auto pointers = [](std::vector<std::string>& v) {
    std::vector<char*> p;
    for (auto& s : v) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
  };
  auto args = argv;
  auto argp = pointers(args);
  auto envp = pointers(env);
  auto const err_path = home / "stderr.txt";

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  int const spawned = posix_spawn(&pid, argp[0], &files, &attr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  child_result r;
  if (spawned != 0) {
    r.err = "cannot start " + argv[0] + ": " + std::strerror(spawned);
    return r;
  }
  auto const deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (pid_t w; (w = ::waitpid(pid, &status, WNOHANG)) == 0 || (w < 0 && errno == EINTR);) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  ::kill(-pid, SIGKILL);  // helpers left in its group, if any
  if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.err = ts::slurp(err_path);
  return r;
}

// ---- chromium --------------------------------------------------------------------------------

constexpr auto browser_timeout = 60s;
constexpr int window_width = 1280, window_height = 2400;

std::optional<fs::path> find_on_path(std::string const& name) {
  char const* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    auto const p = fs::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

/// The command line: headless, no sandbox (containers, root), no GPU, a fresh profile, console
/// messages logged to stderr, 2 s of virtual time for the page to settle, one CSS pixel a pixel.
std::vector<std::string> chromium_command(fs::path const& chromium, fs::path const& profile,
                                          fs::path const& png, fs::path const& page) {
  return {chromium.string(),
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-dev-shm-usage",
          "--no-first-run",
          "--user-data-dir=" + profile.string(),
          "--enable-logging=stderr",
          "--v=0",
          "--virtual-time-budget=2000",
          "--window-size=" + std::to_string(window_width) + "," + std::to_string(window_height),
          "--hide-scrollbars",
          "--force-device-scale-factor=1",
          "--screenshot=" + png.string(),
          "file://" + page.string()};
}

/// The lines of Chromium's log that report console messages or uncaught errors.
std::vector<std::string> console_lines(std::string const& log) {
  std::vector<std::string> found;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos)
      found.push_back(line);
  return found;
}

// ---- PNG -------------------------------------------------------------------------------------

struct image {
  unsigned width = 0, height = 0;
  std::vector<unsigned char> rgb;  ///< row by row, three bytes a pixel
};

std::optional<image> read_png(fs::path const& p) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, p.c_str())) return std::nullopt;
  png.format = PNG_FORMAT_RGB;
  image im;
  im.width = png.width;
  im.height = png.height;
  im.rgb.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, im.rgb.data(), 0, nullptr)) {
    png_image_free(&png);
    return std::nullopt;
  }
  return im;
}

/// Pixels within `tolerance` of (r, g, b) in every channel.
std::size_t pixels_of(image const& im, unsigned char r, unsigned char g, unsigned char b,
                      int tolerance = 8) {
  std::size_t n = 0;
  for (std::size_t i = 0; i + 2 < im.rgb.size(); i += 3)
    n += std::abs(im.rgb[i] - r) <= tolerance && std::abs(im.rgb[i + 1] - g) <= tolerance &&
         std::abs(im.rgb[i + 2] - b) <= tolerance;
  return n;
}

unsigned char hex_byte(std::string_view css, std::size_t at) {
  return static_cast<unsigned char>(std::stoi(std::string(css.substr(at, 2)), nullptr, 16));
}

// ---- fixture ---------------------------------------------------------------------------------

class html_browser : public ::testing::Test {
 protected:
  void SetUp() override {
    auto const found = find_on_path("chromium");
    if (!found) {
      char const* require = std::getenv("TRACESWEEP_REQUIRE_BROWSER");
      if (require && std::string(require) == "1")
        FAIL() << "chromium is not on PATH and TRACESWEEP_REQUIRE_BROWSER=1";
      GTEST_SKIP() << "chromium is not on PATH (apt-get install chromium): browser test skipped";
    }
    chromium = *found;
    dir = fs::temp_directory_path() /
          ("ts_browser_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "profile");
  }
  void TearDown() override {
    if (!dir.empty()) fs::remove_all(dir);
  }

  /// Renders `html` with chromium; the screenshot is dir/page.png.
  child_result render(std::string const& html) {
    auto const page = dir / "page.html";
    std::ofstream(page, std::ios::binary) << html;
    return run_with_timeout(chromium_command(chromium, dir / "profile", dir / "page.png", page),
                            dir, browser_timeout);
  }

  fs::path chromium, dir;
};

std::string sample_page() {
  std::ostringstream o;
  tracesweep::output::find_writer("html")(ts::html_sample(), "", o, {});
  return o.str();
}

// ---- tests -----------------------------------------------------------------------------------

TEST(html_browser_runner, a_hung_child_and_its_group_are_killed_at_the_timeout) {
  auto const home = fs::temp_directory_path() / ("ts_browser_hang_" + std::to_string(::getpid()));
  fs::create_directories(home);
  auto const marker = home / "survivor";
  auto const start = std::chrono::steady_clock::now();
  // A child of the child sleeps too, then would write the marker.
  auto const r = run_with_timeout(
      {"/bin/sh", "-c",
       "PATH=/usr/bin:/bin; (sleep 2; touch '" + marker.string() + "') & sleep 30"},
      home, 500ms);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  std::this_thread::sleep_for(2500ms);
  EXPECT_FALSE(fs::exists(marker)) << "a process of the group outlived the kill";
  fs::remove_all(home);
}

TEST(html_browser_runner, sanitizer_settings_stay_out_of_the_child) {
  auto const home = fs::temp_directory_path() / ("ts_browser_env_" + std::to_string(::getpid()));
  fs::create_directories(home);
  ::setenv("ASAN_OPTIONS", "abort_on_error=1:detect_leaks=1", 0);
  auto const r = run_with_timeout(
      {"/bin/sh", "-c",
       "PATH=/usr/bin:/bin; env | grep -E '^(LD_PRELOAD|ASAN_OPTIONS|UBSAN_OPTIONS|HOME)=' >&2"},
      home, 10s);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "HOME=" + home.string() + "\n");
  fs::remove_all(home);
}

TEST_F(html_browser, console_errors_are_detected) {
  auto const r = render(
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>t</title></head>"
      "<body><p>x</p><script>nonexistent()</script></body></html>\n");
  ASSERT_FALSE(r.timed_out) << r.err;
  auto const lines = console_lines(r.err);
  ASSERT_FALSE(lines.empty()) << "the deliberate error went unseen; stderr:\n" << r.err;
  EXPECT_NE(lines.front().find("nonexistent"), std::string::npos) << lines.front();
}

TEST_F(html_browser, the_page_refuses_an_injected_script) {
  // The writer never writes a script; were one to slip in, the page's policy would refuse it, and
  // Chromium would say so on the console.
  auto page = sample_page();
  page.insert(page.find("</body>"), "<script>document.title = 'ran';</script>");
  auto const r = render(page);
  ASSERT_FALSE(r.timed_out) << r.err;
  auto const lines = console_lines(r.err);
  ASSERT_FALSE(lines.empty()) << r.err;
  EXPECT_NE(lines.front().find("Content Security Policy"), std::string::npos) << lines.front();
}

TEST_F(html_browser, sample_page_renders_cleanly_with_every_series_visible) {
  auto const r = render(sample_page());
  ASSERT_FALSE(r.timed_out) << "chromium ran past " << browser_timeout.count() << " s";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (auto const& line : console_lines(r.err)) ADD_FAILURE() << "console: " << line;
  auto const png = dir / "page.png";
  if (char const* keep = std::getenv("TRACESWEEP_BROWSER_SCREENSHOT"))
    fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
  auto const im = read_png(png);
  ASSERT_TRUE(im) << "no readable screenshot at " << png << "; stderr:\n" << r.err;
  EXPECT_EQ(im->width, static_cast<unsigned>(window_width));
  EXPECT_EQ(im->height, static_cast<unsigned>(window_height));

  std::vector<std::pair<std::string, std::string>> colours;  // (what, #rrggbb)
  for (auto const& c : ts::html_sample_colours()) colours.emplace_back(c.series, c.css);
  colours.emplace_back("step bars", ts::html_sample_step_colour);
  for (auto const& [what, css] : colours) {
    auto const n = pixels_of(*im, hex_byte(css, 1), hex_byte(css, 3), hex_byte(css, 5));
    EXPECT_GE(n, 300u) << what << " (" << css << "): more than its legend swatch (144 px)";
  }
  // Not one colour: white background, but text, grid, axes and plots on it.
  auto const total = static_cast<std::size_t>(im->width) * im->height;
  auto const white = pixels_of(*im, 255, 255, 255, 0);
  EXPECT_LT(white, total * 97 / 100) << "almost blank";
  EXPECT_GT(white, total / 2) << "a white page";
  EXPECT_GT(pixels_of(*im, 0x1f, 0x29, 0x33, 40), 2000u) << "dark text";
}

TEST_F(html_browser, diagnose_page_renders_cleanly_with_its_charts_drawn) {
  // A planted two-rank job: data-loader gaps every step, a sync gap, a straggler.
  auto const trace = dir / "job.sqlite", page = dir / "page.html";
  auto const g = ts::run_cli(
      "generate --ranks 2 --steps 6 --kernels-per-step 100 --plant "
      "data-loader,sync,straggler -o " +
      ts::quote(trace));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  auto const d =
      ts::run_cli("diagnose --format html -o " + ts::quote(page) + " " + ts::quote(trace));
  ASSERT_EQ(d.exit_code, 0) << d.err;
  std::ifstream in(page, std::ios::binary);
  std::string const html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto const* part : {"Verdicts", "GPU utilization over time", "Idle gaps by duration",
                           "Findings", "Largest idle gaps", "Ranks"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  auto const r = render(html);
  ASSERT_FALSE(r.timed_out) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (auto const& line : console_lines(r.err)) ADD_FAILURE() << "console: " << line;
  auto const im = read_png(dir / "page.png");
  ASSERT_TRUE(im) << r.err;
  // Each chart drew its data: the two GPUs' lines, the data-loading and sync bars of the
  // histogram, the step-time bars.
  for (auto const& [what, css] :
       std::vector<std::pair<char const*, char const*>>{{"rank 0 GPU 0 line", "#17becf"},
                                                        {"rank 1 GPU 1 line", "#bcbd22"},
                                                        {"data_loading bars", "#d62728"},
                                                        {"sync bars", "#ff7f0e"},
                                                        {"step-time bars", "#6b6ecf"}}) {
    auto const n = pixels_of(*im, hex_byte(css, 1), hex_byte(css, 3), hex_byte(css, 5));
    EXPECT_GE(n, 300u) << what << " (" << css << "): more than its legend swatch (144 px)";
  }
}

/// A Kineto trace of one GPU: three instances of a kernel whose name is `name_bytes` long, and one
/// short kernel.
std::string trace_with_a_long_name(std::size_t name_bytes) {
  std::string const name = "void k<" + std::string(name_bytes, 'x') + ">(int)";
  std::string events;
  auto kernel = [&](std::string const& n, int i) {
    events += (events.empty() ? "" : ",\n") +
              ("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + n +
               "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(1000 + 100 * i) +
               ", \"dur\": 50, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": " +
               std::to_string(i + 1) + "}}");
  };
  for (int i = 0; i < 3; ++i) kernel(name, i);
  kernel("short_kernel", 3);
  return "{\"traceEvents\": [\n" + events + "\n]}\n";
}

TEST_F(html_browser, a_page_with_a_1_mb_kernel_name_renders_and_ends) {
  auto const trace = dir / "long_name.json", page = dir / "page.html";
  std::ofstream(trace, std::ios::binary) << trace_with_a_long_name(std::size_t{1} << 20);
  auto const s =
      ts::run_cli("summary --format html -o " + ts::quote(page) + " " + ts::quote(trace));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  // No wall-clock bound (speed is shown in bench/, never in a timed test): the page must end
  // within the browser's hang guard, and end on screen.
  auto const r = render(ts::slurp(page));
  ASSERT_FALSE(r.timed_out) << "chromium ran past " << browser_timeout.count() << " s";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The page ends well within the window: its lower half is background, not the name's lines.
  auto const im = read_png(dir / "page.png");
  ASSERT_TRUE(im) << r.err;
  image lower = *im;
  lower.rgb.erase(lower.rgb.begin(),
                  lower.rgb.begin() + static_cast<std::ptrdiff_t>(lower.rgb.size() / 2));
  auto const half = lower.rgb.size() / 3;
  EXPECT_GT(pixels_of(lower, 255, 255, 255, 0), half * 99 / 100)
      << "the lower half of the page is filled: the name was not cut";
}

}  // namespace
