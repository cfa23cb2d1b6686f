//! Legends: where a chart's legend goes ([`Legend`]) and the box drawn outside the plot,
//! each entry a label beside its line and marker as its [`Style`] draws them.

use super::backend::{DrawResult, text_style};
use super::style::{Marker, Style};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Where the legend goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legend {
    /// Inside the plot, lower right.
    LowerRight,
    /// Outside the plot, to its right (never hides data; the plot gets narrower).
    Outside,
}

impl Legend {
    pub(super) fn position(self) -> SeriesLabelPosition {
        match self {
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
            // Placed by the caller, which knows the plot's width.
            Legend::Outside => SeriesLabelPosition::UpperRight,
        }
    }
}

/// Draws a legend box with its top-left corner at `at` (pixels of `root`): one row per
/// entry, its label beside its line and marker.
pub(super) fn draw_outside_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    entries: &[(&str, Style)],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let w = legend_width(root, entries.iter().map(|&(label, _)| label))? as i32;
    let row = 24;
    let h = 2 * 10 + row * entries.len() as i32;
    let (x0, y0) = at;
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        WHITE.filled(),
    ))?;
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        BLACK.mix(0.4),
    ))?;
    for (i, &(label, style)) in entries.iter().enumerate() {
        let y = y0 + 10 + row * i as i32 + row / 2;
        let (mx, color) = (x0 + 12 + 14, style.color);
        let line = color.stroke_width(2);
        if style.dashed {
            root.draw(&PathElement::new(vec![(mx - 14, y), (mx - 4, y)], line))?;
            root.draw(&PathElement::new(vec![(mx + 4, y), (mx + 14, y)], line))?;
        } else {
            root.draw(&PathElement::new(vec![(mx - 14, y), (mx + 14, y)], line))?;
        }
        match style.marker {
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
        let text = text_style(15).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ));
        root.draw(&Text::new(label, (x0 + 12 + 34, y), text))?;
    }
    Ok(())
}

/// Width in pixels of a legend box holding `labels` (marker area 34 px, margins 12 px).
pub(super) fn legend_width<'a, DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: impl Iterator<Item = &'a str>,
) -> std::result::Result<u32, Box<dyn std::error::Error + Send + Sync>>
where
    DB::ErrorType: 'static,
{
    let mut w = 0;
    for label in labels {
        w = w.max(root.estimate_text_size(label, &text_style(15))?.0);
    }
    Ok(w + 34 + 2 * 12)
}
