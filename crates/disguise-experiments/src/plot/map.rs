//! Maps ([`Map`]): side-by-side panels of the same points as a density, with each panel's
//! [`Pick`]s numbered and labelled without overlaps.

use super::axis::{Axis, nice_ticks, padded, tick_label};
use super::backend::{DrawResult, FONT, Figure, text_style, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

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

    /// The map of `disguise demo`: every pickup of `places` and every candidate spot (in
    /// longitude/latitude), the private picks of `run` in one panel and the non-private
    /// greedy's beside them, the budget of `demo` in the first panel's title.
    pub fn demo(
        demo: &disguise::task::Demo,
        places: &disguise::task::DemoPlaces,
        run: &disguise::task::DemoRun,
    ) -> Self {
        use disguise::numeric::display::{input, thousands};
        let lon_lat = |p: &[f64; 2]| [p[1], p[0]];
        let picks = |s: &disguise::maximize::Solution| -> Vec<Pick> {
            let at = |v: usize| lon_lat(&places.candidates[v]);
            let pick = |&v: &usize| Pick {
                at: at(v),
                label: places.names[v].clone(),
            };
            s.elements.iter().map(pick).collect()
        };
        let records = thousands(places.records.len() as u64);
        let title = format!(
            "disguise demo: {} waiting spots for {records} pickups",
            demo.k
        );
        let points = places.records.iter().map(lon_lat).collect();
        let candidates = places.candidates.iter().map(lon_lat).collect();
        let private = format!(
            "private (ε = {}, δ = {})",
            input(demo.epsilon),
            input(demo.delta)
        );
        let mut map = Map::geographic(title, points, candidates)
            .panel(private, picks(&run.private))
            .panel("non-private greedy (for comparison)", picks(&run.exact));
        map.panel_height = 700;
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
