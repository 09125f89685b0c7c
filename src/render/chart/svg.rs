//! Charts as SVG, written directly (no browser, no font or raster library): title, axes with
//! round ticks and formatted numbers, axis titles, bars / lines / areas / points / pie slices,
//! and a legend for series. Text widths are estimated, so labels are cut or turned rather than
//! left to overlap.

use super::{Body, Chart, Mark, XScale, x_candidates};
use crate::render::numbers::{axis_labels, compact, format_number, nice_ticks};
use crate::render::table::cut;
use std::fmt::Write;

/// Vega's default palette (Tableau 10).
const PALETTE: [&str; 10] = [
    "#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6",
    "#9d755d", "#bab0ac",
];
const WIDTH: f64 = 760.0;
const FONT: &str = "font-family=\"Helvetica, Arial, sans-serif\"";

fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Estimated width in pixels of `s` at `size` px.
fn text_w(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.58
}

/// Text escaped for XML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

fn text(svg: &mut String, x: f64, y: f64, size: f64, anchor: &str, extra: &str, s: &str) {
    let _ = writeln!(
        svg,
        r##"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}" {FONT} fill="#333"{extra}>{}</text>"##,
        esc(s)
    );
}

fn decimals(values: impl Iterator<Item = f64>) -> usize {
    values
        .map(|v| format!("{v}").split_once('.').map_or(0, |(_, d)| d.len()))
        .max()
        .unwrap_or(0)
        .min(2)
}

/// The chart as a standalone SVG document.
pub fn draw(chart: &Chart) -> String {
    let legend_items = legend_items(chart);
    let legend_title = if chart.mark == Mark::Arc {
        Some(chart.x_title.clone())
    } else {
        chart.color_title.clone()
    };
    let legend_w = if legend_items.is_empty() {
        0.0
    } else {
        legend_items
            .iter()
            .chain(legend_title.iter())
            .map(|s| text_w(s, 12.0))
            .fold(0.0, f64::max)
            + 44.0
    };
    let mut body = String::new();
    let height = match &chart.body {
        Body::Categories {
            labels,
            values,
            horizontal,
            ..
        } if chart.mark == Mark::Bar => {
            bars(&mut body, chart, labels, values, *horizontal, legend_w)
        }
        Body::Categories { labels, values, .. } => {
            pie(&mut body, labels, &values[0], legend_w, chart.hole)
        }
        Body::Points { x, points } => plot(&mut body, chart, x, points, legend_w),
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}">
<rect class="background" width="100%" height="100%" fill="white"/>"#
    );
    if let Some(t) = &chart.title {
        text(
            &mut svg,
            WIDTH / 2.0,
            26.0,
            16.0,
            "middle",
            " font-weight=\"bold\" class=\"title\"",
            &cut(t, 90),
        );
    }
    svg.push_str(&body);
    if !legend_items.is_empty() {
        legend(
            &mut svg,
            chart,
            &legend_items,
            legend_title.as_deref(),
            legend_w,
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The legend's entries: each slice with its share for a pie, else each series (and how
/// many were left out); empty for a single unnamed series.
fn legend_items(chart: &Chart) -> Vec<String> {
    match (&chart.body, chart.mark) {
        (Body::Categories { labels, values, .. }, Mark::Arc) => {
            let total: f64 = values[0].iter().map(|v| v.max(0.0)).sum();
            labels
                .iter()
                .zip(&values[0])
                .map(|(l, v)| {
                    let share = if total > 0.0 { v / total * 100.0 } else { 0.0 };
                    format!("{} ({share:.1}%)", cut(l, 28))
                })
                .collect()
        }
        _ if chart.series.len() > 1 || chart.series.first().is_some_and(|s| !s.is_empty()) => {
            let mut items: Vec<String> = chart.series.iter().map(|s| cut(s, 28)).collect();
            if chart.dropped_series > 0 {
                items.push(format!("(+{} more)", chart.dropped_series));
            }
            items
        }
        _ => Vec::new(),
    }
}

/// The legend at the right edge: its title, then a swatch and a label per entry.
fn legend(svg: &mut String, chart: &Chart, items: &[String], title: Option<&str>, legend_w: f64) {
    let x = WIDTH - legend_w + 8.0;
    let mut y = 56.0;
    if let Some(t) = title {
        text(
            svg,
            x,
            y,
            12.0,
            "start",
            " font-weight=\"bold\"",
            &cut(t, 28),
        );
        y += 20.0;
    }
    let _ = writeln!(svg, r#"<g class="legend">"#);
    for (i, item) in items.iter().enumerate() {
        let more = chart.dropped_series > 0 && i == items.len() - 1 && chart.mark != Mark::Arc;
        if !more {
            if matches!(chart.mark, Mark::Line | Mark::Point) {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{}"/>"#,
                    x + 6.0,
                    y - 4.0,
                    color(i)
                );
            } else {
                let _ = writeln!(
                    svg,
                    r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}"/>"#,
                    y - 10.0,
                    color(i)
                );
            }
        }
        text(svg, x + 18.0, y, 12.0, "start", "", item);
        y += 20.0;
    }
    let _ = writeln!(svg, "</g>");
}

/// Axis frame: horizontal grid lines and labels for `ticks` on the value axis.
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

/// Horizontal grid lines at the value ticks, with their labels left of the frame.
fn y_grid(svg: &mut String, f: &Frame, ticks: &[f64], labels: &[String], y: &dyn Fn(f64) -> f64) {
    for (t, l) in ticks.iter().zip(labels) {
        let _ = writeln!(
            svg,
            r##"<line class="grid" x1="{:.1}" x2="{:.1}" y1="{2:.1}" y2="{2:.1}" stroke="#ddd"/>"##,
            f.left,
            f.right,
            y(*t)
        );
        text(
            svg,
            f.left - 6.0,
            y(*t) + 4.0,
            11.0,
            "end",
            " class=\"tick\"",
            l,
        );
    }
}

/// What both orientations of bars share: the value scale with its ticks, the decimals values
/// are shown with, and the category labels cut to length with the widest one's width.
struct BarScale {
    ticks: Vec<f64>,
    tick_labels: Vec<String>,
    vlo: f64,
    vhi: f64,
    dec: usize,
    cut_labels: Vec<String>,
    label_w: f64,
}

/// Bars along the spec's orientation; returns the height used.
fn bars(
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
    let scale = BarScale {
        vlo: ticks[0],
        vhi: *ticks.last().unwrap_or(&hi),
        tick_labels: axis_labels(&ticks),
        ticks,
        dec: decimals(values.iter().flatten().copied()),
        label_w: cut_labels
            .iter()
            .map(|l| text_w(l, 11.0))
            .fold(0.0, f64::max),
        cut_labels,
    };
    if horizontal {
        horizontal_bars(svg, chart, labels, values, &scale, legend_w)
    } else {
        vertical_bars(svg, chart, labels, values, &scale, legend_w)
    }
}

/// Each bar's segment as (series, category, from, to) in value units: from the baseline for
/// a single series; stacked, skipping values that are not positive, for several.
fn segments(values: &[Vec<f64>], vlo: f64) -> Vec<(usize, usize, f64, f64)> {
    let single = values.len() == 1;
    let mut stack = vec![0.0; values.first().map_or(0, Vec::len)];
    let mut out = Vec::new();
    for (s, vals) in values.iter().enumerate() {
        for (i, v) in vals.iter().enumerate() {
            if !single && *v <= 0.0 {
                continue;
            }
            if single {
                out.push((s, i, 0.0_f64.max(vlo), *v));
            } else {
                out.push((s, i, stack[i], stack[i] + v));
            }
            stack[i] += v;
        }
    }
    out
}

/// A bold axis title centred at (`x`, `y`), turned to read upwards when `upright`.
fn axis_title(svg: &mut String, x: f64, y: f64, upright: bool, s: &str) {
    let extra = if upright {
        format!(" font-weight=\"bold\" transform=\"rotate(-90 {x:.0} {y:.1})\"")
    } else {
        " font-weight=\"bold\"".to_owned()
    };
    text(svg, x, y, 12.0, "middle", &extra, s);
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
        left: 24.0 + sc.label_w + 12.0,
        right: WIDTH - legend_w - 70.0,
        top: 48.0,
        bottom: 48.0 + band * labels.len().max(1) as f64,
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
            r#"<rect class="bar" x="{:.2}" y="{y:.2}" width="{:.2}" height="{:.2}" fill="{}"><title>{}: {}</title></rect>"#,
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
            x(total.max(0.0)) + 6.0,
            y,
            10.0,
            "start",
            " class=\"value\"",
            &format_number(total, sc.dec),
        );
    }
    axis_lines(svg, &f, Some(x(0.0_f64.clamp(vlo, vhi))), None);
    axis_title(
        svg,
        (f.left + f.right) / 2.0,
        f.bottom + 36.0,
        false,
        &chart.y_title,
    );
    axis_title(svg, 16.0, (f.top + f.bottom) / 2.0, true, &chart.x_title);
    f.bottom + 52.0
}

/// Columns up from the bottom, with value ticks on the left; category labels turned when
/// they do not fit under their column.
fn vertical_bars(
    svg: &mut String,
    chart: &Chart,
    labels: &[String],
    values: &[Vec<f64>],
    sc: &BarScale,
    legend_w: f64,
) -> f64 {
    let (vlo, vhi) = (sc.vlo, sc.vhi);
    let tick_w = sc
        .tick_labels
        .iter()
        .map(|l| text_w(l, 11.0))
        .fold(0.0, f64::max);
    let left = 36.0 + tick_w + 8.0;
    let right = WIDTH - legend_w - 16.0;
    let band = (right - left) / labels.len().max(1) as f64;
    let turn = sc.label_w + 6.0 > band;
    let label_h = if turn {
        (sc.label_w * 0.72 + 12.0).min(170.0)
    } else {
        18.0
    };
    let f = Frame {
        left,
        right,
        top: 48.0,
        bottom: 48.0 + 300.0,
    };
    let y = |v: f64| f.bottom - (v - vlo) / (vhi - vlo).max(f64::EPSILON) * (f.bottom - f.top);
    y_grid(svg, &f, &sc.ticks, &sc.tick_labels, &y);
    let pad = (band * 0.15).min(12.0);
    let _ = writeln!(svg, r#"<g class="marks">"#);
    for (s, i, from, to) in segments(values, vlo) {
        let (a, b) = (y(from), y(to));
        let _ = writeln!(
            svg,
            r#"<rect class="bar" x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{}"><title>{}: {}</title></rect>"#,
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
        let value = compact(total);
        if text_w(&value, 10.0) < band {
            text(
                svg,
                cx,
                y(total.max(0.0)) - 5.0,
                10.0,
                "middle",
                " class=\"value\"",
                &value,
            );
        }
        column_label(svg, cx, f.bottom, turn, l);
    }
    axis_lines(svg, &f, None, Some(y(0.0_f64.clamp(vlo, vhi))));
    axis_title(svg, 16.0, (f.top + f.bottom) / 2.0, true, &chart.y_title);
    axis_title(
        svg,
        (f.left + f.right) / 2.0,
        f.bottom + label_h + 22.0,
        false,
        &chart.x_title,
    );
    f.bottom + label_h + 36.0
}

/// A category's label under its column at `cx`, turned 45 degrees when `turn`.
fn column_label(svg: &mut String, cx: f64, bottom: f64, turn: bool, l: &str) {
    if turn {
        let ly = bottom + 14.0;
        text(
            svg,
            cx + 3.0,
            ly,
            11.0,
            "end",
            &format!(
                " class=\"label\" transform=\"rotate(-45 {:.1} {ly:.1})\"",
                cx + 3.0
            ),
            l,
        );
    } else {
        text(
            svg,
            cx,
            bottom + 16.0,
            11.0,
            "middle",
            " class=\"label\"",
            l,
        );
    }
}

/// The two axis lines; `zero_x`/`zero_y` move the baseline to zero.
fn axis_lines(svg: &mut String, f: &Frame, zero_x: Option<f64>, zero_y: Option<f64>) {
    let x = zero_x.unwrap_or(f.left);
    let y = zero_y.unwrap_or(f.bottom);
    let _ = writeln!(
        svg,
        r##"<g class="axis" stroke="#888"><line x1="{x:.1}" x2="{x:.1}" y1="{:.1}" y2="{:.1}"/><line x1="{:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}"/></g>"##,
        f.top, f.bottom, f.left, f.right
    );
}

/// A pie of shares with percentages on the larger slices.
fn pie(svg: &mut String, labels: &[String], values: &[f64], legend_w: f64, hole: f64) -> f64 {
    let total: f64 = values.iter().map(|v| v.max(0.0)).sum();
    let r = 150.0;
    let (cx, cy) = ((WIDTH - legend_w) / 2.0, 48.0 + r + 10.0);
    let mut angle = -std::f64::consts::FRAC_PI_2;
    let _ = writeln!(svg, r#"<g class="marks">"#);
    let mut inner = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let share = if total > 0.0 { v.max(0.0) / total } else { 0.0 };
        let sweep = share * std::f64::consts::TAU;
        let (a0, a1) = (angle, angle + sweep);
        angle = a1;
        let title = format!(
            "{}: {} ({:.1}%)",
            labels[i],
            format_number(*v, decimals(values.iter().copied())),
            share * 100.0
        );
        let ri = r * hole;
        if share >= 0.999_999 {
            let _ = writeln!(
                svg,
                r#"<circle class="arc" cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="none" stroke="{}" stroke-width="{:.1}"><title>{}</title></circle>"#,
                (r + ri) / 2.0,
                color(i),
                r - ri,
                esc(&title)
            );
        } else if share > 0.0 && hole > 0.0 {
            let (x0, y0) = (cx + r * a0.cos(), cy + r * a0.sin());
            let (x1, y1) = (cx + r * a1.cos(), cy + r * a1.sin());
            let (u0, v0) = (cx + ri * a0.cos(), cy + ri * a0.sin());
            let (u1, v1) = (cx + ri * a1.cos(), cy + ri * a1.sin());
            let large = if sweep > std::f64::consts::PI { 1 } else { 0 };
            let _ = writeln!(
                svg,
                r#"<path class="arc" d="M{x0:.2},{y0:.2} A{r},{r} 0 {large} 1 {x1:.2},{y1:.2} L{u1:.2},{v1:.2} A{ri:.2},{ri:.2} 0 {large} 0 {u0:.2},{v0:.2} Z" fill="{}" stroke="white" stroke-width="1.5"><title>{}</title></path>"#,
                color(i),
                esc(&title)
            );
        } else if share > 0.0 {
            let (x0, y0) = (cx + r * a0.cos(), cy + r * a0.sin());
            let (x1, y1) = (cx + r * a1.cos(), cy + r * a1.sin());
            let large = if sweep > std::f64::consts::PI { 1 } else { 0 };
            let _ = writeln!(
                svg,
                r#"<path class="arc" d="M{cx:.2},{cy:.2} L{x0:.2},{y0:.2} A{r},{r} 0 {large} 1 {x1:.2},{y1:.2} Z" fill="{}" stroke="white" stroke-width="1.5"><title>{}</title></path>"#,
                color(i),
                esc(&title)
            );
        }
        if share >= 0.06 {
            let mid = (a0 + a1) / 2.0;
            let at = r * (0.65 + hole * 0.35);
            inner.push((
                cx + at * mid.cos(),
                cy + at * mid.sin() + 4.0,
                format!("{:.0}%", share * 100.0),
            ));
        }
    }
    let _ = writeln!(svg, "</g>");
    for (x, y, s) in inner {
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="12" text-anchor="middle" {FONT} fill="white" font-weight="bold">{s}</text>"#
        );
    }
    let legend_h = 76.0 + 20.0 * labels.len() as f64;
    (cy + r + 24.0).max(legend_h)
}

/// Lines, areas and points on x/y axes.
fn plot(
    svg: &mut String,
    chart: &Chart,
    xs: &XScale,
    points: &[Vec<(f64, f64)>],
    legend_w: f64,
) -> f64 {
    let (lo, hi) = chart.value_range();
    let ticks = nice_ticks(lo, hi, 5);
    let (vlo, vhi) = (ticks[0], *ticks.last().unwrap_or(&hi));
    let tick_labels = axis_labels(&ticks);
    let tick_w = tick_labels
        .iter()
        .map(|l| text_w(l, 11.0))
        .fold(0.0, f64::max);
    let (xlo, xhi) = chart.x_range();
    let band = matches!(xs, XScale::Band(_));
    let f = Frame {
        left: 36.0 + tick_w + 8.0,
        right: WIDTH - legend_w - 24.0,
        top: 48.0,
        bottom: 348.0,
    };
    let (xlo, xhi) = if band {
        (xlo - 0.5, xhi + 0.5)
    } else {
        (xlo, xhi)
    };
    let x = |v: f64| {
        if xhi > xlo {
            f.left + (v - xlo) / (xhi - xlo) * (f.right - f.left)
        } else {
            (f.left + f.right) / 2.0
        }
    };
    let y = |v: f64| f.bottom - (v - vlo) / (vhi - vlo).max(f64::EPSILON) * (f.bottom - f.top);
    y_grid(svg, &f, &ticks, &tick_labels, &y);
    // x ticks: the data's dates or categories, as many as fit; round numbers for a linear x.
    let candidates = x_candidates(xs, points, (xlo, xhi), 6, |l| cut(l, 20));
    x_ticks(svg, &f, &candidates, &x);
    let base = y(0.0_f64.clamp(vlo, vhi));
    series_marks(svg, chart.mark, points, &x, &y, base);
    axis_lines(svg, &f, None, None);
    axis_title(svg, 16.0, (f.top + f.bottom) / 2.0, true, &chart.y_title);
    axis_title(
        svg,
        (f.left + f.right) / 2.0,
        f.bottom + 42.0,
        false,
        &chart.x_title,
    );
    let legend_h = 76.0 + 20.0 * chart.series.len() as f64;
    (f.bottom + 58.0).max(legend_h)
}

/// Tick marks and labels under the frame: as many candidates as fit, evenly spaced.
fn x_ticks(svg: &mut String, f: &Frame, candidates: &[(f64, String)], x: &dyn Fn(f64) -> f64) {
    let widest = candidates
        .iter()
        .map(|(_, l)| text_w(l, 11.0))
        .fold(0.0, f64::max)
        + 14.0;
    let fit = (((f.right - f.left) / widest).floor() as usize).max(1);
    let step = candidates.len().div_ceil(fit).max(1);
    for (v, l) in candidates.iter().step_by(step) {
        let _ = writeln!(
            svg,
            r##"<line class="tick" x1="{0:.1}" x2="{0:.1}" y1="{1:.1}" y2="{2:.1}" stroke="#888"/>"##,
            x(*v),
            f.bottom,
            f.bottom + 5.0
        );
        text(
            svg,
            x(*v),
            f.bottom + 18.0,
            11.0,
            "middle",
            " class=\"label\"",
            l,
        );
    }
}

/// Each series as an area, a line and points (points only when there are few or the mark is
/// a point); `base` is the y of zero that areas close down to.
fn series_marks(
    svg: &mut String,
    mark: Mark,
    points: &[Vec<(f64, f64)>],
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
    base: f64,
) {
    let _ = writeln!(svg, r#"<g class="marks">"#);
    for (s, pts) in points.iter().enumerate() {
        let path: Vec<String> = pts
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| {
                format!("{}{:.2},{:.2}", if i == 0 { "M" } else { "L" }, x(a), y(b))
            })
            .collect();
        if mark == Mark::Area && pts.len() > 1 {
            let _ = writeln!(
                svg,
                r#"<path class="area" d="{} L{:.2},{base:.2} L{:.2},{base:.2} Z" fill="{}" fill-opacity="0.35"/>"#,
                path.join(" "),
                x(pts[pts.len() - 1].0),
                x(pts[0].0),
                color(s)
            );
        }
        if mark != Mark::Point && pts.len() > 1 {
            let _ = writeln!(
                svg,
                r#"<path class="line" d="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
                path.join(" "),
                color(s)
            );
        }
        if mark == Mark::Point || pts.len() <= 40 {
            let (r, op) = if mark == Mark::Point {
                (4.0, "0.7")
            } else {
                (2.5, "1")
            };
            for &(a, b) in pts {
                let _ = writeln!(
                    svg,
                    r#"<circle class="point" cx="{:.2}" cy="{:.2}" r="{r}" fill="{}" fill-opacity="{op}"/>"#,
                    x(a),
                    y(b),
                    color(s)
                );
            }
        }
    }
    let _ = writeln!(svg, "</g>");
}
