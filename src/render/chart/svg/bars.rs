//! Bar charts as SVG: horizontal bars for long category names, vertical columns otherwise,
//! stacked or grouped by series. Category labels stay level (see the parent module): under
//! their columns, on two staggered rows when one is too narrow, or beside sideways bars when
//! even two rows are.

use super::{
    Frame, TOP, WIDTH, axis_lines, axis_title, color, decimals, esc, left_axis_title, text, text_w,
    y_grid,
};
use crate::render::chart::Chart;
use crate::render::numbers::{AxisFormat, format_number, nice_ticks};
use crate::render::table::cut;
use std::fmt::Write;

/// What both orientations of bars share: the value scale with its ticks, the one format of
/// its tick and value labels, the decimals the full values (in each bar's tooltip) are shown
/// with, and the category labels cut to length with the widest one's width.
struct BarScale {
    ticks: Vec<f64>,
    tick_labels: Vec<String>,
    vlo: f64,
    vhi: f64,
    format: AxisFormat,
    dec: usize,
    cut_labels: Vec<String>,
    label_w: f64,
}

impl BarScale {
    /// The width of the widest tick label, at 11 px.
    fn tick_w(&self) -> f64 {
        self.tick_labels
            .iter()
            .map(|l| text_w(l, 11.0))
            .fold(0.0, f64::max)
    }
}

/// Bars along the spec's orientation; returns the height used.
pub(super) fn bars(
    svg: &mut String,
    chart: &Chart,
    labels: &[String],
    values: &[Vec<f64>],
    horizontal: bool,
    legend_w: f64,
) -> f64 {
    let (lo, hi) = chart.value_range();
    let ticks = nice_ticks(lo, hi, 5);
    let cut_labels: Vec<String> = labels.iter().map(|l| cut(l, 28)).collect();
    let totals = (0..labels.len()).map(|i| values.iter().map(|v| v[i]).sum());
    let format = AxisFormat::of_ticks(&ticks).with_values(totals);
    let scale = BarScale {
        vlo: ticks[0],
        vhi: *ticks.last().unwrap_or(&hi),
        tick_labels: ticks.iter().map(|&t| format.format(t)).collect(),
        ticks,
        format,
        dec: decimals(values.iter().flatten().copied()),
        label_w: cut_labels
            .iter()
            .map(|l| text_w(l, 11.0))
            .fold(0.0, f64::max),
        cut_labels,
    };
    let columns = Columns::new(&scale, labels.len(), legend_w);
    if horizontal || columns.rows > 2 {
        horizontal_bars(svg, chart, labels, values, &scale, legend_w)
    } else {
        vertical_bars(svg, chart, labels, values, &scale, &columns)
    }
}

/// Where vertical columns go: the frame's left and right, each column's band, and on how many
/// staggered rows the category labels fit under them (more than two: the bars go sideways).
struct Columns {
    left: f64,
    right: f64,
    band: f64,
    rows: usize,
}

impl Columns {
    fn new(sc: &BarScale, n: usize, legend_w: f64) -> Columns {
        let left = 16.0 + sc.tick_w() + 8.0;
        let right = WIDTH - legend_w - 16.0;
        let band = (right - left) / n.max(1) as f64;
        // A row of labels a column apart fits labels one band wide; staggered on two rows,
        // neighbours on a row are two bands apart.
        let rows = ((sc.label_w + 6.0) / band).ceil().max(1.0) as usize;
        Columns {
            left,
            right,
            band,
            rows,
        }
    }
}

/// Each bar's segment as (series, category, from, to) in value units: from the baseline for
/// a single series; for several, stacked as Vega-Lite stacks them: positive values up from
/// zero, negative ones down from it.
fn segments(values: &[Vec<f64>], vlo: f64) -> Vec<(usize, usize, f64, f64)> {
    let single = values.len() == 1;
    let n = values.first().map_or(0, Vec::len);
    let (mut up, mut down) = (vec![0.0; n], vec![0.0; n]);
    let mut out = Vec::new();
    for (s, vals) in values.iter().enumerate() {
        for (i, v) in vals.iter().enumerate() {
            if single {
                out.push((s, i, 0.0_f64.max(vlo), *v));
            } else if *v > 0.0 {
                out.push((s, i, up[i], up[i] + v));
                up[i] += v;
            } else if *v < 0.0 {
                out.push((s, i, down[i], down[i] + v));
                down[i] += v;
            }
        }
    }
    out
}

/// Where category `i`'s bar ends above zero (its positive values stacked; 0 without any): the
/// value label goes past it, clear of the bar.
fn reach(values: &[Vec<f64>], i: usize) -> f64 {
    values.iter().map(|v| v[i].max(0.0)).sum()
}

/// Bars from the left, a category a row, with value ticks along the bottom.
fn horizontal_bars(
    svg: &mut String,
    chart: &Chart,
    labels: &[String],
    values: &[Vec<f64>],
    sc: &BarScale,
    legend_w: f64,
) -> f64 {
    let (vlo, vhi) = (sc.vlo, sc.vhi);
    let band = 26.0;
    let f = Frame {
        left: 16.0 + sc.label_w + 12.0,
        right: WIDTH - legend_w - 70.0,
        top: TOP,
        bottom: TOP + band * labels.len().max(1) as f64,
    };
    let x = |v: f64| f.left + (v - vlo) / (vhi - vlo).max(f64::EPSILON) * (f.right - f.left);
    for (t, l) in sc.ticks.iter().zip(&sc.tick_labels) {
        let _ = writeln!(
            svg,
            r##"<line class="grid" x1="{0:.1}" x2="{0:.1}" y1="{1:.1}" y2="{2:.1}" stroke="#ddd"/>"##,
            x(*t),
            f.top,
            f.bottom
        );
        text(
            svg,
            x(*t),
            f.bottom + 16.0,
            11.0,
            "middle",
            " class=\"tick\"",
            l,
        );
    }
    let _ = writeln!(svg, r#"<g class="marks">"#);
    for (s, i, from, to) in segments(values, vlo) {
        let (a, b) = (x(from), x(to));
        let y = f.top + band * i as f64 + 4.0;
        let _ = writeln!(
            svg,
            r#"<rect class="bar" x="{:.2}" y="{y:.2}" width="{:.2}" height="{:.2}" fill="{}" stroke="none"><title>{}: {}</title></rect>"#,
            a.min(b),
            (b - a).abs(),
            band - 8.0,
            color(s),
            esc(&labels[i]),
            format_number(values[s][i], sc.dec)
        );
    }
    let _ = writeln!(svg, "</g>");
    for (i, l) in sc.cut_labels.iter().enumerate() {
        let y = f.top + band * (i as f64 + 0.5) + 4.0;
        text(svg, f.left - 8.0, y, 11.0, "end", " class=\"label\"", l);
        let total: f64 = values.iter().map(|v| v[i]).sum();
        text(
            svg,
            x(reach(values, i)) + 6.0,
            y,
            10.0,
            "start",
            " class=\"value\"",
            &sc.format.format(total),
        );
    }
    axis_lines(svg, &f, Some(x(0.0_f64.clamp(vlo, vhi))), None);
    axis_title(
        svg,
        (f.left + f.right) / 2.0,
        f.bottom + 36.0,
        "middle",
        &chart.y_title,
    );
    left_axis_title(svg, &f, &chart.x_title);
    f.bottom + 52.0
}

/// Columns up from the bottom, with value ticks on the left; category labels on two staggered
/// rows when they do not fit under their column on one.
fn vertical_bars(
    svg: &mut String,
    chart: &Chart,
    labels: &[String],
    values: &[Vec<f64>],
    sc: &BarScale,
    cols: &Columns,
) -> f64 {
    let (vlo, vhi) = (sc.vlo, sc.vhi);
    let band = cols.band;
    let label_h = 18.0 + 14.0 * (cols.rows - 1) as f64;
    let f = Frame {
        left: cols.left,
        right: cols.right,
        top: TOP,
        bottom: TOP + 300.0,
    };
    let y = |v: f64| f.bottom - (v - vlo) / (vhi - vlo).max(f64::EPSILON) * (f.bottom - f.top);
    y_grid(svg, &f, &sc.ticks, &sc.tick_labels, &y);
    let pad = (band * 0.15).min(12.0);
    let _ = writeln!(svg, r#"<g class="marks">"#);
    for (s, i, from, to) in segments(values, vlo) {
        let (a, b) = (y(from), y(to));
        let _ = writeln!(
            svg,
            r#"<rect class="bar" x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{}" stroke="none"><title>{}: {}</title></rect>"#,
            f.left + band * i as f64 + pad,
            a.min(b),
            band - 2.0 * pad,
            (b - a).abs(),
            color(s),
            esc(&labels[i]),
            format_number(values[s][i], sc.dec)
        );
    }
    let _ = writeln!(svg, "</g>");
    for (i, l) in sc.cut_labels.iter().enumerate() {
        let cx = f.left + band * (i as f64 + 0.5);
        let total: f64 = values.iter().map(|v| v[i]).sum();
        let value = sc.format.format(total);
        if text_w(&value, 10.0) < band {
            text(
                svg,
                cx,
                y(reach(values, i)) - 5.0,
                10.0,
                "middle",
                " class=\"value\"",
                &value,
            );
        }
        let row = i % cols.rows;
        text(
            svg,
            cx,
            f.bottom + 16.0 + 14.0 * row as f64,
            11.0,
            "middle",
            " class=\"label\"",
            l,
        );
    }
    axis_lines(svg, &f, None, Some(y(0.0_f64.clamp(vlo, vhi))));
    left_axis_title(svg, &f, &chart.y_title);
    axis_title(
        svg,
        (f.left + f.right) / 2.0,
        f.bottom + label_h + 22.0,
        "middle",
        &chart.x_title,
    );
    f.bottom + label_h + 36.0
}
