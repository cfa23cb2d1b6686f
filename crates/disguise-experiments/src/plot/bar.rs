//! Grouped horizontal bar charts ([`BarChart`]): categories top to bottom, one bar per
//! [`BarSeries`] in each.

use super::axis::{Axis, nice_ticks, padded, tick_label};
use super::backend::{DrawResult, Figure, text_style, title_style};
use super::legend::Legend;
use plotters::coord::Shift;
use plotters::prelude::*;

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
