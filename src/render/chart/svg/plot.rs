//! Lines, areas and points over an x scale, and pie (arc) charts, as SVG.

use super::{
    Frame, TOP, WIDTH, axis_lines, axis_title, color, decimals, esc, left_axis_title, text,
    text_in, text_w, y_grid,
};
use crate::render::chart::{Chart, Mark, XScale, x_candidates};
use crate::render::numbers::{axis_labels, format_number, nice_ticks};
use crate::render::table::cut;
use std::fmt::Write;

/// A pie of shares with percentages on the larger slices.
pub(super) fn pie(
    svg: &mut String,
    labels: &[String],
    values: &[f64],
    legend_w: f64,
    hole: f64,
) -> f64 {
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
                r##"<path class="arc" d="M{x0:.2},{y0:.2} A{r},{r} 0 {large} 1 {x1:.2},{y1:.2} L{u1:.2},{v1:.2} A{ri:.2},{ri:.2} 0 {large} 0 {u0:.2},{v0:.2} Z" fill="{}" stroke="#ffffff" stroke-width="1.5"><title>{}</title></path>"##,
                color(i),
                esc(&title)
            );
        } else if share > 0.0 {
            let (x0, y0) = (cx + r * a0.cos(), cy + r * a0.sin());
            let (x1, y1) = (cx + r * a1.cos(), cy + r * a1.sin());
            let large = if sweep > std::f64::consts::PI { 1 } else { 0 };
            let _ = writeln!(
                svg,
                r##"<path class="arc" d="M{cx:.2},{cy:.2} L{x0:.2},{y0:.2} A{r},{r} 0 {large} 1 {x1:.2},{y1:.2} Z" fill="{}" stroke="#ffffff" stroke-width="1.5"><title>{}</title></path>"##,
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
        text_in(
            svg,
            "#ffffff",
            x,
            y,
            12.0,
            "middle",
            " font-weight=\"bold\" class=\"share\"",
            &s,
        );
    }
    let legend_h = 76.0 + 20.0 * labels.len() as f64;
    (cy + r + 24.0).max(legend_h)
}

/// Lines, areas and points on x/y axes.
pub(super) fn plot(
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
        left: 16.0 + tick_w + 8.0,
        right: WIDTH - legend_w - 24.0,
        top: TOP,
        bottom: TOP + 300.0,
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
    // Areas first and the grid over them: their fills are solid (see `tint`), so a grid
    // under them would be hidden.
    if chart.mark == Mark::Area {
        areas(svg, points, &x, &y, y(0.0_f64.clamp(vlo, vhi)));
    }
    y_grid(svg, &f, &ticks, &tick_labels, &y);
    // x ticks: the data's dates or categories, as many as fit; round numbers for a linear x.
    let candidates = x_candidates(xs, points, (xlo, xhi), 6, |l| cut(l, 20));
    x_ticks(svg, &f, &candidates, &x);
    lines_and_points(svg, chart.mark, points, &x, &y);
    axis_lines(svg, &f, None, None);
    left_axis_title(svg, &f, &chart.y_title);
    axis_title(
        svg,
        (f.left + f.right) / 2.0,
        f.bottom + 42.0,
        "middle",
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

/// A series' points as an SVG path.
fn path_of(pts: &[(f64, f64)], x: &dyn Fn(f64) -> f64, y: &dyn Fn(f64) -> f64) -> String {
    let parts: Vec<String> = pts
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| format!("{}{:.2},{:.2}", if i == 0 { "M" } else { "L" }, x(a), y(b)))
        .collect();
    parts.join(" ")
}

/// Each series' area down to `base` (the y of zero), in a pale solid tint of its colour.
fn areas(
    svg: &mut String,
    points: &[Vec<(f64, f64)>],
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
    base: f64,
) {
    let _ = writeln!(svg, r#"<g class="areas">"#);
    for (s, pts) in points.iter().enumerate().filter(|(_, p)| p.len() > 1) {
        let _ = writeln!(
            svg,
            r#"<path class="area" d="{} L{:.2},{base:.2} L{:.2},{base:.2} Z" fill="{}" stroke="none"/>"#,
            path_of(pts, x, y),
            x(pts[pts.len() - 1].0),
            x(pts[0].0),
            tint(color(s), 0.35)
        );
    }
    let _ = writeln!(svg, "</g>");
}

/// Each series as a line and points (points only when there are few or the mark is a point).
fn lines_and_points(
    svg: &mut String,
    mark: Mark,
    points: &[Vec<(f64, f64)>],
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
) {
    let _ = writeln!(svg, r#"<g class="marks">"#);
    for (s, pts) in points.iter().enumerate() {
        if mark != Mark::Point && pts.len() > 1 {
            let _ = writeln!(
                svg,
                r#"<path class="line" d="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
                path_of(pts, x, y),
                color(s)
            );
        }
        if mark == Mark::Point || pts.len() <= 40 {
            let (r, fill) = if mark == Mark::Point {
                (4.0, tint(color(s), 0.7))
            } else {
                (2.5, color(s).to_owned())
            };
            for &(a, b) in pts {
                let _ = writeln!(
                    svg,
                    r#"<circle class="point" cx="{:.2}" cy="{:.2}" r="{r}" fill="{fill}" stroke="none"/>"#,
                    x(a),
                    y(b),
                );
            }
        }
    }
    let _ = writeln!(svg, "</g>");
}

/// `#rrggbb` at `alpha` over white, as a solid colour: ImageMagick's renderer ignores
/// `fill-opacity` and `opacity` and would draw the colour at full strength.
fn tint(hex: &str, alpha: f64) -> String {
    let channel = |i: usize| {
        let c = u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).unwrap_or(0) as f64;
        (c * alpha + 255.0 * (1.0 - alpha)).round() as u8
    };
    format!("#{:02x}{:02x}{:02x}", channel(0), channel(1), channel(2))
}

#[cfg(test)]
mod tests {
    #[test]
    fn tints_are_solid_colours_over_white() {
        assert_eq!(super::tint("#4c78a8", 1.0), "#4c78a8");
        assert_eq!(super::tint("#4c78a8", 0.0), "#ffffff");
        assert_eq!(super::tint("#000000", 0.5), "#808080");
    }
}
