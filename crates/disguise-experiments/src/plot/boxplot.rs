//! Box plots ([`BoxPlot`]): one box-and-whisker [`BoxGroup`] per sample, from the
//! five-number summary of [`box_stats`].

use super::axis::{Axis, nice_ticks, padded, tick_label};
use super::backend::{DrawResult, Figure, text_style, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;

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
pub(super) fn wrap(label: &str, width: usize) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
