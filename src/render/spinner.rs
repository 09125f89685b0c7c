//! A spinner on stderr while a stream is quiet (stderr a terminal, and not `-q`).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// A spinner that can be shown and hidden many times; a no-op when disabled.
pub struct Spinner {
    enabled: bool,
    message: String,
    bar: Option<ProgressBar>,
}

impl Spinner {
    /// A spinner saying `message`, shown only when `enabled`.
    pub fn new(enabled: bool, message: &str) -> Spinner {
        Spinner {
            enabled,
            message: message.to_owned(),
            bar: None,
        }
    }

    /// Show it (if enabled and not shown).
    pub fn show(&mut self) {
        if !self.enabled || self.bar.is_some() {
            return;
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed:.dim}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(self.message.clone());
        bar.enable_steady_tick(Duration::from_millis(100));
        self.bar = Some(bar);
    }

    /// Hide it, leaving nothing behind.
    pub fn hide(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.hide();
    }
}
