// SPDX-License-Identifier: Apache-2.0
// Bar charts of the HTML page: categories in order of first row, bars grouped side by side or
// stacked per sign, category labels level, turned or thinned to fit.
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
#include "output/svg_frame.hpp"

namespace tracesweep::output::html_page {

namespace {

/// Bar chart categories in order of first row, and the value of each (category, series):
/// repeats add up.
struct bar_values {
  std::vector<std::string> names;
  std::vector<double> x_value;  ///< a numeric x column's value per category
  std::vector<std::vector<std::optional<double>>> value;
};

bar_values read_bars(result_table const& t, chart_data const& c) {
  bar_values out;
  std::map<std::string, std::size_t> index;
  std::size_t i = 0;
  for_each_row(t, [&](row const& r) {
    auto const series = c.row_series[i++];
    auto const y = number(r.cells[c.yi]);
    if (!y || std::holds_alternative<std::monostate>(r.cells[c.xi])) return;
    auto const key = text_cell(r.cells[c.xi], *c.x);
    auto [it, added] = index.try_emplace(key, out.names.size());
    if (added) {
      out.names.push_back(key);
      out.x_value.push_back(number(r.cells[c.xi]).value_or(0));
      out.value.emplace_back(c.all.size());
    }
    auto& v = out.value[it->second][series];
    v = v.value_or(0) + *y;
  });
  return out;
}

/// The y range the bars span from 0: stacked bars add up per sign.
std::pair<double, double> bar_range(bar_values const& bars, bool stacked) {
  double lo = 0, hi = 0;
  for (auto const& per_series : bars.value) {
    double pos = 0, neg = 0;
    for (auto const& v : per_series) {
      if (!v) continue;
      if (stacked)
        (*v >= 0 ? pos : neg) += *v;
      else
        lo = std::min(lo, *v), hi = std::max(hi, *v);
    }
    lo = std::min(lo, neg), hi = std::max(hi, pos);
  }
  return {lo, hi};
}

/// How category labels are laid out under their bands: level when they fit, else turned and
/// cut; only every k-th when dense.
struct category_labels {
  bool turn = false;
  double angle = 0;
  std::size_t every = 1;
  double depth = 0;  ///< the height they take under the axis
  static constexpr std::size_t chars = 28;
};

category_labels lay_out_labels(std::vector<std::string> const& names, double band) {
  std::size_t longest = 0;
  for (auto const& n : names) longest = std::max(longest, length(n));
  category_labels l;
  l.turn = char_width * static_cast<double>(longest) > band - 4;
  l.angle = band >= 20 ? 45 : 90;  // steep when labels are close
  l.every = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(14 / band)));
  l.depth = l.turn ? std::sin(l.angle * 3.14159265358979 / 180) * char_width *
                             static_cast<double>(std::min(longest, category_labels::chars)) +
                         14
                   : 18;
  return l;
}

/// The bars, grouped side by side or stacked, each with its title.
void write_bars(std::string& o, chart_data const& c, bar_values const& bars, bool stacked,
                frame const& f, scale const& ys) {
  double const band = f.width / static_cast<double>(bars.names.size());
  std::size_t const groups = stacked ? 1 : c.all.size();
  double const bar = std::min(band * (groups > 1 ? 0.84 : 0.7) / static_cast<double>(groups), 64.0);
  o += "<g class=\"bars\">";
  for (std::size_t k = 0; k < bars.names.size(); ++k) {
    double const mid = f.left + band * (static_cast<double>(k) + 0.5);
    double pos = 0, neg = 0;
    for (std::size_t s = 0; s < c.all.size(); ++s) {
      auto const& v = bars.value[k][s];
      if (!v) continue;
      double const scaled = *v / ys.div;
      double y0 = 0, y1 = scaled;
      if (stacked) {
        double& acc = scaled >= 0 ? pos : neg;
        y0 = acc, y1 = acc + scaled, acc = y1;
      }
      double const x =
          stacked ? mid - bar / 2
                  : mid - bar * static_cast<double>(groups) / 2 + bar * static_cast<double>(s);
      double const top = std::min(f.y(y0), f.y(y1));
      double const h = std::abs(f.y(y1) - f.y(y0));
      o += fmt::format(
          "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{}{}: {}</title></rect>",
          px(x + (groups > 1 ? 0.5 : 0)), px(top), px(std::max(groups > 1 ? bar - 1 : bar, 1.0)),
          px(h), escape(c.all[s].colour),
          escape(c.all[s].label.empty() ? "" : c.all[s].label + ", "), escape(bars.names[k]),
          escape(text_cell(*v, *c.y)));
    }
  }
  o += "</g>";
}

/// The category ticks and labels under the bars.
void write_category_ticks(std::string& o, std::vector<std::string> const& names, frame const& f,
                          category_labels const& l) {
  double const band = f.width / static_cast<double>(names.size());
  for (std::size_t k = 0; k < names.size(); k += l.every) {
    double const mid = f.left + band * (static_cast<double>(k) + 0.5);
    double const y = f.top + f.height + 14;
    o += fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>", px(mid),
                     px(f.top + f.height), px(f.top + f.height + 4));
    if (l.turn)
      o += fmt::format(
          "<text class=\"tick\" x=\"{0}\" y=\"{1}\" text-anchor=\"end\" "
          "transform=\"rotate(-{4} {0} {1})\"><title>{2}</title>{3}</text>",
          px(mid + (l.angle > 45 ? 4 : 3)), px(y - (l.angle > 45 ? 8 : 0)), escape(names[k]),
          short_text(names[k], category_labels::chars), l.angle);
    else
      o += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       px(mid), px(y), escape(names[k]));
  }
}

}  // namespace

void write_bar_chart(std::string& o, result_table const& t, chart_data const& c) {
  bool const stacked = t.plot.kind == chart_kind::stacked_bars;
  auto bars = read_bars(t, c);
  if (bars.names.empty()) {
    o += "<p class=\"none\">no values to plot</p>\n";
    return;
  }
  auto const [lo, hi] = bar_range(bars, stacked);
  auto const ys = scale_for(c.y->unit, std::max(std::abs(lo), std::abs(hi)));
  auto const yt = make_ticks(lo / ys.div, hi / ys.div, 5, true,
                             c.y->type == value_type::integer && ys.div == 1);
  // Category labels: numbers in the x column's axis unit, else as text shows them.
  bool const numeric_x = numeric(*c.x);
  scale xs;
  if (numeric_x) {
    double m = 0;
    for (double v : bars.x_value) m = std::max(m, std::abs(v));
    xs = scale_for(c.x->unit, m);
    for (std::size_t k = 0; k < bars.names.size(); ++k)
      bars.names[k] = fmt::format("{:.6g}", bars.x_value[k] / xs.div) + xs.suffix;
  }
  auto const legend = lay_out_legend(c.all, 64);
  auto const f = plot_frame(legend, yt, ys);
  auto const labels = lay_out_labels(bars.names, f.width / static_cast<double>(bars.names.size()));
  open_chart(o, t, c, {f, legend, yt, ys}, f.top + f.height + labels.depth + 34);
  write_bars(o, c, bars, stacked, f, ys);
  o += "<g class=\"x\">";
  write_category_ticks(o, bars.names, f, labels);
  write_x_title(o, f, f.top + f.height + labels.depth + 22,
                axis_title(t.plot.x_label, *c.x, numeric_x ? xs.unit : ""));
  o += "</g></svg></figure>\n";
}

}  // namespace tracesweep::output::html_page
