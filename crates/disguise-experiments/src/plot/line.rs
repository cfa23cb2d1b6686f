//! Line charts ([`LineChart`]): named [`Series`] of [`Point`]s with their uncertainty drawn
//! as bands or error bars, optionally on a log x axis.

use super::axis::{Axis, nice_ticks, padded, tick_label};
use super::backend::{DrawResult, Figure, text_style, title_style};
use super::legend::{Legend, draw_outside_legend, legend_width};
use super::style::{Marker, Style};
use plotters::coord::Shift;
use plotters::prelude::*;

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
            legend_width(root, self.series.iter().map(|s| s.name.as_str()))? + 15
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
            let entries: Vec<(&str, Style)> = self
                .series
                .iter()
                .map(|s| (s.name.as_str(), s.style))
                .collect();
            return draw_outside_legend(root, (xs.end + 15, ys.start), &entries);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::backend::save;
    use crate::plot::test_support::*;

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
}
