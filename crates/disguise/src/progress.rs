//! Progress on stderr for long runs (the CLI and the experiments; feature `progress`).
//!
//! Nothing is drawn when stderr is not a terminal (pipes, CI, tests) or when `quiet` is set,
//! so progress never mixes into a report.

/// The draw target of progress output: stderr, which indicatif leaves blank when it is not
/// a terminal (pipes, CI, tests); nothing at all with `--quiet`.
fn draw_target(quiet: bool) -> indicatif::ProgressDrawTarget {
    if quiet {
        indicatif::ProgressDrawTarget::hidden()
    } else {
        indicatif::ProgressDrawTarget::stderr()
    }
}

/// A progress bar over `len` steps on stderr (nothing drawn when quiet or not a terminal); finish it with
/// `finish_and_clear`.
pub fn bar(len: u64, message: &str, quiet: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(len), draw_target(quiet));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} ({elapsed}, eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar
}

/// A spinner with a message on stderr for a step of unknown length (reading a large file);
/// finish it with `finish_and_clear`.
pub fn spinner(message: &str, quiet: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(None, draw_target(quiet));
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("valid template"),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}
