//! Figures for the experiments and the demo: line charts with uncertainty bands or error bars,
//! grouped horizontal bar charts, maps (a density of points with highlighted, labelled
//! picks) and box plots. Every figure is written twice, as `<base>.png` and `<base>.svg`.
//!
//! Built on `plotters` without its default features (which need the system's fontconfig):
//! text is rasterised by `ab_glyph` from DejaVu Sans, whose bytes the `dejavu` crate bundles,
//! registered once by [`init`] (every [`save`] calls it). The SVG files name the font family
//! `sans-serif` and need no font file either.
//!
//! A figure is a value implementing [`Figure`]; [`save`] renders it with both backends:
//!
//! ```no_run
//! use disguise_experiments::plot::{self, LineChart, Point, Series, Style};
//! # fn main() -> anyhow::Result<()> {
//! # let out = std::path::Path::new("results");
//! let chart = LineChart::new("Utility", "k", "f(S)/n")
//!     .series(Series::new("greedy", Style::of(0)).points(vec![Point::new(1.0, 0.5, 0.01)]));
//! plot::save(&chart, &out.join("utility"), &[])?; // utility.png + utility.svg
//! # Ok(())
//! # }
//! ```

// A toolbox shared by every experiment: not each one uses every figure type or option.

use anyhow::{Context, Result, anyhow};
use crisp::CrispText;
use disguise::files::AtomicFile;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The error type of drawing code (any backend's error, boxed).
pub type DrawResult = std::result::Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// The font family every figure uses (registered by [`init`]).
const FONT: &str = "sans-serif";

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

fn render<DB: DrawingBackend>(figure: &impl Figure, root: &DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    figure.draw(root).map_err(|e| anyhow!("{e}"))?;
    root.present().map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

/// A colour-blind-safe palette (Okabe & Ito 2008; black first, yellow left out: it is
/// unreadable on white).
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 0, 0),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
];

/// Neutral grey, e.g. for a random baseline.
pub const GREY: RGBColor = RGBColor(128, 128, 128);

/// A marker drawn at every data point of a line series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// No marker.
    None,
    /// A filled circle.
    Circle,
    /// A hollow circle.
    Ring,
    /// A filled triangle.
    Triangle,
    /// A diagonal cross.
    Cross,
    /// A filled square.
    Square,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Line, marker and band colour.
    pub color: RGBColor,
    /// A dashed instead of a solid line.
    pub dashed: bool,
    /// The point marker.
    pub marker: Marker,
}

impl Style {
    /// The `i`-th palette colour (cycling), solid, with the `i`-th marker (cycling).
    pub fn of(i: usize) -> Self {
        const MARKERS: [Marker; 5] = [
            Marker::Circle,
            Marker::Triangle,
            Marker::Ring,
            Marker::Square,
            Marker::Cross,
        ];
        Self {
            color: PALETTE[i % PALETTE.len()],
            dashed: false,
            marker: MARKERS[i % MARKERS.len()],
        }
    }

    /// This style with a dashed line.
    pub fn dashed(mut self) -> Self {
        self.dashed = true;
        self
    }

    /// This style with another colour.
    pub fn color(mut self, color: RGBColor) -> Self {
        self.color = color;
        self
    }

    /// This style with another marker.
    pub fn marker(mut self, marker: Marker) -> Self {
        self.marker = marker;
        self
    }
}

/// One point of a line series: the value and the half-width of its uncertainty (for example
/// 1.96 standard errors; 0 draws none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Position on the x axis (in data units, also for a log axis).
    pub x: f64,
    /// The value.
    pub y: f64,
    /// Half-width of the uncertainty interval, y ± err.
    pub err: f64,
}

impl Point {
    /// A point with uncertainty half-width `err`.
    pub fn new(x: f64, y: f64, err: f64) -> Self {
        Self { x, y, err }
    }
}

/// A named line of a [`LineChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// How it is drawn.
    pub style: Style,
    /// The points, in x order.
    pub points: Vec<Point>,
}

impl Series {
    /// An empty series.
    pub fn new(name: impl Into<String>, style: Style) -> Self {
        Self {
            name: name.into(),
            style,
            points: Vec::new(),
        }
    }

    /// This series with these points.
    pub fn points(mut self, points: Vec<Point>) -> Self {
        self.points = points;
        self
    }
}

/// How a line chart shows each point's uncertainty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncertainty {
    /// A translucent band between the lower and upper ends.
    Band,
    /// A vertical error bar with caps at every point.
    Bars,
}

/// Where the legend goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legend {
    /// Inside the plot, lower right.
    LowerRight,
    /// Outside the plot, to its right (never hides data; the plot gets narrower).
    Outside,
}

impl Legend {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
            // Placed by the caller, which knows the plot's width.
            Legend::Outside => SeriesLabelPosition::UpperRight,
        }
    }
}

/// Draws a legend box with its top-left corner at `at` (pixels of `root`): one row per
/// series with its line and marker.
fn draw_outside_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    series: &[Series],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let w = legend_width(root, series.iter().map(|s| s.name.clone()))? as i32;
    let row = 24;
    let h = 2 * 10 + row * series.len() as i32;
    let (x0, y0) = at;
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        WHITE.filled(),
    ))?;
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        BLACK.mix(0.4),
    ))?;
    for (i, s) in series.iter().enumerate() {
        let y = y0 + 10 + row * i as i32 + row / 2;
        let (mx, color) = (x0 + 12 + 14, s.style.color);
        let line = color.stroke_width(2);
        if s.style.dashed {
            root.draw(&PathElement::new(vec![(mx - 14, y), (mx - 4, y)], line))?;
            root.draw(&PathElement::new(vec![(mx + 4, y), (mx + 14, y)], line))?;
        } else {
            root.draw(&PathElement::new(vec![(mx - 14, y), (mx + 14, y)], line))?;
        }
        match s.style.marker {
            Marker::None => {}
            Marker::Circle => root.draw(&Circle::new((mx, y), 4, color.filled()))?,
            Marker::Ring => {
                root.draw(&Circle::new((mx, y), 4, WHITE.filled()))?;
                root.draw(&Circle::new((mx, y), 4, color.stroke_width(2)))?;
            }
            Marker::Triangle => root.draw(&TriangleMarker::new((mx, y), 6, color.filled()))?,
            Marker::Cross => root.draw(&Cross::new((mx, y), 5, color.stroke_width(2)))?,
            Marker::Square => root.draw(&Rectangle::new(
                [(mx - 4, y - 4), (mx + 4, y + 4)],
                color.filled(),
            ))?,
        }
        let style = text_style(15).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ));
        root.draw(&Text::new(s.name.clone(), (x0 + 12 + 34, y), style))?;
    }
    Ok(())
}

/// Width in pixels of a legend box holding `labels` (marker area 34 px, margins 12 px).
fn legend_width<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: impl Iterator<Item = String>,
) -> std::result::Result<u32, Box<dyn std::error::Error + Send + Sync>>
where
    DB::ErrorType: 'static,
{
    let mut w = 0;
    for label in labels {
        w = w.max(root.estimate_text_size(&label, &text_style(15))?.0);
    }
    Ok(w + 34 + 2 * 12)
}

/// A line chart of several series with uncertainty bands or bars; optionally a log x axis.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Title above the plot.
    pub title: String,
    /// X axis description.
    pub x_label: String,
    /// Y axis description.
    pub y_label: String,
    /// The lines, drawn in order (the first is on the bottom).
    pub series: Vec<Series>,
    /// Logarithmic x axis (all x must be positive).
    pub log_x: bool,
    /// Fixed y range; `None` fits the data (with the uncertainty) plus 5 %.
    pub y_range: Option<(f64, f64)>,
    /// Tick positions on the x axis; `None`: every distinct x if there are at most 12, else
    /// evenly spaced ticks.
    pub x_ticks: Option<Vec<f64>>,
    /// Bands or bars.
    pub uncertainty: Uncertainty,
    /// Legend position.
    pub legend: Legend,
    /// Image size in pixels.
    pub size: (u32, u32),
}

impl LineChart {
    /// An empty chart, 1100 × 600 pixels, bands, legend outside on the right.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            log_x: false,
            y_range: None,
            x_ticks: None,
            uncertainty: Uncertainty::Band,
            legend: Legend::Outside,
            size: (1100, 600),
        }
    }

    /// Adds a series.
    pub fn series(mut self, series: Series) -> Self {
        self.series.push(series);
        self
    }

    /// Uses a logarithmic x axis.
    pub fn log_x(mut self) -> Self {
        self.log_x = true;
        self
    }

    /// Fixes the y range.
    pub fn y_range(mut self, lo: f64, hi: f64) -> Self {
        self.y_range = Some((lo, hi));
        self
    }

    /// Sets the x tick positions.
    pub fn x_ticks(mut self, ticks: Vec<f64>) -> Self {
        self.x_ticks = Some(ticks);
        self
    }

    /// Chooses bands or bars.
    pub fn uncertainty(mut self, uncertainty: Uncertainty) -> Self {
        self.uncertainty = uncertainty;
        self
    }

    /// x in axis units (log10 for a log axis).
    fn tx(&self, x: f64) -> f64 {
        if self.log_x { x.log10() } else { x }
    }
}

/// A short, readable tick label: up to 4 significant digits, no trailing zeros.
pub fn tick_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return v.to_string();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if !(-4..6).contains(&magnitude) {
        // A power of ten as 10ⁿ (the ticks of a log axis), anything else as m·10ⁿ.
        let mantissa = v / 10f64.powi(magnitude);
        let power = format!("10{}", superscript(magnitude));
        return if (mantissa.abs() - 1.0).abs() < 1e-9 {
            if v < 0.0 {
                format!("−{power}")
            } else {
                power
            }
        } else {
            format!("{}·{power}", tick_label(mantissa))
        };
    }
    let decimals = (3 - magnitude).clamp(0, 8) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// An integer in superscript digits (−12 → ⁻¹²).
fn superscript(n: i32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut out = String::new();
    if n < 0 {
        out.push('⁻');
    }
    for d in n.unsigned_abs().to_string().bytes() {
        out.push(DIGITS[usize::from(d - b'0')]);
    }
    out
}

/// Evenly spaced "nice" ticks (steps of 1, 2 or 5 × 10^m) covering [lo, hi].
pub(crate) fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    // Also catches NaN bounds.
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// [lo, hi] of `values` widened by `pad` of the span on both sides (a unit span if empty
/// or flat).
pub(crate) fn padded(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let half = if lo == 0.0 { 0.5 } else { lo.abs() * 0.05 };
        return (lo - half, hi + half);
    }
    let d = (hi - lo) * pad;
    (lo - d, hi + d)
}

fn title_style(size: u32) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font().style(FontStyle::Bold))
}

fn text_style(size: u32) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
}

/// A linear f64 axis with explicit tick positions (plotters' `with_key_points` loses the
/// f64 tick formatter, so the mesh could not be labelled).
/// A linear axis with explicit tick positions (the ticks outside it are dropped), shared by
/// every figure.
#[derive(Clone)]
pub(crate) struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Axis {
    pub(crate) fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Self {
        let ticks = ticks
            .into_iter()
            .filter(|t| *t >= lo.min(hi) && *t <= hi.max(lo))
            .collect();
        Self { lo, hi, ticks }
    }
}

impl Ranged for Axis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        if self.hi == self.lo {
            return (limit.0 + limit.1) / 2;
        }
        let t = ((v - self.lo) / (self.hi - self.lo)).clamp(-10.0, 10.0);
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl Figure for LineChart {
    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let all = || self.series.iter().flat_map(|s| s.points.iter());
        let xs: Vec<f64> = all().map(|p| self.tx(p.x)).collect();
        let mut distinct = xs.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        let (x_lo, x_hi) = padded(xs.iter().copied(), 0.04);
        let ticks: Vec<f64> = match &self.x_ticks {
            Some(t) => t.iter().map(|&x| self.tx(x)).collect(),
            None if distinct.len() <= 12 => distinct,
            None => nice_ticks(x_lo, x_hi, 8),
        };
        let (y_lo, y_hi) = self
            .y_range
            .unwrap_or_else(|| padded(all().flat_map(|p| [p.y - p.err, p.y + p.err]), 0.05));
        let y_ticks = nice_ticks(y_lo, y_hi, 8);

        let legend_w = if self.legend == Legend::Outside {
            legend_width(root, self.series.iter().map(|s| s.name.clone()))? + 15
        } else {
            0
        };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style(22))
            .margin(18)
            .margin_right(18 + legend_w)
            .x_label_area_size(55)
            .y_label_area_size(75)
            .build_cartesian_2d(Axis::new(x_lo, x_hi, ticks), Axis::new(y_lo, y_hi, y_ticks))?;
        let log = self.log_x;
        let x_fmt = move |v: &f64| tick_label(if log { 10f64.powf(*v) } else { *v });
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&|v| tick_label(*v))
            .label_style(text_style(15))
            .axis_desc_style(text_style(17))
            .bold_line_style(BLACK.mix(0.08))
            .light_line_style(TRANSPARENT)
            .draw()?;

        // Uncertainty first, so that every line is drawn on top of every band.
        for s in &self.series {
            let pts: Vec<(f64, f64, f64)> = s
                .points
                .iter()
                .map(|p| (self.tx(p.x), p.y, p.err))
                .collect();
            if pts.iter().all(|p| p.2 <= 0.0) {
                continue;
            }
            match self.uncertainty {
                Uncertainty::Band => {
                    let mut poly: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1 + p.2)).collect();
                    poly.extend(pts.iter().rev().map(|p| (p.0, p.1 - p.2)));
                    chart.draw_series(std::iter::once(Polygon::new(
                        poly,
                        s.style.color.mix(0.15).filled(),
                    )))?;
                }
                Uncertainty::Bars => {
                    let st = s.style.color.stroke_width(1);
                    for &(x, y, e) in pts.iter().filter(|p| p.2 > 0.0) {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(x, y - e), (x, y + e)],
                            st,
                        )))?;
                        for end in [y - e, y + e] {
                            chart.draw_series(std::iter::once(
                                EmptyElement::at((x, end))
                                    + PathElement::new(vec![(-5, 0), (5, 0)], st),
                            ))?;
                        }
                    }
                }
            }
        }
        for s in &self.series {
            let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (self.tx(p.x), p.y)).collect();
            let color = s.style.color;
            let line = color.stroke_width(2);
            let anno = if s.style.dashed {
                chart.draw_series(DashedLineSeries::new(pts.clone(), 8, 5, line))?
            } else {
                chart.draw_series(LineSeries::new(pts.clone(), line))?
            };
            anno.label(s.name.clone());
            // Legend entries: a line segment with the marker in its middle, drawn relative to
            // the entry's anchor.
            let segment = move |x: i32, y: i32| {
                EmptyElement::at((x, y)) + PathElement::new(vec![(-14, 0), (14, 0)], line)
            };
            match s.style.marker {
                Marker::None => {
                    anno.legend(move |(x, y)| segment(x + 14, y));
                }
                Marker::Circle => {
                    anno.legend(move |(x, y)| {
                        segment(x + 14, y) + Circle::new((0, 0), 4, color.filled())
                    });
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
                }
                Marker::Ring => {
                    anno.legend(move |(x, y)| {
                        segment(x + 14, y)
                            + Circle::new((0, 0), 4, WHITE.filled())
                            + Circle::new((0, 0), 4, color.stroke_width(2))
                    });
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, WHITE.filled())))?;
                    chart.draw_series(
                        pts.iter()
                            .map(|&p| Circle::new(p, 4, color.stroke_width(2))),
                    )?;
                }
                Marker::Triangle => {
                    anno.legend(move |(x, y)| {
                        segment(x + 14, y) + TriangleMarker::new((0, 0), 6, color.filled())
                    });
                    chart.draw_series(
                        pts.iter()
                            .map(|&p| TriangleMarker::new(p, 6, color.filled())),
                    )?;
                }
                Marker::Cross => {
                    anno.legend(move |(x, y)| {
                        segment(x + 14, y) + Cross::new((0, 0), 5, color.stroke_width(2))
                    });
                    chart.draw_series(
                        pts.iter().map(|&p| Cross::new(p, 5, color.stroke_width(2))),
                    )?;
                }
                Marker::Square => {
                    anno.legend(move |(x, y)| {
                        segment(x + 14, y) + Rectangle::new([(-4, -4), (4, 4)], color.filled())
                    });
                    chart.draw_series(pts.iter().map(|&p| {
                        EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], color.filled())
                    }))?;
                }
            }
        }
        if self.legend == Legend::Outside {
            let (xs, ys) = chart.plotting_area().get_pixel_range();
            return draw_outside_legend(root, (xs.end + 15, ys.start), &self.series);
        }
        chart
            .configure_series_labels()
            .position(self.legend.position())
            .margin(12)
            .legend_area_size(34)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.4))
            .label_font(text_style(15))
            .draw()?;
        Ok(())
    }
}

/// One group of bars in a [`BarChart`]: one value per category.
#[derive(Debug, Clone, PartialEq)]
pub struct BarSeries {
    /// The legend entry.
    pub name: String,
    /// The bar colour.
    pub color: RGBColor,
    /// One value per category.
    pub values: Vec<f64>,
    /// Optional error-bar half-widths, one per category.
    pub errors: Option<Vec<f64>>,
}

/// A grouped horizontal bar chart: categories top to bottom, one bar per series in each.
/// Horizontal, so that long category names stay readable.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// Title above the plot.
    pub title: String,
    /// Description of the value axis.
    pub value_label: String,
    /// Category names, drawn top to bottom.
    pub categories: Vec<String>,
    /// The series.
    pub series: Vec<BarSeries>,
    /// Fixed value range; `None`: from min(0, data) to the largest value plus 5 %.
    pub value_range: Option<(f64, f64)>,
    /// Legend position.
    pub legend: Legend,
    /// Image width in pixels (the height follows from the number of bars).
    pub width: u32,
}

impl BarChart {
    /// An empty chart, 1000 pixels wide, legend lower right.
    pub fn new(
        title: impl Into<String>,
        value_label: impl Into<String>,
        categories: Vec<String>,
    ) -> Self {
        Self {
            title: title.into(),
            value_label: value_label.into(),
            categories,
            series: Vec::new(),
            value_range: None,
            legend: Legend::LowerRight,
            width: 1000,
        }
    }

    /// Adds a series of bars (one value per category).
    pub fn series(mut self, name: impl Into<String>, color: RGBColor, values: Vec<f64>) -> Self {
        self.series.push(BarSeries {
            name: name.into(),
            color,
            values,
            errors: None,
        });
        self
    }

    /// Fixes the value range.
    pub fn value_range(mut self, lo: f64, hi: f64) -> Self {
        self.value_range = Some((lo, hi));
        self
    }

    fn bar_height(&self) -> u32 {
        if self.series.len() > 3 { 7 } else { 10 }
    }
}

impl Figure for BarChart {
    fn size(&self) -> (u32, u32) {
        let per_category = self.bar_height() * self.series.len().max(1) as u32 + 10;
        (
            self.width,
            (150 + per_category * self.categories.len() as u32).max(300),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let n = self.categories.len();
        let label_font = text_style(15);
        let mut label_width = 40;
        for c in &self.categories {
            label_width = label_width.max(root.estimate_text_size(c, &label_font)?.0 + 20);
        }
        let (lo, hi) = self.value_range.unwrap_or_else(|| {
            let values = self.series.iter().flat_map(|s| {
                s.values.iter().enumerate().map(move |(i, v)| {
                    v + s
                        .errors
                        .as_ref()
                        .and_then(|e| e.get(i))
                        .copied()
                        .unwrap_or(0.0)
                })
            });
            let (lo, hi) = padded(values.chain([0.0]), 0.0);
            (lo.min(0.0), hi + 0.05 * (hi - lo))
        });
        let centers: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let names = self.categories.clone();
        // Category i is drawn at y ∈ [n − 1 − i, n − i]: the first one on top.
        let label_of = move |y: &f64| -> String {
            let i = (n as f64 - y).floor();
            if i >= 0.0 && (i as usize) < n {
                names[i as usize].clone()
            } else {
                String::new()
            }
        };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style(22))
            .margin(18)
            .x_label_area_size(55)
            .y_label_area_size(label_width)
            .build_cartesian_2d(
                Axis::new(lo, hi, nice_ticks(lo, hi, 8)),
                Axis::new(0.0, n as f64, centers),
            )?;
        chart
            .configure_mesh()
            .x_desc(&self.value_label)
            .x_label_formatter(&|v| tick_label(*v))
            .y_label_formatter(&label_of)
            .label_style(label_font.clone())
            .axis_desc_style(text_style(17))
            .bold_line_style(BLACK.mix(0.08))
            .light_line_style(TRANSPARENT)
            .disable_y_mesh()
            .draw()?;
        let groups = self.series.len().max(1) as f64;
        let slot = 0.84 / groups;
        for (g, s) in self.series.iter().enumerate() {
            let color = s.color;
            let bars = s.values.iter().enumerate().map(move |(i, &v)| {
                let top = (n - 1 - i) as f64 + 0.92 - g as f64 * slot;
                Rectangle::new(
                    [(0.0f64.max(lo), top - slot * 0.9), (v, top)],
                    color.filled(),
                )
            });
            chart
                .draw_series(bars)?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 22, y + 6)], color.filled())
                });
            if let Some(errors) = &s.errors {
                for (i, (&v, &e)) in s.values.iter().zip(errors).enumerate() {
                    if e > 0.0 {
                        let mid = (n - 1 - i) as f64 + 0.92 - g as f64 * slot - slot * 0.45;
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(v - e, mid), (v + e, mid)],
                            BLACK.stroke_width(1),
                        )))?;
                    }
                }
            }
        }
        if self.series.len() > 1 {
            chart
                .configure_series_labels()
                .position(self.legend.position())
                .margin(12)
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.4))
                .label_font(text_style(15))
                .draw()?;
        }
        Ok(())
    }
}

/// A labelled point to highlight on a [`Map`] panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    /// Position `[x, y]` (for geography: `[lon, lat]`).
    pub at: [f64; 2],
    /// The label drawn next to it.
    pub label: String,
}

/// One panel of a [`Map`]: its title, its highlighted picks and optional candidate
/// weights.
#[derive(Debug, Clone, PartialEq)]
pub struct MapPanel {
    /// Title above the panel; each `\n` starts a new (smaller) line.
    pub title: String,
    /// The highlighted picks, each numbered and labelled.
    pub picks: Vec<Pick>,
    /// One weight in [0, 1] per candidate (e.g. how often it was chosen), drawn as orange
    /// discs whose area is proportional to the weight; `None` draws none.
    pub weights: Option<Vec<f64>>,
}

/// Side-by-side maps of the same data: a density of `points` (translucent dots), all
/// `candidates` (small grey rings) and, per panel, the picks as numbered red markers with
/// labels placed so that they do not overlap each other.
///
/// Coordinates are `[x, y]`; for geography pass `[lon, lat]` and set
/// [`Map::aspect`] to cos(latitude) so that distances look right.
#[derive(Debug, Clone, PartialEq)]
pub struct Map {
    /// Title above all panels.
    pub title: String,
    /// The background points (e.g. pickups), `[x, y]`.
    pub points: Vec<[f64; 2]>,
    /// The candidates, `[x, y]`.
    pub candidates: Vec<[f64; 2]>,
    /// The panels, left to right.
    pub panels: Vec<MapPanel>,
    /// Horizontal stretch of one x unit relative to one y unit (cos(lat) for lon/lat).
    pub aspect: f64,
    /// Height of the plotting area of a panel in pixels.
    pub panel_height: u32,
    /// Axis descriptions (x, y).
    pub axis_labels: (String, String),
}

impl Map {
    /// A map of `points` and `candidates` with no panels yet; 900 pixels high.
    pub fn new(title: impl Into<String>, points: Vec<[f64; 2]>, candidates: Vec<[f64; 2]>) -> Self {
        Self {
            title: title.into(),
            points,
            candidates,
            panels: Vec::new(),
            aspect: 1.0,
            panel_height: 900,
            axis_labels: ("x".into(), "y".into()),
        }
    }

    /// A map in longitude/latitude: points are `[lon, lat]`, the aspect is cos(mean latitude).
    pub fn geographic(
        title: impl Into<String>,
        points: Vec<[f64; 2]>,
        candidates: Vec<[f64; 2]>,
    ) -> Self {
        let mut map = Self::new(title, points, candidates);
        let (lo, hi) = map.extent();
        map.aspect = ((lo[1] + hi[1]) / 2.0).to_radians().cos();
        map.axis_labels = ("longitude".into(), "latitude".into());
        map
    }

    /// Adds a panel.
    pub fn panel(mut self, title: impl Into<String>, picks: Vec<Pick>) -> Self {
        self.panels.push(MapPanel {
            title: title.into(),
            picks,
            weights: None,
        });
        self
    }

    /// Adds a panel with one weight in [0, 1] per candidate (see [`MapPanel::weights`]).
    pub fn weighted_panel(
        mut self,
        title: impl Into<String>,
        picks: Vec<Pick>,
        weights: Vec<f64>,
    ) -> Self {
        self.panels.push(MapPanel {
            title: title.into(),
            picks,
            weights: Some(weights),
        });
        self
    }

    /// Bounding box of points, candidates and picks, with 3 % padding.
    fn extent(&self) -> ([f64; 2], [f64; 2]) {
        let all = || {
            self.points.iter().chain(&self.candidates).chain(
                self.panels
                    .iter()
                    .flat_map(|p| p.picks.iter().map(|k| &k.at)),
            )
        };
        let (x0, x1) = padded(all().map(|p| p[0]), 0.03);
        let (y0, y1) = padded(all().map(|p| p[1]), 0.03);
        ([x0, y0], [x1, y1])
    }

    /// Width of one panel's plotting area for the aspect ratio.
    fn panel_width(&self) -> u32 {
        let (lo, hi) = self.extent();
        let ratio = (hi[0] - lo[0]) * self.aspect / (hi[1] - lo[1]);
        ((self.panel_height as f64 * ratio).round() as u32).clamp(200, 2000)
    }
}

/// Label area sizes of a map panel.
const MAP_LEFT: u32 = 70;
const MAP_BOTTOM: u32 = 50;
const MAP_CAPTION: u32 = 40;
const MAP_MARGIN: u32 = 12;

impl Figure for Map {
    fn size(&self) -> (u32, u32) {
        let panels = self.panels.len().max(1) as u32;
        let w = (self.panel_width() + MAP_LEFT + 2 * MAP_MARGIN) * panels;
        let lines = self
            .panels
            .iter()
            .map(|p| p.title.lines().count() as u32)
            .max()
            .unwrap_or(1)
            .max(1);
        let h = self.panel_height + MAP_BOTTOM + MAP_CAPTION * lines + 2 * MAP_MARGIN + 45;
        (w, h)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let root = root.titled(&self.title, title_style(24))?;
        let (lo, hi) = self.extent();
        let panels = if self.panels.is_empty() {
            vec![MapPanel {
                title: String::new(),
                picks: Vec::new(),
                weights: None,
            }]
        } else {
            self.panels.clone()
        };
        let areas = root.split_evenly((1, panels.len()));
        let label_font = text_style(14);
        let max_lines = panels
            .iter()
            .map(|p| p.title.lines().count())
            .max()
            .unwrap_or(0);
        for (area, panel) in areas.iter().zip(&panels) {
            // Title lines (the first bold), padded so that all panels line up.
            let mut area = area.clone();
            let mut lines: Vec<&str> = panel.title.lines().collect();
            lines.resize(max_lines, "");
            for (i, line) in lines.iter().enumerate() {
                let style = if i == 0 {
                    title_style(17)
                } else {
                    text_style(15)
                };
                area = area.titled(line, style)?;
            }
            let area = &area;
            let mut chart = ChartBuilder::on(area)
                .margin(MAP_MARGIN)
                .x_label_area_size(MAP_BOTTOM)
                .y_label_area_size(MAP_LEFT)
                .build_cartesian_2d(
                    Axis::new(lo[0], hi[0], nice_ticks(lo[0], hi[0], 3)),
                    Axis::new(lo[1], hi[1], nice_ticks(lo[1], hi[1], 8)),
                )?;
            chart
                .configure_mesh()
                .x_desc(&self.axis_labels.0)
                .y_desc(&self.axis_labels.1)
                .x_label_formatter(&|v| tick_label(*v))
                .y_label_formatter(&|v| tick_label(*v))
                .label_style(text_style(13))
                .axis_desc_style(text_style(15))
                .bold_line_style(BLACK.mix(0.06))
                .light_line_style(TRANSPARENT)
                .draw()?;
            let density = RGBColor(0, 90, 160).mix(0.12).filled();
            chart.draw_series(
                self.points
                    .iter()
                    .map(|p| Circle::new((p[0], p[1]), 2, density)),
            )?;
            if let Some(weights) = &panel.weights {
                let disc = RGBColor(230, 120, 0);
                chart.draw_series(
                    self.candidates
                        .iter()
                        .zip(weights)
                        .filter(|(_, w)| **w > 0.0)
                        .map(|(c, w)| {
                            let r = (30.0 * w.clamp(0.0, 1.0).sqrt()).max(2.0) as i32;
                            Circle::new((c[0], c[1]), r, disc.mix(0.45).filled())
                        }),
                )?;
            }
            chart.draw_series(
                self.candidates
                    .iter()
                    .map(|c| Circle::new((c[0], c[1]), 4, RGBColor(90, 90, 90).stroke_width(1))),
            )?;

            // Labels: try a few offsets around each pick and keep the first that overlaps no
            // label or marker placed so far (and stays inside the plot).
            let plot = chart.plotting_area().get_pixel_range();
            let marker_r = 9;
            let mut taken: Vec<(i32, i32, i32, i32)> = panel
                .picks
                .iter()
                .map(|p| {
                    let (x, y) = chart.backend_coord(&(p.at[0], p.at[1]));
                    (x - marker_r, y - marker_r, x + marker_r, y + marker_r)
                })
                .collect();
            for (i, pick) in panel.picks.iter().enumerate() {
                let text = format!("{}. {}", i + 1, pick.label);
                let (tw, th) = area.estimate_text_size(&text, &label_font)?;
                let (w, h) = (tw as i32 + 8, th as i32 + 6);
                let (px, py) = chart.backend_coord(&(pick.at[0], pick.at[1]));
                let offsets = [
                    (marker_r + 4, -h / 2),
                    (-marker_r - 4 - w, -h / 2),
                    (marker_r + 2, -marker_r - h),
                    (marker_r + 2, marker_r),
                    (-marker_r - 2 - w, -marker_r - h),
                    (-marker_r - 2 - w, marker_r),
                    (-w / 2, -marker_r - h - 2),
                    (-w / 2, marker_r + 2),
                    (marker_r + 4, -h / 2 - h - 4),
                    (marker_r + 4, h / 2 + 4),
                    (-marker_r - 4 - w, -h / 2 - h - 4),
                    (-marker_r - 4 - w, h / 2 + 4),
                ];
                let fits = |(dx, dy): (i32, i32)| {
                    let r = (px + dx, py + dy, px + dx + w, py + dy + h);
                    let inside = r.0 >= plot.0.start
                        && r.2 <= plot.0.end
                        && r.1 >= plot.1.start
                        && r.3 <= plot.1.end;
                    let free = taken
                        .iter()
                        .all(|t| r.2 <= t.0 || r.0 >= t.2 || r.3 <= t.1 || r.1 >= t.3);
                    inside && free
                };
                let (dx, dy) = offsets
                    .iter()
                    .copied()
                    .find(|&o| fits(o))
                    .unwrap_or(offsets[0]);
                taken.push((px + dx, py + dy, px + dx + w, py + dy + h));
                chart.draw_series(std::iter::once(
                    EmptyElement::at((pick.at[0], pick.at[1]))
                        + Rectangle::new([(dx, dy), (dx + w, dy + h)], WHITE.mix(0.85).filled())
                        + Rectangle::new(
                            [(dx, dy), (dx + w, dy + h)],
                            RGBColor(200, 30, 30).stroke_width(1),
                        )
                        + Text::new(text, (dx + 4, dy + 3), label_font.clone()),
                ))?;
            }
            for (i, pick) in panel.picks.iter().enumerate() {
                let number = format!("{}", i + 1);
                let (tw, th) = area.estimate_text_size(&number, &text_style(12))?;
                chart.draw_series(std::iter::once(
                    EmptyElement::at((pick.at[0], pick.at[1]))
                        + Circle::new((0, 0), marker_r, RGBColor(200, 30, 30).filled())
                        + Circle::new((0, 0), marker_r, WHITE.stroke_width(2))
                        + Text::new(
                            number,
                            (-(tw as i32) / 2, -(th as i32) / 2),
                            (FONT, 12).into_font().style(FontStyle::Bold).color(&WHITE),
                        ),
                ))?;
            }
        }
        Ok(())
    }
}

/// One box of a [`BoxPlot`].
#[derive(Debug, Clone, PartialEq)]
pub struct BoxGroup {
    /// The label under the box (wrapped at spaces if long).
    pub label: String,
    /// The sample.
    pub values: Vec<f64>,
    /// The box colour.
    pub color: RGBColor,
}

/// Box-and-whisker plots side by side: the box spans the quartiles, the thick line is the
/// median, whiskers reach the most extreme values within 1.5 IQR of the box, points beyond
/// are drawn individually, and a white diamond marks the mean.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxPlot {
    /// Title above the plot.
    pub title: String,
    /// Description of the value axis.
    pub y_label: String,
    /// The boxes, left to right.
    pub groups: Vec<BoxGroup>,
    /// Fixed value range; `None` fits the data plus 5 %.
    pub y_range: Option<(f64, f64)>,
    /// Image size in pixels.
    pub size: (u32, u32),
}

impl BoxPlot {
    /// An empty box plot, 900 × 600 pixels.
    pub fn new(title: impl Into<String>, y_label: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            y_label: y_label.into(),
            groups: Vec::new(),
            y_range: None,
            size: (900, 600),
        }
    }

    /// Adds a box.
    pub fn group(mut self, label: impl Into<String>, color: RGBColor, values: Vec<f64>) -> Self {
        self.groups.push(BoxGroup {
            label: label.into(),
            values,
            color,
        });
        self
    }
}

/// Five-number summary for a box plot: (whisker low, q1, median, q3, whisker high) and the
/// outliers. Quartiles by linear interpolation (type 7). `None` for an empty or non-finite
/// sample.
pub fn box_stats(values: &[f64]) -> Option<([f64; 5], Vec<f64>)> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let q = |p: f64| disguise::numeric::stats::quantile(&v, p);
    let (q1, med, q3) = (q(0.25), q(0.5), q(0.75));
    let iqr = q3 - q1;
    let (lo_fence, hi_fence) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
    let lo = v.iter().copied().find(|&x| x >= lo_fence).unwrap_or(q1);
    let hi = v
        .iter()
        .rev()
        .copied()
        .find(|&x| x <= hi_fence)
        .unwrap_or(q3);
    let outliers = v.iter().copied().filter(|&x| x < lo || x > hi).collect();
    Some(([lo, q1, med, q3, hi], outliers))
}

/// Splits a label into lines of at most about `width` characters at spaces.
fn wrap(label: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in label.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

impl Figure for BoxPlot {
    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let n = self.groups.len().max(1);
        let stats: Vec<Option<([f64; 5], Vec<f64>)>> =
            self.groups.iter().map(|g| box_stats(&g.values)).collect();
        let (y_lo, y_hi) = self.y_range.unwrap_or_else(|| {
            padded(
                self.groups.iter().flat_map(|g| g.values.iter().copied()),
                0.05,
            )
        });
        let slot_px = (self.size.0 as usize).saturating_sub(120) / n;
        let wrap_width = (slot_px / 9).max(6);
        let wrapped: Vec<Vec<String>> = self
            .groups
            .iter()
            .map(|g| wrap(&g.label, wrap_width))
            .collect();
        let lines = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1) as u32;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style(22))
            .margin(18)
            .x_label_area_size(20 + 18 * lines)
            .y_label_area_size(75)
            .build_cartesian_2d(
                Axis::new(0.0, n as f64, Vec::new()),
                Axis::new(y_lo, y_hi, nice_ticks(y_lo, y_hi, 8)),
            )?;
        chart
            .configure_mesh()
            .y_desc(&self.y_label)
            .y_label_formatter(&|v| tick_label(*v))
            .label_style(text_style(15))
            .axis_desc_style(text_style(17))
            .bold_line_style(BLACK.mix(0.08))
            .light_line_style(TRANSPARENT)
            .disable_x_mesh()
            .draw()?;
        for (i, (g, s)) in self.groups.iter().zip(&stats).enumerate() {
            let c = i as f64 + 0.5;
            let half = 0.3;
            if let Some(([lo, q1, med, q3, hi], outliers)) = s {
                let st = g.color.stroke_width(2);
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(c - half, *q1), (c + half, *q3)],
                    g.color.mix(0.25).filled(),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(c - half, *q1), (c + half, *q3)],
                    st,
                )))?;
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(c - half, *med), (c + half, *med)],
                    g.color.stroke_width(4),
                )))?;
                for (from, to) in [(*q1, *lo), (*q3, *hi)] {
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(c, from), (c, to)],
                        st,
                    )))?;
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(c - half / 2.0, to), (c + half / 2.0, to)],
                        st,
                    )))?;
                }
                chart.draw_series(
                    outliers
                        .iter()
                        .map(|&y| Circle::new((c, y), 3, g.color.stroke_width(1))),
                )?;
                let mean = g.values.iter().sum::<f64>() / g.values.len() as f64;
                chart.draw_series(std::iter::once(
                    EmptyElement::at((c, mean))
                        + Polygon::new(vec![(0, -5), (5, 0), (0, 5), (-5, 0)], WHITE.filled())
                        + PathElement::new(
                            vec![(0, -5), (5, 0), (0, 5), (-5, 0), (0, -5)],
                            BLACK.stroke_width(1),
                        ),
                ))?;
            }
        }
        // Category labels under the axis, centred and wrapped. `backend_coord` is in the
        // backend's pixels, `root.draw` in the area's: subtract the area's origin, which is
        // not (0, 0) when the plot is one panel of a larger figure.
        let font = text_style(15);
        let (bx, by) = root.get_base_pixel();
        for (i, lines) in wrapped.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64 + 0.5, y_lo));
            let (x, y) = (x - bx, y - by);
            for (j, line) in lines.iter().enumerate() {
                let (tw, _) = root.estimate_text_size(line, &font)?;
                root.draw(&Text::new(
                    line.clone(),
                    (x - tw as i32 / 2, y + 8 + 18 * j as i32),
                    font.clone(),
                ))?;
            }
        }
        Ok(())
    }
}

/// The text fix for the bitmap backend (its own module: the backend traits it implements
/// would make `stroke_width` ambiguous in the drawing code).
mod crisp {
    use plotters::prelude::DrawingBackend;
    use plotters_backend::{
        BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
    };

    /// A bitmap backend whose text is laid out correctly.
    ///
    /// plotters' `ab_glyph` text renderer drops each glyph's left side bearing, so letters sit
    /// unevenly ("0 .2", "a long" drawn as "along"). This wrapper delegates everything to the
    /// inner backend except text, which it rasterises itself with the same font, size, advance
    /// widths and anchor rules (so the layout sizes plotters estimates stay right).
    pub(super) struct CrispText<B> {
        inner: B,
        regular: ab_glyph::FontRef<'static>,
        bold: ab_glyph::FontRef<'static>,
    }

    impl<B> CrispText<B> {
        pub(super) fn new(inner: B) -> Self {
            // The bundled fonts parse (checked by `init`, which `save` calls first).
            let load =
                |bytes| ab_glyph::FontRef::try_from_slice(bytes).expect("bundled DejaVu Sans");
            Self {
                inner,
                regular: load(dejavu::sans::regular()),
                bold: load(dejavu::sans::bold()),
            }
        }
    }

    impl<B: DrawingBackend> DrawingBackend for CrispText<B> {
        type ErrorType = B::ErrorType;

        fn get_size(&self) -> (u32, u32) {
            self.inner.get_size()
        }

        fn ensure_prepared(&mut self) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.ensure_prepared()
        }

        fn present(&mut self) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.present()
        }

        fn draw_pixel(
            &mut self,
            point: BackendCoord,
            color: BackendColor,
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.draw_pixel(point, color)
        }

        fn draw_line<S: BackendStyle>(
            &mut self,
            from: BackendCoord,
            to: BackendCoord,
            style: &S,
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.draw_line(from, to, style)
        }

        fn draw_rect<S: BackendStyle>(
            &mut self,
            upper_left: BackendCoord,
            bottom_right: BackendCoord,
            style: &S,
            fill: bool,
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.draw_rect(upper_left, bottom_right, style, fill)
        }

        fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
            &mut self,
            path: I,
            style: &S,
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.draw_path(path, style)
        }

        fn draw_circle<S: BackendStyle>(
            &mut self,
            center: BackendCoord,
            radius: u32,
            style: &S,
            fill: bool,
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.draw_circle(center, radius, style, fill)
        }

        fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
            &mut self,
            vert: I,
            style: &S,
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.fill_polygon(vert, style)
        }

        fn blit_bitmap(
            &mut self,
            pos: BackendCoord,
            size: (u32, u32),
            src: &[u8],
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            self.inner.blit_bitmap(pos, size, src)
        }

        fn draw_text<S: BackendTextStyle>(
            &mut self,
            text: &str,
            style: &S,
            pos: BackendCoord,
        ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
            use ab_glyph::{Font, ScaleFont};
            let color = style.color();
            if color.alpha == 0.0 {
                return Ok(());
            }
            let font = match style.style() {
                plotters_backend::FontStyle::Bold => &self.bold,
                _ => &self.regular,
            };
            // The same scale, advances and box height as plotters' layout estimate.
            let size = style.size();
            let scaled = font.as_scaled(size as f32);
            let mut caret = 0.0f32;
            let mut prev = None;
            let mut glyphs = Vec::with_capacity(text.len());
            for c in text.chars() {
                let id = scaled.glyph_id(c);
                if let Some(p) = prev {
                    caret += scaled.kern(p, id);
                }
                glyphs.push(id.with_scale_and_position(
                    scaled.scale(),
                    ab_glyph::point(caret, scaled.ascent()),
                ));
                caret += scaled.h_advance(id);
                prev = Some(id);
            }
            let (width, height) = (caret as i32, (size / 1.24) as i32);
            let anchor = style.anchor();
            let dx = match anchor.h_pos {
                plotters_backend::text_anchor::HPos::Left => 0,
                plotters_backend::text_anchor::HPos::Right => -width,
                plotters_backend::text_anchor::HPos::Center => -width / 2,
            };
            let dy = match anchor.v_pos {
                plotters_backend::text_anchor::VPos::Top => 0,
                plotters_backend::text_anchor::VPos::Center => -height / 2,
                plotters_backend::text_anchor::VPos::Bottom => -height,
            };
            let transform = style.transform();
            let (w, h) = self.get_size();
            let mut pixels = Vec::new();
            for glyph in glyphs {
                if let Some(outline) = font.outline_glyph(glyph) {
                    let bounds = outline.px_bounds();
                    let (x0, y0) = (bounds.min.x as i32, bounds.min.y as i32);
                    outline.draw(|x, y, coverage| {
                        if coverage > 0.0 {
                            pixels.push((x0 + x as i32 + dx, y0 + y as i32 + dy, coverage));
                        }
                    });
                }
            }
            for (x, y, coverage) in pixels {
                let (x, y) = transform.transform(x, y);
                let (x, y) = (pos.0 + x, pos.1 + y);
                if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                    let alpha = color.alpha * f64::from(coverage.min(1.0));
                    self.inner.draw_pixel(
                        (x, y),
                        BackendColor {
                            alpha,
                            rgb: color.rgb,
                        },
                    )?;
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ticks_are_nice() {
        let ticks = nice_ticks(0.0, 1.0, 5);
        let want = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
        assert_eq!(ticks.len(), want.len(), "{ticks:?}");
        assert!(
            ticks.iter().zip(want).all(|(t, w)| (t - w).abs() < 1e-12),
            "{ticks:?}"
        );
        let (lo, hi) = padded([0.5, 1.0].into_iter(), 0.1);
        assert!((lo - 0.45).abs() < 1e-12 && (hi - 1.05).abs() < 1e-12);
    }

    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("disguise-plot-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A PNG starts with its 8-byte signature and has the requested size in its IHDR chunk.
    fn png_size(path: &Path) -> (u32, u32) {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
        (be(16), be(20))
    }

    #[test]
    fn line_chart_writes_png_and_svg_with_text() {
        let chart = LineChart::new("Utility vs k", "k", "f(S)/n")
            .series(
                Series::new("greedy", Style::of(0)).points(
                    (1..=5)
                        .map(|k| Point::new(k as f64, 1.0 - 1.0 / k as f64, 0.02))
                        .collect(),
                ),
            )
            .series(
                Series::new("random", Style::of(1).dashed()).points(
                    (1..=5)
                        .map(|k| Point::new(k as f64, 0.5 - 0.5 / k as f64, 0.05))
                        .collect(),
                ),
            );
        let [png, svg] = save(&chart, &dir("line").join("fig.k1"), &[]).unwrap();
        assert!(png.ends_with("fig.k1.png"));
        assert_eq!(png_size(&png), (1100, 600));
        let text = std::fs::read_to_string(svg).unwrap();
        for label in ["Utility vs k", "greedy", "random", "f(S)/n"] {
            assert!(text.contains(label), "{label} missing from the SVG");
        }
        let _ = std::fs::remove_dir_all(png.parent().unwrap());
    }

    #[test]
    fn log_axis_bars_map_and_box_plot_render() {
        let d = dir("all");
        let chart = LineChart::new("vs ε", "ε", "utility")
            .log_x()
            .uncertainty(Uncertainty::Bars)
            .series(
                Series::new("em", Style::of(2)).points(
                    [0.01, 0.1, 1.0]
                        .iter()
                        .map(|&e| Point::new(e, e, 0.01))
                        .collect(),
                ),
            );
        save(&chart, &d.join("log"), &[]).unwrap();
        let svg = std::fs::read_to_string(d.join("log.svg")).unwrap();
        // Ticks are labelled in data units, not log10 units.
        let texts: Vec<&str> = svg.lines().map(str::trim).collect();
        assert!(
            texts.contains(&"0.01") && texts.contains(&"0.1"),
            "log ticks missing"
        );
        assert!(
            !texts.contains(&"-2"),
            "ticks must be in data units, not log10"
        );

        let bars = BarChart::new(
            "How often",
            "fraction",
            vec!["a long name".into(), "b".into()],
        )
        .series("x", PALETTE[1], vec![0.5, 0.25])
        .series("y", PALETTE[2], vec![0.1, 0.9]);
        let (w, h) = bars.size();
        let [png, _] = save(&bars, &d.join("bars"), &[]).unwrap();
        assert_eq!(png_size(&png), (w, h));

        let map = Map::geographic(
            "Map",
            vec![[-73.98, 40.75], [-73.97, 40.76], [-74.0, 40.71]],
            vec![[-73.985, 40.748], [-74.01, 40.70]],
        )
        .panel(
            "one",
            vec![Pick {
                at: [-73.985, 40.748],
                label: "Empire State Building".into(),
            }],
        )
        .panel("two", vec![]);
        let [_, svg] = save(&map, &d.join("map"), &[]).unwrap();
        assert!(
            std::fs::read_to_string(svg)
                .unwrap()
                .contains("1. Empire State Building")
        );

        let bp = BoxPlot::new("AUC", "AUC")
            .group(
                "private ERM with a long label",
                PALETTE[1],
                vec![0.6, 0.7, 0.8, 0.75, 0.2],
            )
            .group("histogram", PALETTE[2], vec![0.8, 0.82, 0.85]);
        save(&bp, &d.join("box"), &[]).unwrap();
        assert!(
            std::fs::read_to_string(d.join("box.svg"))
                .unwrap()
                .contains("histogram")
        );
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn box_stats_match_hand_computed_quartiles() {
        // 1..=9 plus an outlier at 100: q1 = 3.25, median = 5.5, q3 = 7.75 (type 7), upper
        // fence 7.75 + 1.5·4.5 = 14.5, so the whisker ends at 9 and 100 is an outlier.
        let mut v: Vec<f64> = (1..=9).map(f64::from).collect();
        v.push(100.0);
        let ([lo, q1, med, q3, hi], out) = box_stats(&v).unwrap();
        assert_eq!((lo, q1, med, q3, hi), (1.0, 3.25, 5.5, 7.75, 9.0));
        assert_eq!(out, vec![100.0]);
        assert!(box_stats(&[]).is_none());
        assert!(box_stats(&[f64::NAN]).is_none());
    }

    #[test]
    fn ticks_and_labels_are_readable() {
        let ticks: Vec<String> = nice_ticks(0.0, 1.0, 5)
            .into_iter()
            .map(tick_label)
            .collect();
        assert_eq!(ticks, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(tick_label(0.30000000000000004), "0.3");
        assert_eq!(tick_label(0.01), "0.01");
        assert_eq!(tick_label(10.0), "10");
        assert_eq!(tick_label(-73.95), "-73.95");
        // Powers of ten as 10ⁿ, not 1.0e50.
        assert_eq!(tick_label(1e50), "10⁵⁰");
        assert_eq!(tick_label(1e-7), "10⁻⁷");
        assert_eq!(tick_label(2.5e8), "2.5·10⁸");
        assert_eq!(
            wrap("a long label here", 7),
            vec!["a long", "label", "here"]
        );
    }
}
