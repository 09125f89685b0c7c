//! SVG charts as people see them: every chart file `--chart` writes (one per fixture of
//! `tests/fixtures/charts`, and the issue's own `Revenue by category in 2025` from the demo)
//! rendered to PNG by librsvg (`rsvg-convert`) and by ImageMagick's own renderer (`convert` or
//! `magick`, with `msvg:` so that a build linked to librsvg cannot stand in for it), then read
//! back: each `<text>` has ink where its attributes put it, nothing is outlined in black, and
//! every `<text>` says how it looks in plain attributes that both renderers and browsers read.
//!
//! Both renderers come from the system's packages (`librsvg2-bin`, `imagemagick`; `.ci/run`
//! installs them). Under `CI=true` a missing one fails the test; elsewhere the test is skipped
//! with a line on stderr.

use crate::common;

use common::scripted::{analyst, text};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A command that turns an SVG file into a PNG file.
struct Renderer {
    name: &'static str,
    program: String,
}

impl Renderer {
    fn render(&self, svg: &Path, png: &Path) -> Result<(), String> {
        let mut cmd = Command::new(&self.program);
        if self.name == "librsvg" {
            cmd.arg("-o").arg(png).arg(svg);
        } else {
            cmd.arg(format!("msvg:{}", svg.display()))
                .arg(format!("png:{}", png.display()));
        }
        let out = cmd.output().map_err(|e| format!("{}: {e}", self.program))?;
        if !out.status.success() || !png.exists() {
            return Err(format!(
                "{} {} failed: {}",
                self.program,
                svg.display(),
                text(&out.stderr)
            ));
        }
        Ok(())
    }
}

/// The first of `programs` whose `-version`/`--version` output contains `mark`: a stand-in
/// of the same name (a shell script that is not ImageMagick) does not count.
fn find(programs: &[&str], flag: &str, mark: &str) -> Option<String> {
    programs.iter().find_map(|p| {
        let out = Command::new(p).arg(flag).output().ok()?;
        let said = text(&out.stdout);
        (out.status.success() && said.contains(mark)).then(|| (*p).to_owned())
    })
}

fn renderers() -> Result<Vec<Renderer>, String> {
    let rsvg = find(&["rsvg-convert"], "--version", "rsvg-convert")
        .ok_or("rsvg-convert not found (apt-get install librsvg2-bin)")?;
    let magick = find(&["magick", "convert"], "-version", "Version: ImageMagick")
        .ok_or("ImageMagick (magick or convert) not found (apt-get install imagemagick)")?;
    Ok(vec![
        Renderer {
            name: "librsvg",
            program: rsvg,
        },
        Renderer {
            name: "ImageMagick",
            program: magick,
        },
    ])
}

/// An RGB image.
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Image {
    fn read(path: &Path) -> Image {
        use zune_png::zune_core::colorspace::ColorSpace;
        use zune_png::zune_core::options::DecoderOptions;
        let bytes = std::fs::read(path).unwrap();
        let options = DecoderOptions::default().png_set_strip_to_8bit(true);
        let mut dec = zune_png::PngDecoder::new_with_options(std::io::Cursor::new(bytes), options);
        let raw = dec
            .decode_raw()
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let (width, height) = dec.dimensions().unwrap();
        let cs = dec.colorspace().unwrap();
        let n = cs.num_components();
        // Which bytes of a pixel hold its colour and its alpha. A plain loop: this runs on
        // millions of pixels in an unoptimised test build, where iterator adapters and array
        // maps cost many times their work (they were half of this test's time).
        let (color, alpha) = match cs {
            ColorSpace::Luma => (false, None),
            ColorSpace::LumaA => (false, Some(1)),
            ColorSpace::RGBA => (true, Some(3)),
            _ => (true, None),
        };
        // Over white, as a viewer shows it.
        let over = |v: u8, a: u32| ((v as u32 * a + 255 * (255 - a)) / 255) as u8;
        let mut rgb = Vec::with_capacity(raw.len() / n);
        let mut i = 0;
        while i + n <= raw.len() {
            let (r, g, b) = if color {
                (raw[i], raw[i + 1], raw[i + 2])
            } else {
                (raw[i], raw[i], raw[i])
            };
            let a = alpha.map_or(255, |k| u32::from(raw[i + k]));
            rgb.push(if a == 255 {
                [r, g, b]
            } else {
                [over(r, a), over(g, a), over(b, a)]
            });
            i += n;
        }
        Image { width, height, rgb }
    }

    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }
}

/// A `<text>` element: where its attributes put it, and what it says.
#[derive(Debug)]
struct Label {
    x: f64,
    y: f64,
    size: f64,
    anchor: String,
    class: String,
    content: String,
}

impl Label {
    /// The box the text must ink: its width estimated generously (0.58 em a character, as
    /// the writer estimates), from above the capitals to below the descenders.
    fn bounds(&self) -> (f64, f64, f64, f64) {
        let w = self.content.chars().count() as f64 * self.size * 0.58;
        let (x0, x1) = match self.anchor.as_str() {
            "middle" => (self.x - w / 2.0, self.x + w / 2.0),
            "end" => (self.x - w, self.x),
            _ => (self.x, self.x + w),
        };
        (x0, x1, self.y - self.size, self.y + self.size * 0.3)
    }
}

fn attr<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = element.find(&key)? + key.len();
    element[start..].split('"').next()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Every `<text>` of `svg` (one a line, as the writer puts them), its position moved by the
/// `translate` of the groups around it; and a complaint for each that asks for more than plain
/// attributes: a transform, CSS, a unit, a colour not written `#rrggbb`, no `stroke="none"`.
fn labels(svg: &str) -> (Vec<Label>, Vec<String>) {
    let mut out = Vec::new();
    let mut complaints = Vec::new();
    if svg.contains("<style") || svg.contains(" style=\"") {
        complaints.push("CSS in the SVG".to_owned());
    }
    let mut shifts: Vec<(f64, f64)> = Vec::new();
    for line in svg.lines() {
        if line.starts_with("<g") && !line.ends_with("</g>") {
            let shift = attr(line, "transform")
                .and_then(|t| {
                    t.strip_prefix("translate(")?
                        .strip_suffix(')')
                        .map(str::to_owned)
                })
                .map_or((0.0, 0.0), |t| {
                    let v: Vec<f64> = t
                        .split([' ', ','])
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().unwrap())
                        .collect();
                    (v[0], v.get(1).copied().unwrap_or(0.0))
                });
            shifts.push(shift);
        } else if line == "</g>" {
            shifts.pop();
        }
        let Some(rest) = line.strip_prefix("<text") else {
            continue;
        };
        let (dx, dy) = shifts
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
        let (tag, content) = rest.split_once('>').unwrap();
        let raw = content.strip_suffix("</text>").unwrap_or(content);
        let content = unescape(raw);
        let tag = format!(" {tag}");
        let mut complain = |why: &str| complaints.push(format!("{why}: <text{tag}>"));
        for banned in [
            "transform",
            "style",
            "dominant-baseline",
            "textLength",
            "paint-order",
        ] {
            if tag.contains(&format!(" {banned}=")) {
                complain(banned);
            }
        }
        if raw.contains('<') {
            complain("nested elements (tspan)");
        }
        let num = |name: &str| attr(&tag, name).and_then(|v| v.parse::<f64>().ok());
        let (Some(x), Some(y), Some(size)) = (num("x"), num("y"), num("font-size")) else {
            complain("x, y and font-size as plain numbers");
            continue;
        };
        let fill = attr(&tag, "fill").unwrap_or("");
        if fill.len() != 7
            || !fill.starts_with('#')
            || !fill[1..].bytes().all(|b| b.is_ascii_hexdigit())
        {
            complain("fill as #rrggbb");
        }
        if attr(&tag, "stroke") != Some("none") {
            complain("stroke=\"none\"");
        }
        if !attr(&tag, "font-family").is_some_and(|f| f.ends_with("sans-serif")) {
            complain("a font-family list ending in a generic family");
        }
        let anchor = attr(&tag, "text-anchor").unwrap_or("start").to_owned();
        let class = attr(&tag, "class").unwrap_or("").to_owned();
        out.push(Label {
            x: x + dx,
            y: y + dy,
            size,
            anchor,
            class,
            content,
        });
    }
    (out, complaints)
}

/// The chart files to look at: each fixture as `--chart` writes it, and the issue's own.
fn charts(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for name in [
        "bar",
        "bar_series",
        "line",
        "line_series",
        "area",
        "point",
        "arc",
        "bar_negative",
        "bar_series_negative",
        "arc_negative",
        "line_cut",
    ] {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/fixtures/charts/{name}.ndjson"));
        let svg = dir.join(format!("{name}.svg"));
        let out = analyst(dir)
            .args(["chat", "--replay"])
            .arg(&fixture)
            .args(["-o", "final", "--chart"])
            .arg(&svg)
            .output()
            .unwrap();
        assert!(
            out.status.success() && svg.exists(),
            "{name}: {}",
            text(&out.stderr)
        );
        files.push(svg);
    }
    let svg = dir.join("category.svg");
    let out = analyst(dir)
        .args(["chat", "--demo", "--today", "2025-12-31", "-o", "final"])
        .arg("--chart")
        .arg(&svg)
        .arg("Revenue by category in 2025")
        .output()
        .unwrap();
    assert!(
        out.status.success() && svg.exists(),
        "demo: {}",
        text(&out.stderr)
    );
    files.push(svg);
    files
}

/// What is wrong with `svg` as `r` draws it: labels without ink in their place, black
/// outlines, a wrong size. Each label's ink is what differs from the same chart drawn with
/// no text at all.
fn look(r: &Renderer, svg_path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(svg_path).unwrap();
    let stem = svg_path.with_extension("");
    let full = stem.with_extension(format!("{}.png", r.name));
    let bare_svg = stem.with_extension("bare.svg");
    let bare = stem.with_extension(format!("{}.bare.png", r.name));
    let without_text: String = svg
        .lines()
        .filter(|l| !l.starts_with("<text"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&bare_svg, without_text).unwrap();
    let name = svg_path.file_name().unwrap().to_string_lossy().into_owned();
    let mut problems = Vec::new();
    if let Err(e) = r.render(svg_path, &full).and(r.render(&bare_svg, &bare)) {
        return vec![e];
    }
    let (with, without) = (Image::read(&full), Image::read(&bare));
    let (w, h) = (
        attr(&svg, "width").unwrap().parse::<f64>().unwrap() as usize,
        attr(&svg, "height").unwrap().parse::<f64>().unwrap() as usize,
    );
    if (with.width, with.height) != (w, h) {
        problems.push(format!(
            "{name}: {}x{} pixels, not {w}x{h}",
            with.width, with.height
        ));
        return problems;
    }
    // Nothing the writer draws is darker than its text (#333333): black pixels are outlines
    // a renderer added.
    let mut black = 0;
    for p in &with.rgb {
        if p[0] < 40 && p[1] < 40 && p[2] < 40 {
            black += 1;
        }
    }
    if black > 0 {
        problems.push(format!(
            "{name}: {black} black pixels (outlines nobody drew)"
        ));
    }
    for l in &labels(&svg).0 {
        if l.content.trim().is_empty() {
            continue;
        }
        let (x0, x1, y0, y1) = l.bounds();
        let clamp = |v: f64, hi: usize| (v.max(0.0) as usize).min(hi - 1);
        let (cx0, cx1) = (clamp(x0 - 2.0, w), clamp(x1 + 2.0, w));
        let (cy0, cy1) = (clamp(y0 - 2.0, h), clamp(y1 + 2.0, h));
        let inked = (cx0..=cx1)
            .filter(|&x| {
                (cy0..=cy1).any(|y| {
                    let (a, b) = (with.at(x, y), without.at(x, y));
                    (0..3).any(|i| a[i].abs_diff(b[i]) >= 64)
                })
            })
            .count();
        let wanted = ((x1 - x0) * 0.4) as usize;
        if x0 < 0.0 || x1 > w as f64 || y0 < 0.0 || y1 > h as f64 || inked < wanted {
            problems.push(format!(
                "{name}: {:?} ({} {:.0},{:.0}) has ink in {inked} of the {wanted} columns it needs",
                l.content, l.anchor, l.x, l.y
            ));
        }
    }
    problems
}

#[test]
fn every_label_is_drawn_by_librsvg_and_imagemagick() {
    let renderers = match renderers() {
        Ok(r) => r,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI needs both SVG renderers for this test: {why}")
        }
        Err(why) => {
            common::venv::say(&format!(
                "SKIPPED chart_render::every_label_is_drawn_by_librsvg_and_imagemagick: {why} \
                 (under CI=true this fails)"
            ));
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let files = charts(dir.path());
    let mut problems = Vec::new();
    for r in &renderers {
        for svg in &files {
            problems.extend(look(r, svg).into_iter().map(|p| format!("{}: {p}", r.name)));
        }
    }
    if !problems.is_empty() && std::env::var_os("ANALYST_KEEP_CHARTS").is_some() {
        let kept = dir.keep();
        problems.push(format!("charts and PNGs kept in {}", kept.display()));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The unit (`k`, `M`, `B` or none) and the digits after the point of a label like `0.93M`.
fn precision(label: &str) -> (String, usize) {
    let number = label.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = label[number.len()..].to_owned();
    (unit, number.split_once('.').map_or(0, |(_, d)| d.len()))
}

/// What any renderer needs, read from the files alone: every `<text>` in plain attributes
/// (no transform, no CSS, `#rrggbb`, `stroke="none"`, a generic font family last); and on
/// each chart the value axis's ticks and the values written on its bars in one unit with one
/// number of decimals (the chart wrote `1.19M`, `926.3k` and `734.95k`).
#[test]
fn chart_text_is_plain_svg_with_one_precision_per_axis() {
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    for path in charts(dir.path()) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let svg = std::fs::read_to_string(&path).unwrap();
        let (labels, complaints) = labels(&svg);
        problems.extend(complaints.into_iter().map(|c| format!("{name}: {c}")));
        let numbers: Vec<&str> = labels
            .iter()
            .filter(|l| l.class == "tick" || l.class == "value")
            .map(|l| l.content.as_str())
            .filter(|l| *l != "0")
            .collect();
        let formats: std::collections::BTreeSet<(String, usize)> =
            numbers.iter().map(|l| precision(l)).collect();
        if formats.len() > 1 {
            problems.push(format!(
                "{name}: ticks and values in {formats:?}: {numbers:?}"
            ));
        }
    }
    let category = std::fs::read_to_string(dir.path().join("category.svg")).unwrap();
    for value in ["1.19M", "0.93M", "0.73M"] {
        if !category.contains(&format!("class=\"value\">{value}</text>")) {
            problems.push(format!("category.svg: no bar labelled {value}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
