// SPDX-License-Identifier: Apache-2.0
// The HTML page's charts as inline SVG (svg_charts.hpp): scales and ticks, colours, the chart's
// data, the frame and legend, line charts and bar charts.
#include "output/svg_charts.hpp"
#include "output/svg_frame.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "output/html_text.hpp"
#include "output/render.hpp"

namespace tracesweep::output::html_page {

/// An SVG coordinate.
std::string px(double v) {
  return fmt::format("{:.1f}", v);
}

// ---- scales and ticks ------------------------------------------------------------------------

/// The scale of values in `unit` whose magnitude is about `m`.
scale scale_for(std::string const& unit, double m) {
  if (unit == "ns") {
    if (m >= 10e9) return {1e9, "s", ""};
    if (m >= 10e6) return {1e6, "ms", ""};
    if (m >= 10e3) return {1e3, "\xC2\xB5s", ""};
    return {1, "ns", ""};
  }
  if (unit == "fraction") return {0.01, "%", ""};
  if (unit == "bytes") {
    if (m >= 10e9) return {1e9, "GB", ""};
    if (m >= 10e6) return {1e6, "MB", ""};
    if (m >= 10e3) return {1e3, "kB", ""};
    return {1, "bytes", ""};
  }
  if (m >= 10e9) return {1e9, unit, "G"};
  if (m >= 10e6) return {1e6, unit, "M"};
  if (m >= 10e3) return {1e3, unit, "k"};
  return {1, unit, ""};
}

/// Ticks over [lo, hi]; `extend` widens the range to whole steps; `integral`: steps of at least 1.
ticks make_ticks(double lo, double hi, int target, bool extend, bool integral) {
  if (!(hi > lo)) {  // one value: a range around it (from 0 when it is not negative)
    double const pad = lo == 0 ? 1 : std::abs(lo) * 0.5;
    lo = lo >= 0 && extend ? 0 : lo - pad;
    hi = hi + pad;
  }
  double const raw = (hi - lo) / target;
  double const mag = std::pow(10.0, std::floor(std::log10(raw)));
  double const f = raw / mag;
  double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
  if (integral) step = std::max(step, 1.0);
  ticks t;
  t.step = step;
  t.lo = extend ? std::floor(lo / step + 1e-9) * step : lo;
  t.hi = extend ? std::ceil(hi / step - 1e-9) * step : hi;
  auto const first = static_cast<std::int64_t>(std::ceil(t.lo / step - 1e-9));
  auto const last = static_cast<std::int64_t>(std::floor(t.hi / step + 1e-9));
  for (auto k = first; k <= last; ++k) t.at.push_back(static_cast<double>(k) * step);
  return t;
}

/// A tick's label: as many decimals as the step needs.
std::string tick_label(double v, double step, std::string const& suffix) {
  int decimals = 0;
  while (decimals < 9) {
    double const s = step * std::pow(10.0, decimals);
    if (std::abs(s - std::round(s)) < 1e-6 * std::max(1.0, s)) break;
    ++decimals;
  }
  return v == 0 ? std::string("0") : fmt::format("{:.{}f}", v, decimals) + suffix;
}

/// The column's label (or name) without a trailing " (…)", its unit.
std::string bare_label(column const& c) {
  std::string t = c.label.empty() ? c.name : c.label;
  if (auto const open = t.rfind(" ("); open != std::string::npos && t.back() == ')') t.erase(open);
  return t;
}

/// An axis title: `label` (else the column's bare label) and the axis unit.
std::string axis_title(std::string const& label, column const& c, std::string const& unit) {
  std::string const t = label.empty() ? bare_label(c) : label;
  return unit.empty() ? t : t + " (" + unit + ")";
}

// ---- colours ---------------------------------------------------------------------------------

constexpr char const* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                   "#393b79", "#ad494a", "#637939", "#8c6d31", "#7b4173"};

/// Whether `c` is a colour this writer passes on: #rgb[a] / #rrggbb[aa], rgb()/rgba()/hsl()/hsla()
/// of numbers, or a name of letters. Nothing that could name a resource.
bool css_colour(std::string_view c) {
  auto all = [](std::string_view s, auto pred) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [&](char ch) { return pred(static_cast<unsigned char>(ch)); });
  };
  if (c.starts_with('#')) {
    auto const hex = c.substr(1);
    return (hex.size() == 3 || hex.size() == 4 || hex.size() == 6 || hex.size() == 8) &&
           all(hex, [](unsigned char ch) { return std::isxdigit(ch) != 0; });
  }
  for (std::string_view f : {"rgb(", "rgba(", "hsl(", "hsla("})
    if (c.starts_with(f) && c.ends_with(')'))
      return all(c.substr(f.size(), c.size() - f.size() - 1), [](unsigned char ch) {
        return std::isdigit(ch) || ch == '.' || ch == ',' || ch == ' ' || ch == '%' || ch == '/';
      });
  return c.size() <= 30 && all(c, [](unsigned char ch) { return std::isalpha(ch) != 0; });
}

// ---- chart data ------------------------------------------------------------------------------

std::optional<double> number(cell const& c) {
  if (auto const* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  if (auto const* d = std::get_if<double>(&c); d && std::isfinite(*d)) return *d;
  return std::nullopt;
}

bool numeric(column const& c) {
  return c.type == value_type::integer || c.type == value_type::real;
}

constexpr std::size_t no_column = static_cast<std::size_t>(-1);

/// The index of the column `name`, or no_column.
std::size_t find(result_table const& t, std::string const& name) {
  for (std::size_t j = 0; j < t.columns.size(); ++j)
    if (t.columns[j].name == name) return j;
  return no_column;
}

/// The chart's columns and series, or why it cannot be drawn.
std::variant<chart_data, std::string> read_chart(result_table const& t) {
  auto const& p = t.plot;
  auto const x = find(t, p.x);
  auto const y = find(t, p.y);
  auto const s = p.series.empty() ? no_column : find(t, p.series);
  if (x == no_column) return "no column \"" + p.x + "\" for x";
  if (y == no_column) return "no column \"" + p.y + "\" for y";
  if (!p.series.empty() && s == no_column) return "no column \"" + p.series + "\" for the series";
  if (!numeric(t.columns[y])) return "y column \"" + p.y + "\" is not numeric";
  if (p.kind == chart_kind::line && !numeric(t.columns[x]))
    return "x column \"" + p.x + "\" of a line chart is not numeric";
  if (t.columns[x].type == value_type::nested) return "x column \"" + p.x + "\" holds tables";
  chart_data d;
  d.xi = x, d.yi = y;
  d.x = &t.columns[x], d.y = &t.columns[y];
  std::map<std::string, std::size_t> index;
  std::size_t next_colour = 0;
  for_each_row(t, [&](row const& r) {
    std::string name = s != no_column ? text_cell(r.cells[s], t.columns[s]) : std::string();
    auto [it, added] = index.try_emplace(name, d.all.size());
    if (added) {
      std::string colour;
      for (auto const& [value, css] : p.colors)
        if (value == name && css_colour(css)) colour = css;
      if (colour.empty()) colour = palette[next_colour++ % std::size(palette)];
      std::string label =
          s != no_column && numeric(t.columns[s]) ? bare_label(t.columns[s]) + " " + name : name;
      d.all.push_back({std::move(name), std::move(label), std::move(colour)});
    }
    d.row_series.push_back(it->second);
  });
  return d;
}

// ---- SVG -------------------------------------------------------------------------------------

constexpr std::size_t legend_chars = 40;

legend_layout lay_out_legend(std::vector<series> const& all, double left) {
  legend_layout l;
  if (all.size() < 2 && (all.empty() || all.front().name.empty())) return l;
  double x = left;
  l.rows = 1;
  for (auto const& s : all) {
    double const w =
        18 + char_width * static_cast<double>(std::min(length(s.label), legend_chars)) + 18;
    if (x > left && x + w > svg_width - 8) x = left, ++l.rows;
    l.at.emplace_back(x, l.rows - 1);
    x += w;
  }
  return l;
}

void write_legend(std::string& o, std::vector<series> const& all, legend_layout const& l) {
  if (l.rows == 0) return;
  o += "<g class=\"legend\">";
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto const [x, row] = l.at[i];
    double const y = 8 + row * legend_row;
    o += fmt::format(
        "<rect class=\"swatch\" x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\"><title>{}</title>{}</text>",
        px(x), px(y), escape(all[i].colour), px(x + 17), px(y + 10), escape(all[i].label),
        short_text(all[i].label.empty() ? "(none)" : all[i].label, legend_chars));
  }
  o += "</g>";
}

/// Opens the SVG of `height`, titled for screen readers.
void open_svg(std::string& o, double height, std::string const& label) {
  o += fmt::format(
      "<figure class=\"chart\"><svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" aria-label=\"{2}\">",
      svg_width, px(height), escape(label));
}

/// Horizontal grid lines, the y axis with its ticks and title, and the x axis line.
void write_y_axis(std::string& o, frame const& f, ticks const& yt, scale const& ys,
                  std::string const& title) {
  o += "<g class=\"y\">";
  for (double v : yt.at) {
    double const y = f.y(v);
    o += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", px(f.left),
                     px(f.left + f.width), px(y), px(y));
    o += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                     px(f.left - 6), px(y + 4), escape(tick_label(v, yt.step, ys.suffix)));
  }
  o += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
      "<line class=\"axis\" x1=\"{0}\" x2=\"{3}\" y1=\"{2}\" y2=\"{2}\"/>",
      px(f.left), px(f.top), px(f.top + f.height), px(f.left + f.width));
  double const cy = f.top + f.height / 2;
  o += fmt::format(
      "<text class=\"title\" x=\"14\" y=\"{0}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {0})\">{1}</text></g>",
      px(cy), escape(title));
}

void write_x_title(std::string& o, frame const& f, double y, std::string const& title) {
  o += fmt::format("<text class=\"title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                   px(f.left + f.width / 2), px(y), escape(title));
}

/// The widest tick label of `t`, in characters.
std::size_t widest(ticks const& t, scale const& s) {
  std::size_t w = 0;
  for (double v : t.at) w = std::max(w, tick_label(v, t.step, s.suffix).size());
  return w;
}

/// The plot area: under the legend, right of the y tick labels, over the y ticks' range.
frame plot_frame(legend_layout const& legend, ticks const& yt, scale const& ys) {
  frame f;
  f.left = 30 + char_width * static_cast<double>(widest(yt, ys));
  f.top = 12 + legend.rows * legend_row;
  f.width = svg_width - f.left - 24;
  f.height = 260;
  f.y_lo = yt.lo, f.y_hi = yt.hi;
  return f;
}

/// Opens a chart's SVG of `height`: the legend and the y axis.
void open_chart(std::string& o, result_table const& t, chart_data const& c, chart_frame const& cf,
                double height) {
  open_svg(o, height, t.title.empty() ? t.name : t.title);
  write_legend(o, c.all, cf.legend);
  write_y_axis(o, cf.f, cf.yt, cf.ys, axis_title(t.plot.y_label, *c.y, cf.ys.unit));
}

// ---- line chart ------------------------------------------------------------------------------

struct point {
  double x = 0;
  std::optional<double> y;
};

/// Appends one polyline of `seg` (in pixels) to `d`. More points than four per pixel column are
/// reduced to the first, lowest, highest and last of each column, which draws the same line.
void append_polyline(std::string& d, std::vector<std::pair<double, double>> const& seg,
                     double width) {
  if (seg.empty()) return;
  std::vector<std::pair<double, double>> kept;
  if (seg.size() <= 4 * static_cast<std::size_t>(width)) {
    kept = seg;
  } else {
    for (std::size_t i = 0; i < seg.size();) {
      auto const column = std::floor(seg[i].first);
      std::size_t lo = i, hi = i, j = i;
      for (; j < seg.size() && std::floor(seg[j].first) == column; ++j) {
        if (seg[j].second < seg[lo].second) lo = j;
        if (seg[j].second > seg[hi].second) hi = j;
      }
      std::size_t picks[] = {i, std::min(lo, hi), std::max(lo, hi), j - 1};
      for (std::size_t k = 0; k < 4; ++k)
        if (k == 0 || picks[k] != picks[k - 1]) kept.push_back(seg[picks[k]]);
      i = j;
    }
  }
  d += fmt::format("M{} {}", px(kept.front().first), px(kept.front().second));
  if (kept.size() == 1) d += "h0";  // a dot (round caps)
  for (std::size_t i = 1; i < kept.size(); ++i)
    d += fmt::format("{}{} {}", i == 1 ? "L" : " ", px(kept[i].first), px(kept[i].second));
}

void write_line_chart(std::string& o, result_table const& t, chart_data const& c) {
  std::vector<std::vector<point>> pts(c.all.size());
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  std::size_t i = 0;
  for_each_row(t, [&](row const& r) {
    auto const series = c.row_series[i++];
    auto const x = number(r.cells[c.xi]);
    if (!x) return;
    auto const y = number(r.cells[c.yi]);
    pts[series].push_back({*x, y});
    x_lo = std::min(x_lo, *x), x_hi = std::max(x_hi, *x);
    if (y) y_lo = std::min(y_lo, *y), y_hi = std::max(y_hi, *y);
  });
  if (!(y_hi >= y_lo)) {
    o += "<p class=\"none\">no points to plot</p>\n";
    return;
  }
  // Far from zero (absolute timestamps), x is shown from its first value.
  double const span = x_hi - x_lo;
  double const offset = x_lo > 0 && x_lo > 1000 * span ? x_lo : 0;
  auto const xs = scale_for(c.x->unit, offset ? span : std::max(std::abs(x_lo), std::abs(x_hi)));
  auto const ys = scale_for(c.y->unit, std::max(std::abs(y_lo), std::abs(y_hi)));
  if (c.y->unit == "fraction" && y_lo >= 0 && y_hi <= 1) y_lo = 0, y_hi = 1;
  auto const yt = make_ticks(std::min(0.0, y_lo) / ys.div, y_hi / ys.div, 5, true,
                             c.y->type == value_type::integer && ys.div == 1);
  auto const xt = make_ticks((x_lo - offset) / xs.div, (x_hi - offset) / xs.div, 8, false, false);

  auto const legend = lay_out_legend(c.all, 64);
  auto f = plot_frame(legend, yt, ys);
  f.x_lo = xt.lo, f.x_hi = xt.hi;
  std::string x_title = axis_title(t.plot.x_label, *c.x, xs.unit);
  if (offset) x_title += fmt::format(", from {:.0f} {}", offset, c.x->unit);
  open_chart(o, t, c, {f, legend, yt, ys}, f.top + f.height + 46);
  o += "<g class=\"x\">";
  for (double v : xt.at) {
    double const x = f.x(v);
    o += fmt::format(
        "<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
        "<text class=\"tick\" x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
        px(x), px(f.top + f.height), px(f.top + f.height + 5), px(f.top + f.height + 17),
        escape(tick_label(v, xt.step, xs.suffix)));
  }
  write_x_title(o, f, f.top + f.height + 38, x_title);
  o += "</g>";
  for (std::size_t s = 0; s < pts.size(); ++s) {
    auto& p = pts[s];
    std::stable_sort(p.begin(), p.end(), [](point const& a, point const& b) { return a.x < b.x; });
    std::string d;
    std::vector<std::pair<double, double>> seg;
    for (auto const& q : p) {
      if (!q.y) {
        append_polyline(d, seg, f.width);
        seg.clear();
        continue;
      }
      seg.emplace_back(f.x((q.x - offset) / xs.div), f.y(*q.y / ys.div));
    }
    append_polyline(d, seg, f.width);
    if (d.empty()) continue;
    o += fmt::format("<path class=\"line\" stroke=\"{}\" d=\"{}\"><title>{}</title></path>",
                     escape(c.all[s].colour), d, escape(c.all[s].label));
  }
  o += "</svg></figure>\n";
}

void write_chart(std::string& o, result_table const& t) {
  auto const read = read_chart(t);
  if (auto const* why = std::get_if<std::string>(&read)) {
    o += "<p class=\"note\">chart left out: " + escape(*why) + "</p>\n";
    return;
  }
  auto const& c = std::get<chart_data>(read);
  if (t.plot.kind == chart_kind::line)
    write_line_chart(o, t, c);
  else
    write_bar_chart(o, t, c);
}

}  // namespace tracesweep::output::html_page
