//! One colour and marker per algorithm, the same in every figure of the project: a reader
//! who has learnt that blue triangles are the exponential mechanism's private greedy finds
//! them blue triangles in the location, feature, matroid, margin and itemset figures alike.
//!
//! Colours are Okabe & Ito's (2008) colour-blind-safe set ([`crate::plot::PALETTE`]);
//! a variant of an algorithm (another step count, a fallback) keeps its colour and is told
//! apart by a dashed line. Data sets (the histogram figures) use the same colours for their
//! own series: there the lines are data sets, not algorithms.

use crate::plot::{GREY, Marker, PALETTE, Style};

/// The algorithm a series shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// The non-private greedy (or any non-private reference): black circles.
    NonPrivate,
    /// The exponential mechanism, or the private greedy built on it: blue triangles.
    Exponential,
    /// The large margin mechanism of Mitrovic et al.: vermillion rings.
    LargeMargin,
    /// The large margin mechanism of Chaudhuri et al.: reddish purple squares.
    LargeMarginChaudhuri,
    /// The private continuous greedy (Rafiey & Yoshida): bluish green squares.
    ContinuousGreedy,
    /// A subsampled private greedy (Mitrovic Alg. 4, Rafiey–Yoshida Alg. 4): orange
    /// diamonds-as-crosses.
    Subsampled,
    /// A random choice (the floor): grey dashed crosses.
    Random,
    /// Private empirical risk minimisation (objective perturbation): sky blue rings.
    PrivateErm,
}

impl Algorithm {
    /// The series style of this algorithm.
    pub fn style(self) -> Style {
        let (color, marker, dashed) = match self {
            Algorithm::NonPrivate => (PALETTE[0], Marker::Circle, false),
            Algorithm::Exponential => (PALETTE[1], Marker::Triangle, false),
            Algorithm::LargeMargin => (PALETTE[2], Marker::Ring, false),
            Algorithm::LargeMarginChaudhuri => (PALETTE[4], Marker::Square, false),
            Algorithm::ContinuousGreedy => (PALETTE[3], Marker::Square, false),
            Algorithm::Subsampled => (PALETTE[6], Marker::Cross, false),
            Algorithm::Random => (GREY, Marker::Cross, true),
            Algorithm::PrivateErm => (PALETTE[5], Marker::Ring, false),
        };
        Style {
            color,
            dashed,
            marker,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_algorithm_has_its_own_colour() {
        let all = [
            Algorithm::NonPrivate,
            Algorithm::Exponential,
            Algorithm::LargeMargin,
            Algorithm::LargeMarginChaudhuri,
            Algorithm::ContinuousGreedy,
            Algorithm::Subsampled,
            Algorithm::Random,
            Algorithm::PrivateErm,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.style().color, b.style().color, "{a:?} and {b:?}");
            }
        }
    }
}
