//! How series are drawn: the colour-blind-safe [`PALETTE`], [`GREY`], point [`Marker`]s and
//! a series' [`Style`] — shared by every figure kind.

use plotters::prelude::*;

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
