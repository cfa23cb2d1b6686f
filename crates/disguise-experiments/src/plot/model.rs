//! [`ModelFigure`]: a synthesizer's model and its measurements at a glance — the graph of
//! the columns with each measured marginal drawn between its columns, and for each measured
//! marginal its noisy counts against the synthetic table's on the same cells. Everything
//! drawn is released (`synth --report`).

use super::backend::{DrawResult, Figure, text_style, title_style};
use super::style::PALETTE;
use plotters::coord::Shift;
use plotters::prelude::*;

/// How many comparison panels a row holds.
const PANELS_PER_ROW: usize = 4;
/// A panel's side in pixels.
const PANEL: u32 = 230;
/// The graph's side in pixels.
const GRAPH: u32 = 520;

/// The figure of a synthetic-data release: the columns' graph with every measured marginal
/// between its columns, and each measured marginal's noisy counts against the synthetic
/// table's (all released values).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFigure {
    /// The title.
    pub title: String,
    /// Every column name, in order.
    pub columns: Vec<String>,
    /// The measured marginals of two or more columns: their columns (indices into
    /// `columns`), the noisy counts as fractions of n and the synthetic table's as
    /// fractions of its rows.
    pub marginals: Vec<(Vec<usize>, Vec<f64>, Vec<f64>)>,
}

impl ModelFigure {
    /// The figure of a synthetic-data `release` and its `compared` marginals (the noisy
    /// counts measured and the synthetic table's on the same cells): released values only.
    pub fn of(
        release: &disguise::task::SynthRelease,
        compared: &[disguise::task::Comparison],
    ) -> Self {
        let index = |name: &String| release.names.iter().position(|n| n == name).unwrap_or(0);
        let share = |v: &[f64], total: u64| -> Vec<f64> {
            v.iter().map(|x| x / total.max(1) as f64).collect()
        };
        let marginal = |c: &disguise::task::Comparison| {
            let synthetic: Vec<f64> = c.synthetic.iter().map(|&x| x as f64).collect();
            let columns = c.columns.iter().map(index).collect();
            (
                columns,
                share(&c.measured, c.records),
                share(&synthetic, c.rows),
            )
        };
        let method = release.synthesis.method.name().to_uppercase();
        ModelFigure {
            title: format!("{method}: measured marginals and the synthetic table"),
            columns: release.names.clone(),
            marginals: compared.iter().map(marginal).collect(),
        }
    }

    fn rows_of_panels(&self) -> u32 {
        self.marginals.len().div_ceil(PANELS_PER_ROW) as u32
    }
}

impl Figure for ModelFigure {
    fn size(&self) -> (u32, u32) {
        let width = GRAPH + PANEL * PANELS_PER_ROW as u32 + 40;
        let height = (70 + PANEL * self.rows_of_panels()).max(GRAPH + 70);
        (width, height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let root = root.titled(&self.title, title_style(22))?;
        let (graph, panels) = root.split_horizontally(GRAPH);
        self.draw_graph(&graph)?;
        let rows = self.rows_of_panels().max(1) as usize;
        let areas = panels
            .shrink(
                (0, 10),
                (PANELS_PER_ROW as u32 * PANEL, rows as u32 * PANEL),
            )
            .split_evenly((rows, PANELS_PER_ROW));
        for (k, ((columns, measured, synthetic), area)) in
            self.marginals.iter().zip(&areas).enumerate()
        {
            let name: Vec<&str> = columns.iter().map(|&c| self.columns[c].as_str()).collect();
            let hi = measured
                .iter()
                .chain(synthetic)
                .fold(0.0f64, |m, &v| m.max(v))
                .max(1e-9)
                * 1.05;
            let lo = measured.iter().fold(0.0f64, |m, &v| m.min(v));
            let mut chart = ChartBuilder::on(area)
                .caption(name.join(" × "), text_style(13))
                .margin(8)
                .x_label_area_size(28)
                .y_label_area_size(40)
                .build_cartesian_2d(lo..hi, 0.0..hi)?;
            chart
                .configure_mesh()
                .x_labels(3)
                .y_labels(3)
                .x_desc(if k == 0 { "measured (noisy)" } else { "" })
                .y_desc(if k == 0 { "synthetic" } else { "" })
                .label_style(text_style(11))
                .axis_desc_style(text_style(11))
                .light_line_style(TRANSPARENT)
                .bold_line_style(BLACK.mix(0.06))
                .draw()?;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, 0.0), (hi, hi)],
                BLACK.mix(0.3).stroke_width(1),
            )))?;
            let color = PALETTE[1 + k % (PALETTE.len() - 1)];
            chart.draw_series(
                measured
                    .iter()
                    .zip(synthetic)
                    .map(|(&x, &y)| Circle::new((x, y), 2, color.mix(0.7).filled())),
            )?;
        }
        Ok(())
    }
}

impl ModelFigure {
    /// The columns on a circle, each measured marginal a set of lines between its columns
    /// (a 3-way a triangle), in the colour of its comparison panel.
    fn draw_graph<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let d = self.columns.len().max(1);
        let (cx, cy, r) = (
            GRAPH as f64 / 2.0,
            GRAPH as f64 / 2.0,
            GRAPH as f64 / 2.0 - 125.0,
        );
        let at = |i: usize| {
            let a = std::f64::consts::TAU * i as f64 / d as f64 - std::f64::consts::FRAC_PI_2;
            ((cx + r * a.cos()) as i32, (cy + r * a.sin()) as i32)
        };
        for (k, (columns, _, _)) in self.marginals.iter().enumerate() {
            let color = PALETTE[1 + k % (PALETTE.len() - 1)];
            for (a, &i) in columns.iter().enumerate() {
                for &j in &columns[a + 1..] {
                    area.draw(&PathElement::new(
                        vec![at(i), at(j)],
                        color.mix(0.6).stroke_width(2),
                    ))?;
                }
            }
        }
        for (i, name) in self.columns.iter().enumerate() {
            let (x, y) = at(i);
            area.draw(&Circle::new((x, y), 5, BLACK.filled()))?;
            let a = std::f64::consts::TAU * i as f64 / d as f64 - std::f64::consts::FRAC_PI_2;
            let (w, h) = area.estimate_text_size(name, &text_style(13))?;
            let lx = x + (a.cos() * 14.0) as i32 - if a.cos() < -0.1 { w as i32 } else { 0 };
            let ly = y + (a.sin() * 14.0) as i32 - h as i32 / 2;
            area.draw(&Text::new(name.clone(), (lx, ly), text_style(13)))?;
        }
        Ok(())
    }
}
