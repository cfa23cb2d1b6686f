//! Figures for the experiments and the demo: line charts with uncertainty bands or error bars,
//! grouped horizontal bar charts, maps (a density of points with highlighted, labelled
//! picks), box plots and a synthesizer's model. Every figure is written twice, as `<base>.png` and `<base>.svg`.
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
//!
//! # Layout
//! One file a concept: `backend` ([`Figure`], [`save`], fonts and text styles), `crisp` (the
//! bitmap back end's text), `style` (palette, markers), `axis` (ticks, labels, ranges),
//! `legend`, and one file per figure kind: `line` ([`LineChart`]), `bar` ([`BarChart`]),
//! `map` ([`Map`]), `boxplot` ([`BoxPlot`]) and `model` ([`ModelFigure`], a synthesizer's
//! model and measurements).

// A toolbox shared by every experiment: not each one uses every figure type or option.

mod axis;
mod backend;
mod bar;
mod boxplot;
mod crisp;
mod legend;
mod line;
mod map;
mod model;
mod style;

pub use axis::tick_label;
pub(crate) use axis::{Axis, nice_ticks, padded};
pub use backend::{DrawResult, Figure, init, is_svg, save, save_as, save_png, save_svg};
pub use bar::{BarChart, BarSeries};
pub use boxplot::{BoxGroup, BoxPlot, box_stats};
pub use legend::Legend;
pub use line::{LineChart, Point, Series, Uncertainty};
pub use map::{Map, MapPanel, Pick};
pub use model::ModelFigure;
pub use style::{GREY, Marker, PALETTE, Style};

/// Scratch directories and PNG checks shared by the figures' tests.
#[cfg(test)]
mod test_support {
    use std::path::{Path, PathBuf};

    /// A fresh scratch directory for one test, named after it.
    pub(super) fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("disguise-plot-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A PNG starts with its 8-byte signature and has the requested size in its IHDR chunk.
    pub(super) fn png_size(path: &Path) -> (u32, u32) {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
        (be(16), be(20))
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;

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
}
