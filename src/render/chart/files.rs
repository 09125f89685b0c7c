//! `--chart FILE`: every charted result of a run written as `.svg`, `.html` or `.vl.json`;
//! several get `-1`, `-2` before the extension.

use super::{Chart, Charted, Unchartable, charted, inline_spec};
use crate::exit::usage;
use crate::protocol::Frame;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// A chart file format, from the file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartFormat {
    /// Drawn by us.
    Svg,
    /// A page that draws the spec with vega-embed.
    Html,
    /// The spec with its data.
    VegaLite,
}

/// The format and the extension (with its dot) of a chart file name.
pub fn format_of(path: &Path) -> Result<(ChartFormat, &'static str)> {
    let name = path.to_string_lossy().to_ascii_lowercase();
    Ok(if name.ends_with(".vl.json") {
        (ChartFormat::VegaLite, ".vl.json")
    } else if name.ends_with(".svg") {
        (ChartFormat::Svg, ".svg")
    } else if name.ends_with(".html") {
        (ChartFormat::Html, ".html")
    } else if name.ends_with(".htm") {
        (ChartFormat::Html, ".htm")
    } else if name.ends_with(".json") {
        (ChartFormat::VegaLite, ".json")
    } else {
        return Err(usage(format!(
            "--chart {}: the name must end in .svg, .html or .vl.json",
            path.display()
        )));
    })
}

/// The file content of one chart.
pub fn content(c: &Charted, format: ChartFormat) -> Option<String> {
    Some(match format {
        ChartFormat::Svg => match Chart::build(&c.spec, &c.data) {
            Some(chart) => super::svg::draw(&chart),
            None => super::svg::number_card(&c.spec, &c.data)?,
        },
        ChartFormat::Html => super::html::page(&inline_spec(c)),
        ChartFormat::VegaLite => {
            serde_json::to_string_pretty(&inline_spec(c)).unwrap_or_default() + "\n"
        }
    })
}

/// The names for `n` charts: `path` itself for one, else `-1`, `-2`... before the extension.
pub fn names(path: &Path, n: usize) -> Result<Vec<PathBuf>> {
    let (_, ext) = format_of(path)?;
    if n == 1 {
        return Ok(vec![path.to_owned()]);
    }
    let s = path.to_string_lossy();
    let stem = &s[..s.len() - ext.len()];
    let ext = &s[s.len() - ext.len()..];
    Ok((1..=n)
        .map(|i| PathBuf::from(format!("{stem}-{i}{ext}")))
        .collect())
}

/// The charts of a run, gathered as its tool frames arrive.
#[derive(Clone, Debug, Default)]
pub struct Charts {
    /// The charted results, in order.
    pub charted: Vec<Charted>,
    /// The results whose `vegaSpec` cannot be charted.
    pub unchartable: Vec<Unchartable>,
}

impl Charts {
    /// Take in a frame's chart, if it carries one.
    pub fn see(&mut self, frame: &Frame) {
        match charted(frame) {
            Some(Ok(c)) => self.charted.push(c),
            Some(Err(u)) => self.unchartable.push(u),
            None => {}
        }
    }
}

/// What [`write`] did.
#[derive(Debug, Default)]
pub struct Written {
    /// The files written.
    pub files: Vec<PathBuf>,
    /// The names of charts left out because the format cannot draw their mark (`.svg` of a
    /// `rule`): numbered as the others, so a chart has the same number in every format.
    pub undrawn: Vec<PathBuf>,
    /// The results whose `vegaSpec` cannot be charted in any format (not numbered).
    pub unchartable: Vec<Unchartable>,
}

impl Written {
    /// Nothing to write: no result carried a chart.
    pub fn nothing(&self) -> bool {
        self.files.is_empty() && self.undrawn.is_empty() && self.unchartable.is_empty()
    }

    /// The files written, comma-separated; `None` when none was.
    pub fn files_list(&self) -> Option<String> {
        (!self.files.is_empty()).then(|| {
            let names: Vec<String> = self.files.iter().map(|p| p.display().to_string()).collect();
            names.join(", ")
        })
    }

    /// What to say about the charts left out, if any.
    pub fn undrawn_note(&self) -> Option<String> {
        let (first, rest) = self.undrawn.split_first()?;
        let names: Vec<String> = std::iter::once(first)
            .chain(rest)
            .map(|p| p.display().to_string())
            .collect();
        let its = if rest.is_empty() { "its" } else { "their" };
        Some(format!(
            "{} not written: SVG output does not draw {its} mark; .html or .vl.json keep every chart",
            names.join(", ")
        ))
    }
}

/// Write `charts` to `path` (numbered when several).
pub fn write(path: &Path, charts: &Charts) -> Result<Written> {
    let (format, _) = format_of(path)?;
    let mut written = Written {
        unchartable: charts.unchartable.clone(),
        ..Written::default()
    };
    let charted = &charts.charted;
    for (name, chart) in names(path, charted.len())?.into_iter().zip(charted) {
        match content(chart, format) {
            Some(text) => {
                std::fs::write(&name, text)
                    .with_context(|| format!("--chart {}", name.display()))?;
                written.files.push(name);
            }
            None => written.undrawn.push(name),
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names() {
        assert_eq!(
            names(Path::new("out/c.vl.json"), 2).unwrap(),
            [
                PathBuf::from("out/c-1.vl.json"),
                PathBuf::from("out/c-2.vl.json")
            ]
        );
        assert_eq!(
            names(Path::new("c.svg"), 1).unwrap(),
            [PathBuf::from("c.svg")]
        );
        assert!(format_of(Path::new("c.png")).is_err());
    }
}
