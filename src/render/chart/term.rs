//! Charts drawn with Unicode in the terminal: horizontal bars with values (bar), bars of shares
//! (arc), and a Braille plot with axis labels (line, area, point). Colour per series when colour
//! is on; distinct glyphs when it is off.

use super::{Body, Chart, Mark, XScale, x_candidates};
use crate::render::numbers::{axis_labels, format_number, nice_ticks};
use crate::render::table::cut;
use crate::term::Style;
use unicode_width::UnicodeWidthStr;

/// ANSI colours of the series, in order (close to Vega's default palette).
const COLORS: [&str; 6] = ["34", "33", "31", "36", "32", "35"];
/// Bar glyphs per series without colour.
const SHADES: [char; 6] = ['█', '▓', '▒', '░', '▚', '▞'];
/// Point markers per series.
const MARKERS: [char; 6] = ['●', '■', '▲', '◆', '✚', '○'];
/// Eighths of a cell, for the end of a bar.
const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
/// Rows of a plot.
const PLOT_ROWS: usize = 10;

fn paint(style: Style, series: usize, s: &str) -> String {
    if style.color {
        format!("\x1b[{}m{s}\x1b[0m", COLORS[series % COLORS.len()])
    } else {
        s.to_owned()
    }
}

/// Decimals to show for a set of values: none when all are whole, else up to 2.
fn decimals(values: impl Iterator<Item = f64>) -> usize {
    values
        .map(|v| {
            let t = format!("{v}");
            t.split_once('.').map_or(0, |(_, d)| d.len())
        })
        .max()
        .unwrap_or(0)
        .min(2)
}

/// The chart in `width` columns, ending with a newline.
pub fn draw(chart: &Chart, width: usize, style: Style) -> String {
    let width = width.max(30);
    let mut out = String::new();
    if let Some(t) = &chart.title {
        out.push_str(&style.bold(&cut(t, width)));
        out.push('\n');
    }
    match &chart.body {
        Body::Categories { labels, values, .. } => {
            if chart.mark == Mark::Arc {
                shares(&mut out, chart, labels, &values[0], width, style)
            } else {
                bars(&mut out, chart, labels, values, width, style)
            }
        }
        Body::Points { x, points } => plot(&mut out, chart, x, points, width, style),
    }
    legend(&mut out, chart, width, style);
    for note in &chart.notes {
        for line in wrap(note, width) {
            out.push_str(&style.dim(&line));
            out.push('\n');
        }
    }
    out
}

/// `text` in lines of at most `width` columns, broken at spaces (a word longer than a line is
/// cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.width() + 1 + word.width() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        if line.width() > width {
            lines.push(cut(&line, width));
            line.clear();
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn legend(out: &mut String, chart: &Chart, width: usize, style: Style) {
    if chart.series.len() < 2 && chart.series.first().is_none_or(String::is_empty) {
        return;
    }
    let mut line = String::new();
    let mut used = 0;
    if let Some(t) = &chart.color_title {
        line.push_str(&style.dim(&format!("{t}:")));
        used += t.width() + 1;
    }
    for (i, s) in chart.series.iter().enumerate() {
        let glyph = match (chart.mark, style.color) {
            (Mark::Bar, true) => '■',
            (Mark::Bar, false) => SHADES[i % SHADES.len()],
            _ => MARKERS[i % MARKERS.len()],
        };
        let name = cut(s, 24);
        let w = 3 + name.width();
        if used + w > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
            used = 0;
        }
        line.push_str(&format!("  {} {name}", paint(style, i, &glyph.to_string())));
        used += w + 1;
    }
    if chart.dropped_series > 0 {
        let more = format!("  (+{} more)", chart.dropped_series);
        if used + more.width() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        line.push_str(&style.dim(&more));
    }
    out.push_str(line.trim_start_matches(' '));
    out.push('\n');
}

/// Where bars go in a bar area of `bar_w` cells: values below zero extend left of a zero
/// axis, values above it right; without negatives there is no axis and bars start at the left.
struct BarLayout {
    /// Cells per unit of value.
    scale: f64,
    /// Cells left of the axis (0 without negatives).
    neg_w: usize,
    /// Cells right of the axis.
    pos_w: usize,
    /// Whether there is an axis column (between `neg_w` and `pos_w`).
    axis: bool,
}

impl BarLayout {
    /// The layout for bars whose positive parts reach `pos_max` and negative parts `neg_max`
    /// (both as sizes, not signed).
    fn new(pos_max: f64, neg_max: f64, bar_w: usize) -> BarLayout {
        if neg_max <= 0.0 {
            let scale = if pos_max > 0.0 {
                bar_w as f64 / pos_max
            } else {
                0.0
            };
            return BarLayout {
                scale,
                neg_w: 0,
                pos_w: bar_w,
                axis: false,
            };
        }
        let avail = bar_w.saturating_sub(1);
        if pos_max <= 0.0 {
            return BarLayout {
                scale: avail as f64 / neg_max,
                neg_w: avail,
                pos_w: 0,
                axis: true,
            };
        }
        // One scale for both sides; the negative side is rounded up to whole cells and the
        // positive side keeps the rest, so neither side's longest bar overflows.
        let scale = avail.saturating_sub(1) as f64 / (pos_max + neg_max);
        let neg_w = ((neg_max * scale - 1e-9).ceil().max(1.0) as usize).min(avail);
        BarLayout {
            scale,
            neg_w,
            pos_w: avail - neg_w,
            axis: true,
        }
    }
}

/// A single bar for a value of `size`, growing right (a cell's fraction drawn in eighths).
fn bar_right(size: f64, layout: &BarLayout) -> String {
    let eighths = (size * layout.scale * 8.0).round() as usize;
    let eighths = eighths.min(layout.pos_w * 8);
    let mut bar = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        bar.push(EIGHTHS[eighths % 8]);
    }
    bar
}

/// A single bar growing left from the axis: whole cells and a right half block (the only
/// right-aligned part block terminals draw well).
fn bar_left(size: f64, layout: &BarLayout) -> String {
    let halves = ((size * layout.scale * 2.0).round() as usize).min(layout.neg_w * 2);
    let mut bar = String::new();
    if halves % 2 == 1 {
        bar.push('▐');
    }
    bar.push_str(&"█".repeat(halves / 2));
    bar
}

/// The parts of one side of a bar: (series, its glyphs), from left to right.
type Parts = Vec<(usize, String)>;

/// Stacked segments from the axis outwards: (series, cells) for the values of one side.
fn stack(parts: &[(usize, f64)], scale: f64, room: usize) -> Vec<(usize, usize)> {
    let mut done = 0.0;
    let mut used = 0;
    let mut out = Vec::new();
    for &(s, v) in parts {
        let start = (done * scale).round() as usize;
        done += v;
        let end = ((done * scale).round() as usize).min(room);
        let n = end.saturating_sub(start.max(used));
        if n > 0 {
            out.push((s, n));
            used += n;
        }
    }
    out
}

/// A label column, a bar and the value, one line per category (stacked per series). With
/// negative values a zero axis splits the bar area: negative bars extend left of it, positive
/// ones right, both to one scale; a `0` under the axis marks it.
fn bars(
    out: &mut String,
    chart: &Chart,
    labels: &[String],
    values: &[Vec<f64>],
    width: usize,
    style: Style,
) {
    let dec = decimals(values.iter().flatten().copied());
    let totals: Vec<f64> = (0..labels.len())
        .map(|i| values.iter().map(|v| v[i]).sum())
        .collect();
    let texts: Vec<String> = totals.iter().map(|t| format_number(*t, dec)).collect();
    let value_w = texts.iter().map(|t| t.width()).max().unwrap_or(0);
    let label_w = labels
        .iter()
        .map(|l| l.width())
        .max()
        .unwrap_or(0)
        .min(width / 3)
        .min(24);
    let bar_w = width.saturating_sub(label_w + value_w + 2).max(8);
    // How far each category's bar reaches on either side of zero (stacks add up per side).
    let side = |i: usize, neg: bool| -> f64 {
        values
            .iter()
            .map(|v| v[i])
            .filter(|v| if neg { *v < 0.0 } else { *v > 0.0 })
            .map(f64::abs)
            .sum()
    };
    let pos_max = (0..labels.len())
        .map(|i| side(i, false))
        .fold(0.0, f64::max);
    let neg_max = (0..labels.len()).map(|i| side(i, true)).fold(0.0, f64::max);
    let layout = BarLayout::new(pos_max, neg_max, bar_w);
    if chart.title.is_none() {
        out.push_str(&style.dim(&cut(
            &format!("{} by {}", chart.y_title, chart.x_title),
            width,
        )));
        out.push('\n');
    }
    let glyph = |s: usize| -> char {
        if style.color {
            '█'
        } else {
            SHADES[s % SHADES.len()]
        }
    };
    for (i, label) in labels.iter().enumerate() {
        let l = cut(label, label_w);
        out.push_str(&l);
        out.push_str(&" ".repeat(label_w - l.width() + 1));
        // The parts left of the axis (negative) and right of it, as (series, glyphs).
        let (left, right): (Parts, Parts) = if values.len() == 1 {
            let v = values[0][i];
            if v < 0.0 {
                (vec![(0, bar_left(-v, &layout))], Vec::new())
            } else {
                (Vec::new(), vec![(0, bar_right(v, &layout))])
            }
        } else {
            let parts = |neg: bool| -> Vec<(usize, f64)> {
                values
                    .iter()
                    .enumerate()
                    .map(|(s, v)| (s, v[i]))
                    .filter(|(_, v)| if neg { *v < 0.0 } else { *v > 0.0 })
                    .map(|(s, v)| (s, v.abs()))
                    .collect()
            };
            let draw = |segs: Vec<(usize, usize)>| -> Parts {
                segs.into_iter()
                    .map(|(s, n)| (s, glyph(s).to_string().repeat(n)))
                    .collect()
            };
            let mut left = draw(stack(&parts(true), layout.scale, layout.neg_w));
            // The first series sits next to the axis, so the left side is drawn reversed.
            left.reverse();
            (left, draw(stack(&parts(false), layout.scale, layout.pos_w)))
        };
        let cells = |segs: &Parts| -> usize { segs.iter().map(|(_, b)| b.chars().count()).sum() };
        if layout.axis {
            // Padding, then the negative bar ending at the axis.
            out.push_str(&" ".repeat(layout.neg_w.saturating_sub(cells(&left))));
            for (s, b) in &left {
                out.push_str(&paint(style, *s, b));
            }
            out.push_str(&style.dim("│"));
        }
        for (s, b) in &right {
            out.push_str(&paint(style, *s, b));
        }
        let pad = layout.pos_w.saturating_sub(cells(&right)) + 1 + value_w - texts[i].width();
        out.push_str(&" ".repeat(pad));
        out.push_str(&texts[i]);
        out.push('\n');
    }
    if layout.axis {
        out.push_str(&" ".repeat(label_w + 1 + layout.neg_w));
        out.push_str(&style.dim("0"));
        out.push('\n');
    }
}

/// Bars of each category's share of the whole, with the share and the value.
fn shares(
    out: &mut String,
    chart: &Chart,
    labels: &[String],
    values: &[f64],
    width: usize,
    style: Style,
) {
    let total: f64 = values.iter().map(|v| v.max(0.0)).sum();
    let dec = decimals(values.iter().copied());
    let numbers: Vec<String> = values.iter().map(|v| format_number(*v, dec)).collect();
    let num_w = numbers.iter().map(|n| n.width()).max().unwrap_or(0);
    let texts: Vec<String> = values
        .iter()
        .zip(&numbers)
        .map(|(v, n)| {
            let share = if total > 0.0 { v / total * 100.0 } else { 0.0 };
            format!("{share:>5.1}%  {n:>num_w$}")
        })
        .collect();
    let value_w = texts.iter().map(|t| t.width()).max().unwrap_or(0);
    let label_w = labels
        .iter()
        .map(|l| l.width())
        .max()
        .unwrap_or(0)
        .min(width / 3)
        .min(24);
    let bar_w = width.saturating_sub(label_w + value_w + 2).max(8);
    if chart.title.is_none() {
        out.push_str(&style.dim(&cut(
            &format!("Share of {} by {}", chart.y_title, chart.x_title),
            width,
        )));
        out.push('\n');
    }
    for (i, label) in labels.iter().enumerate() {
        let l = cut(label, label_w);
        out.push_str(&l);
        out.push_str(&" ".repeat(label_w - l.width() + 1));
        let share = if total > 0.0 {
            values[i].max(0.0) / total
        } else {
            0.0
        };
        let eighths = (share * bar_w as f64 * 8.0).round() as usize;
        let mut bar = "█".repeat(eighths / 8);
        if !eighths.is_multiple_of(8) {
            bar.push(EIGHTHS[eighths % 8]);
        }
        let cells = bar.chars().count();
        out.push_str(&paint(style, i, &bar));
        out.push_str(&" ".repeat(bar_w.saturating_sub(cells) + 1 + value_w - texts[i].width()));
        out.push_str(&texts[i]);
        out.push('\n');
    }
}

/// One cell of the plot: Braille dots, or a marker, and the series that drew it last.
#[derive(Clone, Copy, Default)]
struct Cell {
    dots: u8,
    marker: Option<char>,
    series: usize,
    fill: bool,
}

struct Canvas {
    w: usize,
    h: usize,
    cells: Vec<Cell>,
}

impl Canvas {
    /// One series' mapped dots: shaded cells under an area, the line through them (or a lone
    /// dot), and a marker per point when `markers` (points, or several series without colour).
    fn series(&mut self, s: usize, mapped: &[(i64, i64)], mark: Mark, base: usize, markers: bool) {
        let (w, h) = (self.w, self.h);
        if mark == Mark::Area {
            // Cells wholly under the line are shaded; the line itself is drawn in dots.
            for pair in mapped.windows(2) {
                let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                for x in x0..=x1 {
                    let t = if x1 > x0 {
                        (x - x0) as f64 / (x1 - x0) as f64
                    } else {
                        0.0
                    };
                    let top = (y0 as f64 + t * (y1 - y0) as f64).round().max(0.0) as usize / 4;
                    let cx = (x.max(0) as usize / 2).min(w - 1);
                    for cy in top + 1..=base {
                        let c = &mut self.cells[cy * w + cx];
                        c.fill = true;
                        c.series = s;
                    }
                }
            }
        }
        if mark != Mark::Point {
            for pair in mapped.windows(2) {
                self.line(pair[0], pair[1], s);
            }
            if mapped.len() == 1 {
                self.dot(mapped[0].0, mapped[0].1, s);
            }
        }
        if markers {
            for &(x, y) in mapped {
                let (cx, cy) = (
                    (x.max(0) as usize / 2).min(w - 1),
                    (y.max(0) as usize / 4).min(h - 1),
                );
                let c = &mut self.cells[cy * w + cx];
                c.marker = Some(MARKERS[s % MARKERS.len()]);
                c.series = s;
            }
        }
    }

    fn dot(&mut self, px: i64, py: i64, series: usize) {
        if px < 0 || py < 0 || px >= (self.w * 2) as i64 || py >= (self.h * 4) as i64 {
            return;
        }
        const BITS: [[u8; 2]; 4] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]];
        let (cx, cy) = (px as usize / 2, py as usize / 4);
        let c = &mut self.cells[cy * self.w + cx];
        c.dots |= BITS[py as usize % 4][px as usize % 2];
        c.series = series;
    }

    fn line(&mut self, a: (i64, i64), b: (i64, i64), series: usize) {
        let (mut x, mut y) = a;
        let (dx, dy) = ((b.0 - a.0).abs(), -(b.1 - a.1).abs());
        let (sx, sy) = (
            if a.0 < b.0 { 1 } else { -1 },
            if a.1 < b.1 { 1 } else { -1 },
        );
        let mut err = dx + dy;
        loop {
            self.dot(x, y, series);
            if (x, y) == b {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }
}

/// The canvas as text, a row at a time, each behind its y tick label (or a bare axis).
fn canvas_rows(
    out: &mut String,
    canvas: &Canvas,
    tick_rows: &[(usize, &String)],
    ylab_w: usize,
    style: Style,
) {
    for row in 0..canvas.h {
        let label = tick_rows
            .iter()
            .rev()
            .find(|(r, _)| *r == row)
            .map(|(_, l)| *l);
        match label {
            Some(l) => {
                out.push_str(&" ".repeat(ylab_w - l.width()));
                out.push_str(&style.dim(l));
                out.push_str(" ┤");
            }
            None => {
                out.push_str(&" ".repeat(ylab_w));
                out.push_str(" │");
            }
        }
        let mut line = String::new();
        for c in &canvas.cells[row * canvas.w..(row + 1) * canvas.w] {
            let ch = match (c.marker, c.dots) {
                (Some(m), _) => m,
                (None, 0) if c.fill => '░',
                (None, 0) => ' ',
                (None, d) => char::from_u32(0x2800 + d as u32).unwrap_or(' '),
            };
            if ch == ' ' {
                line.push(' ');
            } else {
                line.push_str(&paint(style, c.series, &ch.to_string()));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// The line of x labels under a plot of `w` cells starting at column `origin`: the first,
/// the last and as many evenly spaced candidates between them as fit without overlapping.
fn x_label_row(
    candidates: &[(f64, String)],
    origin: usize,
    w: usize,
    width: usize,
    band: bool,
    px: &dyn Fn(f64) -> i64,
) -> String {
    let mut labels = vec![' '; width];
    let mut taken_until = 0usize;
    let n = candidates.len();
    // Take the first and last, then as many evenly spaced ones as fit.
    let step = (1..=n.max(1))
        .find(|s| {
            let picked: Vec<&(f64, String)> = candidates.iter().step_by(*s).collect();
            let room = picked.iter().map(|(_, l)| l.width() + 2).sum::<usize>();
            room <= w
        })
        .unwrap_or(n.max(1));
    for (x, l) in candidates.iter().step_by(step) {
        let col = origin + (px(*x).max(0) as usize / 2);
        let l = cut(l, w);
        let lw = l.width();
        let start = col
            .saturating_sub(lw / 2)
            .max(taken_until)
            .min(width.saturating_sub(lw));
        if start < taken_until || start + lw > width || (band && lw > w) {
            continue;
        }
        for (i, ch) in l.chars().enumerate() {
            if start + i < width {
                labels[start + i] = ch;
            }
        }
        taken_until = start + lw + 2;
    }
    labels.into_iter().collect()
}

/// A Braille plot with y labels on the left and x labels under it.
fn plot(
    out: &mut String,
    chart: &Chart,
    xs: &XScale,
    points: &[Vec<(f64, f64)>],
    width: usize,
    style: Style,
) {
    let (lo, hi) = chart.value_range();
    let ticks = nice_ticks(lo, hi, 4);
    let (ylo, yhi) = (ticks[0], *ticks.last().unwrap_or(&hi));
    let ylabels = axis_labels(&ticks);
    let ylab_w = ylabels.iter().map(|l| l.width()).max().unwrap_or(1);
    let w = width.saturating_sub(ylab_w + 2).max(10);
    let h = PLOT_ROWS;
    let (xlo, xhi) = chart.x_range();
    let band = matches!(xs, XScale::Band(_));
    let px = |x: f64| -> i64 {
        if xhi > xlo {
            ((x - xlo) / (xhi - xlo) * (w * 2 - 1) as f64).round() as i64
        } else {
            w as i64
        }
    };
    let py = |y: f64| -> i64 {
        let span = if yhi > ylo { yhi - ylo } else { 1.0 };
        ((yhi - y) / span * (h * 4 - 1) as f64).round() as i64
    };
    let mut canvas = Canvas {
        w,
        h,
        cells: vec![Cell::default(); w * h],
    };
    let base = (py(0.0f64.clamp(ylo, yhi)).max(0) as usize / 4).min(h - 1);
    let markers = chart.mark == Mark::Point || (points.len() > 1 && !style.color);
    for (s, pts) in points.iter().enumerate() {
        let mapped: Vec<(i64, i64)> = pts.iter().map(|&(x, y)| (px(x), py(y))).collect();
        canvas.series(s, &mapped, chart.mark, base, markers);
    }
    out.push_str(&style.dim(&cut(&chart.y_title, width)));
    out.push('\n');
    // The row of each y tick.
    let tick_rows: Vec<(usize, &String)> = ticks
        .iter()
        .zip(&ylabels)
        .map(|(t, l)| ((py(*t).max(0) as usize / 4).min(h - 1), l))
        .collect();
    canvas_rows(out, &canvas, &tick_rows, ylab_w, style);
    out.push_str(&" ".repeat(ylab_w + 1));
    out.push('└');
    out.push_str(&"─".repeat(w));
    out.push('\n');
    // x labels: at data points (dates, categories) or round numbers, never overlapping.
    let candidates = x_candidates(xs, points, (xlo, xhi), 5, str::to_owned);
    let origin = ylab_w + 2;
    let line = x_label_row(&candidates, origin, w, width, band, &px);
    out.push_str(&style.dim(line.trim_end()));
    out.push('\n');
    let xt = cut(&chart.x_title, width);
    out.push_str(&" ".repeat(origin + w.saturating_sub(xt.width()) / 2));
    out.push_str(&style.dim(&xt));
    out.push('\n');
}
