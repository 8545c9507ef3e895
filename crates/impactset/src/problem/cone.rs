//! The linearized friction cone (docs/model.md §1).
//!
//! Each contact's friction impulse is a non-negative combination of `d` unit
//! directions in its tangent plane:
//!
//! * plane (`t = 1`): `d = 2`, directions `+t` and `−t` (exact in 2D);
//! * space (`t = 2`): `d` even, direction `k` is `cos(2πk/d)·t₁ + sin(2πk/d)·t₂`.
//!
//! The rows `JD` of the problem are these combinations of the tangent rows.

use std::f64::consts::PI;

/// Whether contacts have one tangent (planar) or two (spatial).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dimension {
    /// One tangent per contact; `d = 2` friction directions.
    Planar,
    /// Two tangents per contact; `d` even, at least 4 (default 8).
    Spatial,
}

impl Dimension {
    /// Number of tangent rows per contact (`t` in docs/model.md).
    pub fn tangents(self) -> usize {
        match self {
            Dimension::Planar => 1,
            Dimension::Spatial => 2,
        }
    }
}

/// Default number of friction directions for spatial contacts.
pub const DEFAULT_SPATIAL_DIRECTIONS: usize = 8;

/// Smallest number of friction directions accepted for spatial contacts.
pub const MIN_SPATIAL_DIRECTIONS: usize = 4;

/// Largest number of friction directions accepted for spatial contacts: the
/// contact-mode search keeps a contact's polygon vertices in a 64-bit set.
pub const MAX_SPATIAL_DIRECTIONS: usize = 62;

/// The coefficients of friction direction `k` of `d` on the tangent rows.
///
/// Planar: `[+1]` or `[−1]`. Spatial: `[cos(2πk/d), sin(2πk/d)]`. Values
/// that are zero up to round-off are snapped to exactly zero so that, e.g.,
/// the `d = 8` directions along the tangents are exact.
pub fn direction(dimension: Dimension, d: usize, k: usize) -> [f64; 2] {
    match dimension {
        Dimension::Planar => {
            if k == 0 {
                [1.0, 0.0]
            } else {
                [-1.0, 0.0]
            }
        }
        Dimension::Spatial => {
            let angle = 2.0 * PI * k as f64 / d as f64;
            let snap = |x: f64| if x.abs() < 1e-15 { 0.0 } else { x };
            [snap(angle.cos()), snap(angle.sin())]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spatial_directions_are_unit_and_symmetric() {
        for d in [4, 6, 8, 16] {
            for k in 0..d {
                let [c, s] = direction(Dimension::Spatial, d, k);
                assert!((c * c + s * s - 1.0).abs() < 1e-15);
                let [c2, s2] = direction(Dimension::Spatial, d, (k + d / 2) % d);
                assert!((c + c2).abs() < 1e-15 && (s + s2).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn planar_directions_are_plus_minus_tangent() {
        assert_eq!(direction(Dimension::Planar, 2, 0), [1.0, 0.0]);
        assert_eq!(direction(Dimension::Planar, 2, 1), [-1.0, 0.0]);
    }
}
