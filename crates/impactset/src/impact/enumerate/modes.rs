//! Contact modes of one Routh step in reduced impulse coordinates.
//!
//! Contact `i` carries `x_i = (λn_i, f_i)`, `f_i = Σ_k λD_(i,k) d_k` the net
//! tangential impulse on its tangent rows (scalar in the plane, a 2-vector in
//! space; `s = 1 + t` coordinates), and sees the post-step contact velocity
//! `u⁺_i = (u_n⁺, u_t⁺)`. With `P` the unit friction polygon `conv{d_k}`, a
//! mode is one face of the contact law:
//!
//! | normal | law |
//! |---|---|
//! | open | `λn = 0`, `f = 0`, `u_n⁺ ≥ 0` |
//! | closed | `u_n⁺ = 0`, `0 ≤ λn ≤ h·p` |
//! | capped | `λn = h·p`, `u_n⁺ ≤ 0` (then `σ = −u_n⁺`) |
//!
//! | tangential (closed or capped) | law |
//! |---|---|
//! | stick | `u_t⁺ = 0`, `f ∈ μ λn P` |
//! | slide at vertex `k` | `f = μ λn d_k`, `d_kᵀu_t⁺ ≤ 0` and `≤ d_(k±1)ᵀu_t⁺` |
//! | slide on edge `k` (space) | `f = μ λn (c n_e + s e_e)`, `e_eᵀu_t⁺ = 0`, `n_eᵀu_t⁺ ≤ 0`, `|s| ≤ μ λn sin(π/d)` |
//! | free (`μ = 0` only) | `f = 0` |
//!
//! where edge `k` joins `d_k` and `d_(k+1)`, `n_e` is its unit outward normal,
//! `c = n_eᵀd_k = cos(π/d)` its distance from the origin and `e_e` its unit
//! direction. Each mode is written as
//!
//! * a parametrization `x_i = h p_i · x₀ + G y` with `q ≤ s` parameters `y`,
//! * `q` equations `C u⁺_i = 0` (as many as parameters),
//! * linear inequalities `a_xᵀ x_i + a_uᵀ u⁺_i + a₀ h p_i ≥ 0`.
//!
//! Modes of a contact are numbered in a fixed order (the enumeration order):
//! open; then closed × (stick, vertex `0..d`, edge `0..d`); then capped × the
//! same. Planar contacts have no edge modes (7 modes); frictionless contacts
//! have only open, closed-free and capped-free.

/// The normal part of a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Normal {
    Open,
    Closed,
    Capped,
}

/// The tangential part of a mode (`None` for open contacts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tangential {
    None,
    Free,
    Stick,
    Vertex(usize),
    Edge(usize),
}

/// `a_xᵀ x_i + a_uᵀ u⁺_i + a₀ h p_i ≥ 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Inequality {
    pub ax: [f64; 3],
    pub au: [f64; 3],
    pub a0: f64,
    /// `‖a_u‖₁`, the velocity weight of the inequality's slack.
    pub au_norm: f64,
    /// `|a_x[1]| + |a_x[2]|`, its (tangential) impulse weight.
    pub tangent_norm: f64,
    /// `|a_x[0]| + |a₀|`, its normal impulse weight.
    pub normal_norm: f64,
    /// The nonzero coefficients of `a_x` and `a_u` on the contact's `s`
    /// coordinates, in the order coordinate by coordinate, `a_x` before
    /// `a_u`: `(a, c)` for `a_x[c]`, `(a, s + c)` for `a_u[c]`. The first
    /// [`term_count`](Self::term_count) are used.
    pub terms: [(f64, usize); 6],
    pub term_count: usize,
}

impl Inequality {
    fn new(ax: [f64; 3], au: [f64; 3], a0: f64, s: usize) -> Self {
        let l1 = |a: &[f64; 3]| a.iter().map(|x| x.abs()).sum::<f64>();
        let mut terms = [(0.0, 0); 6];
        let mut term_count = 0;
        for c in 0..s {
            for (a, index) in [(ax[c], c), (au[c], s + c)] {
                if a != 0.0 {
                    terms[term_count] = (a, index);
                    term_count += 1;
                }
            }
        }
        let tangent_norm = ax[1..].iter().map(|x| x.abs()).sum::<f64>();
        let normal_norm = ax[0].abs() + a0.abs();
        Inequality { ax, au, a0, au_norm: l1(&au), tangent_norm, normal_norm, terms, term_count }
    }

    /// The terms of [`terms`](Self::terms) in use.
    #[inline]
    pub fn terms(&self) -> &[(f64, usize)] {
        &self.terms[..self.term_count]
    }
}

/// One mode of one contact (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mode {
    pub normal: Normal,
    pub tangential: Tangential,
    /// Number of parameters `q` (= number of equations).
    pub params: usize,
    /// `x₀` per unit cap.
    pub offset: [f64; 3],
    /// `basis[k]` is column `k` of `G`, scaled to `max |G_(·k)| = 1` (so
    /// every column of a mode system `C W G` is at most `s · max|W|`, whatever
    /// `μ`; the parameters `y` are not impulses).
    pub basis: [[f64; 3]; 3],
    /// `rows[k]` is row `k` of `C`.
    pub rows: [[f64; 3]; 3],
    /// The vertices of `S = {λn ∈ [0, h p], f ∈ μ λn P}` whose convex hull
    /// holds every `x_i` of this mode: bit 0 the origin, bit `1 + k` the
    /// vertex `h p (1, μ d_k)`.
    pub vertices: u64,
    /// Range of this mode's inequalities in [`ModeTable::inequalities`].
    pub first_inequality: usize,
    pub end_inequality: usize,
}

/// An edge of the unit friction polygon.
#[derive(Clone, Copy, Debug)]
struct Edge {
    normal: [f64; 2],
    along: [f64; 2],
    distance: f64,
    half_length: f64,
}

/// Every mode of every contact of one problem, in the enumeration order.
#[derive(Clone, Debug)]
pub(crate) struct ModeTable {
    pub modes: Vec<Mode>,
    /// Modes of contact `i` are `modes[start[i]..start[i + 1]]`.
    pub start: Vec<usize>,
    pub inequalities: Vec<Inequality>,
}

impl ModeTable {
    /// The modes of `m` contacts with `t` tangents, the `d` directions
    /// `directions` and friction `friction`.
    #[cfg(test)]
    pub fn new(t: usize, directions: &[[f64; 2]], friction: &[f64]) -> Self {
        Self::with_prescribed(t, directions, friction, &[])
    }

    /// As [`new`](Self::new), with the contacts `i` where `prescribed[i]`
    /// (missing entries: `false`) given only the capped modes: the friction
    /// of a prescribed normal impulse, whose normal row is zero
    /// (`widened.rs`).
    pub fn with_prescribed(t: usize, directions: &[[f64; 2]], friction: &[f64], prescribed: &[bool]) -> Self {
        assert!(directions.len() <= 62, "at most 62 friction directions");
        let mut table = ModeTable { modes: Vec::new(), start: vec![0], inequalities: Vec::new() };
        let edges = polygon_edges(t, directions);
        for (i, &mu) in friction.iter().enumerate() {
            let capped_only = prescribed.get(i).copied().unwrap_or(false);
            if !capped_only {
                table.push(Normal::Open, Tangential::None, mu, t, directions, &edges);
            }
            let normals: &[Normal] = if capped_only { &[Normal::Capped] } else { &[Normal::Closed, Normal::Capped] };
            for &normal in normals {
                if mu == 0.0 {
                    table.push(normal, Tangential::Free, mu, t, directions, &edges);
                    continue;
                }
                table.push(normal, Tangential::Stick, mu, t, directions, &edges);
                for k in 0..directions.len() {
                    table.push(normal, Tangential::Vertex(k), mu, t, directions, &edges);
                }
                if t == 2 {
                    for k in 0..directions.len() {
                        table.push(normal, Tangential::Edge(k), mu, t, directions, &edges);
                    }
                }
            }
            table.start.push(table.modes.len());
        }
        table
    }

    /// The modes of contact `i`.
    pub fn of(&self, i: usize) -> &[Mode] {
        &self.modes[self.start[i]..self.start[i + 1]]
    }

    /// The inequalities of `mode`.
    pub fn inequalities_of(&self, mode: &Mode) -> &[Inequality] {
        &self.inequalities[mode.first_inequality..mode.end_inequality]
    }

    fn push(
        &mut self,
        normal: Normal,
        tangential: Tangential,
        mu: f64,
        t: usize,
        directions: &[[f64; 2]],
        edges: &[Edge],
    ) {
        let d = directions.len();
        let first = self.inequalities.len();
        let mut ineq = |ax: [f64; 3], au: [f64; 3], a0: f64| self.inequalities.push(Inequality::new(ax, au, a0, 1 + t));
        let mut mode = Mode {
            normal,
            tangential,
            params: 0,
            offset: [0.0; 3],
            basis: [[0.0; 3]; 3],
            rows: [[0.0; 3]; 3],
            vertices: vertex_set(normal, tangential, d),
            first_inequality: first,
            end_inequality: first,
        };
        // The direction of f per unit λn (friction at the cone's boundary), and
        // the extra tangential parameter columns with their equations.
        let mut along_n = [0.0; 3];
        along_n[0] = 1.0;
        let mut tangent_columns: [[f64; 3]; 2] = [[0.0; 3]; 2];
        let mut tangent_rows: [[f64; 3]; 2] = [[0.0; 3]; 2];
        let mut tangent_params = 0;
        match tangential {
            Tangential::None => {
                ineq([0.0; 3], [1.0, 0.0, 0.0], 0.0);
            }
            Tangential::Free => {}
            Tangential::Stick => {
                for (a, (col, row)) in tangent_columns.iter_mut().zip(tangent_rows.iter_mut()).enumerate().take(t) {
                    col[1 + a] = 1.0;
                    row[1 + a] = 1.0;
                }
                tangent_params = t;
                for e in edges {
                    let mut ax = [mu * e.distance, 0.0, 0.0];
                    for a in 0..t {
                        ax[1 + a] = -e.normal[a];
                    }
                    ineq(ax, [0.0; 3], 0.0);
                }
            }
            Tangential::Vertex(k) => {
                for a in 0..t {
                    along_n[1 + a] = mu * directions[k][a];
                }
                let mut au = [0.0; 3];
                for a in 0..t {
                    au[1 + a] = -directions[k][a];
                }
                ineq([0.0; 3], au, 0.0);
                if t == 2 {
                    for j in [(k + 1) % d, (k + d - 1) % d] {
                        let mut au = [0.0; 3];
                        for a in 0..t {
                            au[1 + a] = directions[j][a] - directions[k][a];
                        }
                        ineq([0.0; 3], au, 0.0);
                    }
                }
            }
            Tangential::Edge(k) => {
                let e = edges[k];
                for a in 0..t {
                    along_n[1 + a] = mu * e.distance * e.normal[a];
                    tangent_columns[0][1 + a] = e.along[a];
                    tangent_rows[0][1 + a] = e.along[a];
                }
                tangent_params = 1;
                ineq([0.0; 3], [0.0, -e.normal[0], -e.normal[1]], 0.0);
                let h = mu * e.half_length;
                ineq([h, -e.along[0], -e.along[1]], [0.0; 3], 0.0);
                ineq([h, e.along[0], e.along[1]], [0.0; 3], 0.0);
            }
        }
        match normal {
            Normal::Open => {}
            Normal::Closed => {
                mode.basis[0] = along_n;
                mode.rows[0] = [1.0, 0.0, 0.0];
                mode.params = 1;
                ineq([1.0, 0.0, 0.0], [0.0; 3], 0.0);
                ineq([-1.0, 0.0, 0.0], [0.0; 3], 1.0);
            }
            Normal::Capped => {
                mode.offset = along_n;
                ineq([0.0; 3], [-1.0, 0.0, 0.0], 0.0);
            }
        }
        if normal != Normal::Open {
            for k in 0..tangent_params {
                mode.basis[mode.params] = tangent_columns[k];
                mode.rows[mode.params] = tangent_rows[k];
                mode.params += 1;
            }
        }
        for column in &mut mode.basis[..mode.params] {
            let norm = column.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            column.iter_mut().for_each(|x| *x /= norm);
        }
        mode.end_inequality = self.inequalities.len();
        self.modes.push(mode);
    }
}

/// [`Mode::vertices`] of a mode.
fn vertex_set(normal: Normal, tangential: Tangential, d: usize) -> u64 {
    let vertex = |k: usize| 1u64 << (1 + k % d);
    let tangential = match tangential {
        Tangential::None => 0,
        Tangential::Free | Tangential::Stick => ((1u64 << d) - 1) << 1,
        Tangential::Vertex(k) => vertex(k),
        Tangential::Edge(k) => vertex(k) | vertex(k + 1),
    };
    match normal {
        Normal::Open => 1,
        Normal::Closed => 1 | tangential,
        Normal::Capped => tangential,
    }
}

/// The edges of the unit friction polygon: in the plane the two "edges"
/// `±f ≤ 1`, in space the `d` edges joining `d_k` and `d_(k+1)`.
fn polygon_edges(t: usize, directions: &[[f64; 2]]) -> Vec<Edge> {
    if t == 1 {
        return [1.0, -1.0]
            .into_iter()
            .map(|n| Edge { normal: [n, 0.0], along: [0.0, 0.0], distance: 1.0, half_length: 0.0 })
            .collect();
    }
    let d = directions.len();
    (0..d)
        .map(|k| {
            let (a, b) = (directions[k], directions[(k + 1) % d]);
            let unit = |v: [f64; 2]| {
                let l = v[0].hypot(v[1]);
                [v[0] / l, v[1] / l]
            };
            let normal = unit([a[0] + b[0], a[1] + b[1]]);
            let along = unit([b[0] - a[0], b[1] - a[1]]);
            let distance = normal[0] * a[0] + normal[1] * a[1];
            let half_length = along[0] * b[0] + along[1] * b[1];
            Edge { normal, along, distance, half_length }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Dimension, cone};

    #[test]
    fn planar_contacts_have_seven_modes_and_frictionless_three() {
        let dirs: Vec<[f64; 2]> = (0..2).map(|k| cone::direction(Dimension::Planar, 2, k)).collect();
        let table = ModeTable::new(1, &dirs, &[0.5, 0.0]);
        assert_eq!(table.of(0).len(), 7);
        assert_eq!(table.of(1).len(), 3);
        // Every mode has as many equations as parameters, at most s = 2.
        assert!(table.modes.iter().all(|m| m.params <= 2));
        let slide = table.of(0)[2];
        assert_eq!((slide.normal, slide.tangential), (Normal::Closed, Tangential::Vertex(0)));
        assert_eq!(slide.basis[0], [1.0, 0.5, 0.0]);
        // μ > 1: the column is scaled to max |G| = 1.
        let steep = ModeTable::new(1, &dirs, &[4.0]).of(0)[2];
        assert_eq!(steep.basis[0], [0.25, 1.0, 0.0]);
    }

    #[test]
    fn spatial_edges_are_the_polygon_sides() {
        let d = 8;
        let dirs: Vec<[f64; 2]> = (0..d).map(|k| cone::direction(Dimension::Spatial, d, k)).collect();
        let table = ModeTable::new(2, &dirs, &[1.0]);
        assert_eq!(table.of(0).len(), 4 * d + 3);
        for e in polygon_edges(2, &dirs) {
            assert!((e.distance - (std::f64::consts::PI / d as f64).cos()).abs() < 1e-15);
            assert!((e.half_length - (std::f64::consts::PI / d as f64).sin()).abs() < 1e-15);
        }
    }
}
