//! Rendering a [`Figure`] to files: the font every figure uses (DejaVu Sans, registered once
//! by [`init`]), [`save`] to `<base>.png` and `<base>.svg` and [`save_png`], each written
//! atomically, and the text styles the figures share.

use super::crisp::CrispText;
use anyhow::{Context, Result, anyhow};
use disguise::files::AtomicFile;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The error type of drawing code (any backend's error, boxed).
pub type DrawResult = std::result::Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// The font family every figure uses (registered by [`init`]).
pub(super) const FONT: &str = "sans-serif";

/// Registers DejaVu Sans (regular and bold) as `sans-serif`, once per process. Without a
/// registered font the bitmap backend cannot draw text at all.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bundled files are valid TrueType fonts; failure would be a packaging bug.
        let regular =
            plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let bold = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
        assert!(
            regular.is_ok() && bold.is_ok(),
            "bundled DejaVu Sans failed to load"
        );
    });
}

/// Something [`save`] can render: a size in pixels and drawing code generic over the backend.
pub trait Figure {
    /// Width and height in pixels (the SVG uses the same user units).
    fn size(&self) -> (u32, u32);
    /// Draws the figure on `root`, which is already filled white.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// Renders `figure` to `<base>.png` and `<base>.svg` (the extensions are appended, so `base`
/// may contain dots) and returns the two paths. Each file is written atomically and never
/// over one of `inputs` (see [`disguise::files::AtomicFile`]).
pub fn save(figure: &impl Figure, base: &Path, inputs: &[&Path]) -> Result<[PathBuf; 2]> {
    init();
    let png = PathBuf::from(format!("{}.png", base.display()));
    let svg = PathBuf::from(format!("{}.svg", base.display()));
    let size = figure.size();
    let file = AtomicFile::create(&png, inputs)?;
    {
        let root = CrispText::new(BitMapBackend::new(file.path(), size)).into_drawing_area();
        render(figure, &root).with_context(|| format!("drawing {}", png.display()))?;
    }
    file.commit()?;
    let file = AtomicFile::create(&svg, inputs)?;
    {
        let root = SVGBackend::new(file.path(), size).into_drawing_area();
        render(figure, &root).with_context(|| format!("drawing {}", svg.display()))?;
    }
    file.commit()?;
    Ok([png, svg])
}

/// Whether `path` names a figure [`save_as`] can draw: `.svg` (true) or `.png` (false), in
/// any case.
///
/// # Errors
/// Any other name.
pub fn is_svg(path: &Path) -> Result<bool> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(true),
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(false),
        _ => Err(anyhow!("{} is neither .svg nor .png", path.display())),
    }
}

/// Renders `figure` to `path` as its name says ([`is_svg`]: [`save_svg`] or [`save_png`]).
///
/// # Errors
/// A name neither `.svg` nor `.png`, and the renderers' errors.
pub fn save_as(figure: &impl Figure, path: &Path, inputs: &[&Path]) -> Result<()> {
    if is_svg(path)? {
        save_svg(figure, path, inputs)
    } else {
        save_png(figure, path, inputs)
    }
}

/// Renders `figure` to a PNG file at exactly `path`, atomically and never over one of
/// `inputs`.
pub fn save_png(figure: &impl Figure, path: &Path, inputs: &[&Path]) -> Result<()> {
    init();
    let file = AtomicFile::create(path, inputs)?;
    {
        let root =
            CrispText::new(BitMapBackend::new(file.path(), figure.size())).into_drawing_area();
        render(figure, &root).with_context(|| format!("drawing {}", path.display()))?;
    }
    file.commit()?;
    Ok(())
}

/// Renders `figure` to an SVG file at exactly `path`, atomically and never over one of
/// `inputs`.
pub fn save_svg(figure: &impl Figure, path: &Path, inputs: &[&Path]) -> Result<()> {
    init();
    let file = AtomicFile::create(path, inputs)?;
    {
        let root = SVGBackend::new(file.path(), figure.size()).into_drawing_area();
        render(figure, &root).with_context(|| format!("drawing {}", path.display()))?;
    }
    file.commit()?;
    Ok(())
}

/// Draws `figure` on a white `root` and flushes it to its file.
fn render<DB: DrawingBackend>(figure: &impl Figure, root: &DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    figure.draw(root).map_err(|e| anyhow!("{e}"))?;
    root.present().map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

/// A figure's title: the figure font in bold.
pub(super) fn title_style(size: u32) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font().style(FontStyle::Bold))
}

/// Axis labels, ticks and legends: the figure font.
pub(super) fn text_style(size: u32) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
}
