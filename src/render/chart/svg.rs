//! Charts as SVG, written directly (no browser, no font or raster library): title, axes with
//! round ticks and formatted numbers, axis titles, bars / lines / areas / points / pie slices,
//! and a legend for series. Text widths are estimated, so labels are cut, staggered or the bars
//! laid sideways rather than left to overlap. Bars are drawn in [`bars`], lines, areas, points
//! and pies in [`plot`].
//!
//! The same picture in a browser, librsvg (`rsvg-convert`) and ImageMagick's own renderer
//! (`convert`, MSVG): every element carries plain presentation attributes (no CSS, no `em`,
//! colours as `#rrggbb`) and an explicit `stroke="none"` where it has no outline, because MSVG
//! otherwise outlines shapes and text in black; and no text is transformed, because MSVG turns
//! `rotate(a cx cy)` about the origin (off the page) and other rotations the wrong way. Axis
//! titles therefore sit level, the value axis's above its ticks. `class` attributes only name
//! the parts for tests and readers; nothing styles them.

use super::{Body, Chart, Mark};
use crate::render::table::cut;
use std::fmt::Write;

mod bars;
mod plot;

use bars::bars;
use plot::{pie, plot};

/// Vega's default palette (Tableau 10).
const PALETTE: [&str; 10] = [
    "#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6",
    "#9d755d", "#bab0ac",
];
const WIDTH: f64 = 760.0;
/// The top of an axis frame: under the title, with the value axis's title above it.
const TOP: f64 = 64.0;
/// Where the title of the axis at the left edge (values, or categories of sideways bars)
/// starts, level, above the frame.
const AXIS_TITLE_X: f64 = 10.0;
const FONT: &str = "font-family=\"Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif\"";
/// The colour of all text but the labels on pie slices.
const INK: &str = "#333333";

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

/// A line of text with its anchor at (`x`, `y`) on the baseline, in the ink colour.
fn text(svg: &mut String, x: f64, y: f64, size: f64, anchor: &str, extra: &str, s: &str) {
    text_in(svg, INK, x, y, size, anchor, extra, s);
}

/// A line of text in `fill` (a `#rrggbb`): position, size in pixels (unitless, as SVG's user
/// units are), anchor, font and colour as plain attributes, and `stroke="none"` (see above).
#[allow(clippy::too_many_arguments)]
fn text_in(
    svg: &mut String,
    fill: &str,
    x: f64,
    y: f64,
    size: f64,
    anchor: &str,
    extra: &str,
    s: &str,
) {
    let _ = writeln!(
        svg,
        r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}" {FONT} fill="{fill}" stroke="none"{extra}>{}</text>"#,
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

/// The start of a standalone SVG document `height` pixels high: the white background and the
/// title, if any.
fn open(height: f64, title: Option<&str>) -> String {
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}">
<rect class="background" x="0" y="0" width="{WIDTH}" height="{height:.0}" fill="#ffffff" stroke="none"/>"##
    );
    if let Some(t) = title {
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
    svg
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
    // Notes (the rows left out, an arc drawn as bars) go under the title (or where it would
    // be), and the chart moves down by as much as they take beyond the title's line.
    let first_note = if chart.title.is_some() { 46.0 } else { 26.0 };
    let shift = match chart.notes.len() {
        0 => 0.0,
        n => first_note + 18.0 * (n - 1) as f64 - 26.0,
    };
    let mut svg = open(height + shift, chart.title.as_deref());
    for (i, note) in chart.notes.iter().enumerate() {
        text(
            &mut svg,
            WIDTH / 2.0,
            first_note + 18.0 * i as f64,
            12.0,
            "middle",
            " class=\"note\" font-style=\"italic\"",
            &cut(note, 100),
        );
    }
    if shift > 0.0 {
        let _ = writeln!(svg, r#"<g transform="translate(0 {shift:.0})">"#);
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
    if shift > 0.0 {
        let _ = writeln!(svg, "</g>");
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
                    r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{}" stroke="none"/>"#,
                    x + 6.0,
                    y - 4.0,
                    color(i)
                );
            } else {
                let _ = writeln!(
                    svg,
                    r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}" stroke="none"/>"#,
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

/// A bold axis title, level, anchored at (`x`, `y`).
fn axis_title(svg: &mut String, x: f64, y: f64, anchor: &str, s: &str) {
    text(
        svg,
        x,
        y,
        12.0,
        anchor,
        " font-weight=\"bold\" class=\"axis-title\"",
        s,
    );
}

/// The title of the axis at the left edge, level above the frame's top-left corner: where it
/// reads without turning the head, and needs no rotated text.
fn left_axis_title(svg: &mut String, f: &Frame, s: &str) {
    axis_title(svg, AXIS_TITLE_X, f.top - 14.0, "start", s);
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

/// A `text` mark, as an agent charts a single number (a total): the number large under the
/// spec's title, with the field's title beneath. `None` for any other mark, or without a value.
pub fn number_card(
    spec: &serde_json::Value,
    data: &crate::render::table::Dataset,
) -> Option<String> {
    use super::spec::{channel, mark_name, text_of, title_of};
    if mark_name(spec)? != "text" {
        return None;
    }
    let text_channel = channel(spec, data, "text")?;
    let value = data.rows.first()?.get(text_channel.col?)?;
    let shown = match crate::render::numbers::number(value) {
        Some(x) => crate::render::numbers::format_number(
            x,
            crate::render::numbers::decimals_of(value).min(2),
        ),
        None => text_of(value),
    };
    let label = text_channel.title(data);
    let title = title_of(spec);
    let height = 170.0;
    let mut svg = open(height, title.as_deref());
    text(
        &mut svg,
        WIDTH / 2.0,
        100.0,
        48.0,
        "middle",
        " font-weight=\"bold\" class=\"number\"",
        &cut(&shown, 28),
    );
    if title.as_deref() != Some(label.as_str()) && !label.is_empty() {
        text(
            &mut svg,
            WIDTH / 2.0,
            138.0,
            14.0,
            "middle",
            " class=\"label\"",
            &cut(&label, 90),
        );
    }
    svg.push_str("</svg>\n");
    Some(svg)
}
