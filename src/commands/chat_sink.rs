//! Where a chat stream's lines go: the renderer of the chosen format, `--save`, the spinner,
//! and the thread store for `--continue`.

use super::Ctx;
use super::thread_store::ThreadStore;
use crate::exit::usage;
use crate::protocol::Frame;
use crate::render::Format;
use crate::render::chart::files::{self, Charts};
use crate::render::chat::{ChatRender, End, FinalRender, RawRender};
use crate::render::chat_doc::DocRender;
use crate::render::chat_text::TextRender;
use crate::render::result_view::TextView;
use crate::render::spinner::Spinner;
use crate::stream::tracker::Sink;
use crate::term::Env;
use crate::term::warn;
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
type Stdout = crate::exit::StdoutWriter<std::io::Stdout>;
use std::path::{Path, PathBuf};

/// The renderer for a format, writing to stdout; `view` says how `text` shows SQL results.
pub fn renderer(
    ctx: &Ctx,
    format: Format,
    show_thinking: bool,
    view: TextView,
) -> Box<dyn ChatRender> {
    // Large enough that a whole chunk of a fast stream goes out in one write when it is flushed.
    let out = BufWriter::with_capacity(128 << 10, crate::exit::stdout());
    match format {
        Format::Ndjson => Box::new(RawRender::new(out)),
        Format::Json | Format::Yaml => Box::new(DocRender::new(out, format)),
        Format::Final => Box::new(FinalRender::new(out)),
        _ => Box::new(
            TextRender::<BufWriter<Stdout>>::new(out, ctx.out_style, show_thinking).with_view(view),
        ),
    }
}

/// Whether a run's thread is kept for `--continue`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remember {
    /// Not kept (a `--demo` run, a `--replay`).
    Not,
    /// Kept under a profile (`None`: the default one).
    Under(Option<String>),
}

impl Remember {
    /// Threads of the service are kept per profile; those of a `--demo` run are not.
    pub fn for_run(demo: bool, profile: Option<&str>) -> Remember {
        if demo {
            Remember::Not
        } else {
            Remember::Under(profile.map(str::to_owned))
        }
    }
}

/// The sink of a chat run.
pub struct Pipeline {
    render: Box<dyn ChatRender>,
    save: Option<(PathBuf, BufWriter<File>)>,
    spinner: Spinner,
    remember: Remember,
    store: ThreadStore,
    /// `--chart FILE`: where to write the charts, and those seen so far.
    charts: Option<(PathBuf, Charts)>,
}

impl Pipeline {
    /// A pipeline into `render`, also saving to `save`; a spinner when `spinner`; threads
    /// remembered for `--continue` as `remember` says.
    pub fn new(
        render: Box<dyn ChatRender>,
        save: Option<&Path>,
        spinner: bool,
        remember: Remember,
        env: &Env,
    ) -> Result<Pipeline> {
        let save = save
            .map(|p| {
                File::create(p)
                    .map(|f| (p.to_owned(), BufWriter::new(f)))
                    .map_err(|e| usage(format!("--save {}: cannot create: {e}", p.display())))
            })
            .transpose()?;
        let mut spinner = Spinner::new(spinner, "waiting for the agent");
        spinner.show();
        Ok(Pipeline {
            render,
            save,
            spinner,
            remember,
            store: ThreadStore::new(env),
            charts: None,
        })
    }

    /// Also write every charted result to `path` (`--chart`) when the run finishes.
    pub fn with_charts(mut self, path: Option<&Path>) -> Result<Pipeline> {
        if let Some(p) = path {
            files::format_of(p)?;
            // Known before anything is sent: a directory that is not there (the files are
            // written when the answer is complete, too late to say it as a usage error).
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(dir) = dir.filter(|d| !d.is_dir()) {
                return Err(usage(format!(
                    "--chart {}: no directory {}",
                    p.display(),
                    dir.display()
                )));
            }
            self.charts = Some((p.to_owned(), Charts::default()));
        }
        Ok(self)
    }

    /// Write the `--chart` files, saying on stderr what was written.
    fn write_charts(&mut self, quiet: bool) -> Result<()> {
        let Some((path, charts)) = self.charts.take() else {
            return Ok(());
        };
        let written = files::write(&path, &charts)?;
        if let Some(note) = written.undrawn_note() {
            warn(format!("--chart {note}"));
        }
        for u in &written.unchartable {
            warn(format!("--chart: {u}"));
        }
        if written.nothing() {
            warn(format!(
                "--chart {}: no result in the answer carried a chart",
                path.display()
            ));
        } else if let Some(files) = written.files_list().filter(|_| !quiet) {
            crate::term::diag(format_args!("analyst: wrote {files}"));
        }
        Ok(())
    }

    /// Stop the spinner and make what was written visible (the run is over or interrupted).
    pub fn stop(&mut self) {
        self.spinner.hide();
        // Errors here surface again, with context, in `finish` or not at all (interrupted).
        let _ = self.render.flush();
        if let Some((_, f)) = &mut self.save {
            let _ = f.flush();
        }
    }

    /// Close the output.
    pub fn finish(&mut self, end: &End<'_>, quiet: bool) -> Result<()> {
        self.render.finish(end)?;
        self.write_charts(quiet)?;
        if let Some((path, f)) = &mut self.save {
            f.flush()
                .with_context(|| format!("--save {}", path.display()))?;
        }
        Ok(())
    }
}

impl Pipeline {
    /// The run's new thread came without an id: `--continue` must not take the thread before
    /// it for this one (it would send the next message to another thread, silently).
    pub fn thread_unknown(&mut self) {
        if let Remember::Under(profile) = &self.remember
            && let Err(e) = self.store.forget(profile.as_deref())
        {
            warn(format!(
                "cannot update the thread kept for --continue: {e:#}"
            ));
        }
    }
}

impl Sink for Pipeline {
    fn line(&mut self, raw: &[u8], frame: Option<&Frame>) -> Result<()> {
        // Secrets the service echoed back are masked already (the tracker masks each line).
        // `--save` holds exactly what `-o ndjson` would print: whole lines, no repeats.
        if let Some((path, f)) = &mut self.save {
            f.write_all(raw)
                .with_context(|| format!("--save {}", path.display()))?;
        }
        self.spinner.hide();
        if let (Some((_, charts)), Some(f)) = (&mut self.charts, frame)
            && f.tool_call.is_some()
        {
            charts.see(f);
        }
        Ok(self.render.line(raw, frame)?)
    }

    fn chunk_done(&mut self) -> Result<()> {
        self.render.flush()?;
        if let Some((path, f)) = &mut self.save {
            f.flush()
                .with_context(|| format!("--save {}", path.display()))?;
        }
        Ok(())
    }

    fn wants_frames(&self) -> bool {
        self.render.wants_frames() || self.charts.is_some()
    }

    fn waiting(&mut self, quiet: bool) {
        if quiet && !self.render.mid_line() {
            self.spinner.show();
        } else {
            self.spinner.hide();
        }
    }

    fn chat_id(&mut self, id: &str) -> Result<()> {
        if let Remember::Under(profile) = &self.remember
            && let Err(e) = self.store.remember(profile.as_deref(), id)
        {
            warn(format!("cannot remember the thread for --continue: {e:#}"));
        }
        Ok(())
    }
}
