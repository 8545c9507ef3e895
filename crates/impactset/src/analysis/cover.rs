//! Covering radius and Hausdorff distance (docs/model.md §6), with exact
//! nearest-neighbour search in a k-d tree.
//!
//! The k-d tree is kiddo's `ImmutableKdTree<f64, K>` (kiddo 5, which keeps the
//! crate's Rust 1.85 floor; kiddo 6 needs 1.89). Its dimension `K` is a const
//! generic while ours is known only at run time (`n` or `m + m·t`), so
//! [`NearestIndex`] picks a monomorphized tree for every `K ≤ 16` and falls
//! back to a parallel brute-force scan above that (where k-d trees stop
//! beating brute force anyway). Zero-padding to one fixed `K` was rejected:
//! kiddo cycles split axes, so padded axes would waste tree levels. The
//! immutable tree is used because it handles many points sharing a
//! coordinate value (sets of outcomes are full of exact repeats).

use kiddo::SquaredEuclidean;
use kiddo::immutable::float::kdtree::ImmutableKdTree;
use rayon::prelude::*;
use std::borrow::Cow;

use super::PointCloud;

/// The largest dimension searched with a k-d tree.
pub const MAX_TREE_DIM: usize = 16;

/// Exact nearest-neighbour queries against a fixed point set, which it
/// borrows.
///
/// The search compares squared distances, which overflow past `≈1.3e154`
/// and underflow below `≈1.5e-162`. A set whose largest coordinate lies
/// outside `[2⁻²⁵⁶, 2²⁵⁶]` is therefore indexed scaled by a power of two
/// (exact) that brings it near 1, queries scaled alike and distances scaled
/// back; a query whose squared distance still overflows is answered by a
/// scan in an overflow-free norm.
pub struct NearestIndex<'a> {
    dim: usize,
    /// The power of two the indexed points (and queries) are multiplied by.
    scale: f64,
    /// The points, scaled (a copy) when `scale` is not 1.
    points: Cow<'a, PointCloud>,
    /// The k-d tree; `None` above [`MAX_TREE_DIM`] (or for no points),
    /// where `points` is scanned.
    tree: Option<Box<dyn Nearest>>,
}

trait Nearest: Send + Sync {
    /// Index and squared distance of the nearest point.
    fn nearest(&self, q: &[f64]) -> (usize, f64);
}

struct Tree<const K: usize>(ImmutableKdTree<f64, u64, K, 32>);

impl<const K: usize> Nearest for Tree<K> {
    fn nearest(&self, q: &[f64]) -> (usize, f64) {
        let q: &[f64; K] = q.try_into().expect("query dimension checked by NearestIndex");
        let nn = self.0.nearest_one::<SquaredEuclidean>(q);
        (nn.item as usize, nn.distance)
    }
}

fn tree<const K: usize>(points: &PointCloud) -> Option<Box<dyn Nearest>> {
    let rows: Vec<[f64; K]> = points.iter().map(|p| p.try_into().expect("dimension checked")).collect();
    Some(Box::new(Tree::<K>(ImmutableKdTree::new_from_slice(&rows))))
}

macro_rules! tree_for_dim {
    ($dim:expr, $points:expr; $($k:literal)*) => {
        match $dim {
            $($k => tree::<$k>($points),)*
            _ => None,
        }
    };
}

impl<'a> NearestIndex<'a> {
    /// Builds the index of `points` (`O(N log N)`).
    pub fn new(points: &'a PointCloud) -> Self {
        let scale = power_of_two_scale(points.as_slice().iter().fold(0.0f64, |a, x| a.max(x.abs())));
        let points = if scale == 1.0 {
            Cow::Borrowed(points)
        } else {
            Cow::Owned(PointCloud::new(points.dim(), points.as_slice().iter().map(|x| x * scale).collect()))
        };
        let tree = if points.is_empty() {
            None
        } else {
            tree_for_dim!(points.dim(), &points; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
        };
        NearestIndex { dim: points.dim(), scale, points, tree }
    }

    /// Number of indexed points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// No points indexed.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The nearest indexed point to `q`: its index and Euclidean distance.
    /// `None` when the index is empty.
    ///
    /// # Panics
    /// If `q` does not have the indexed points' dimension.
    pub fn nearest(&self, q: &[f64]) -> Option<(usize, f64)> {
        assert_eq!(q.len(), self.dim, "query has dimension {}, the index {}", q.len(), self.dim);
        if self.is_empty() {
            return None;
        }
        let q: Cow<[f64]> =
            if self.scale == 1.0 { Cow::Borrowed(q) } else { Cow::Owned(q.iter().map(|x| x * self.scale).collect()) };
        let (i, d2) = match &self.tree {
            Some(tree) => tree.nearest(&q),
            None => self.scan(&q, squared_distance),
        };
        // The search reports overflowing squares as `∞` or `f64::MAX`.
        let (i, d) = if d2 < f64::MAX { (i, d2.max(0.0).sqrt()) } else { self.scan(&q, robust_distance) };
        Some((i, d / self.scale))
    }

    /// The point of least `distance` to `q` (the first of equals).
    fn scan(&self, q: &[f64], distance: fn(&[f64], &[f64]) -> f64) -> (usize, f64) {
        let mut best = (usize::MAX, f64::INFINITY);
        for (i, p) in self.points.iter().enumerate() {
            let d = distance(p, q);
            if d < best.1 {
                best = (i, d);
            }
        }
        best
    }

    /// `min_{s ∈ S} ‖r − s‖` for every `r` of `queries`, in parallel
    /// (`∞` for every query when the index is empty).
    pub fn distances(&self, queries: &PointCloud) -> Vec<f64> {
        assert_eq!(queries.dim(), self.dim, "query dimension {} differs from the index's {}", queries.dim(), self.dim);
        let rows: Vec<&[f64]> = queries.iter().collect();
        rows.par_iter().map(|q| self.nearest(q).map_or(f64::INFINITY, |(_, d)| d)).collect()
    }
}

/// The directed distance from each point of `reference` to the set `net`:
/// `d(r) = min_{s ∈ net} ‖r − s‖`, in `reference` order.
pub fn nearest_distances(net: &PointCloud, reference: &PointCloud) -> Vec<f64> {
    NearestIndex::new(net).distances(reference)
}

/// The covering radius of `net` against `reference` (docs/model.md §6), the
/// directed Hausdorff distance
///
/// `ε(S; R) = max_{r ∈ R} min_{s ∈ S} ‖r − s‖`.
///
/// `0` when `R` is empty, `∞` when `S` is empty and `R` is not. Not
/// symmetric: a subset covers less of its superset than the reverse.
pub fn covering_radius(net: &PointCloud, reference: &PointCloud) -> f64 {
    if reference.is_empty() {
        return 0.0;
    }
    nearest_distances(net, reference).into_iter().fold(0.0, f64::max)
}

/// The symmetric Hausdorff distance `max(ε(A; B), ε(B; A))`: how far two
/// sets (e.g. CPU and GPU outcomes) are from each other.
pub fn hausdorff(a: &PointCloud, b: &PointCloud) -> f64 {
    covering_radius(a, b).max(covering_radius(b, a))
}

fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// `‖a − b‖` without overflow or underflow of its squares: the differences
/// divided by the largest before they are squared.
fn robust_distance(a: &[f64], b: &[f64]) -> f64 {
    let largest = a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    if largest == 0.0 || !largest.is_finite() {
        return largest;
    }
    largest * a.iter().zip(b).map(|(x, y)| ((x - y) / largest).powi(2)).sum::<f64>().sqrt()
}

/// The power of two that brings a largest coordinate `largest` near 1 when
/// it lies outside `[2⁻²⁵⁶, 2²⁵⁶]`, where squared distances could overflow
/// or underflow; 1 otherwise (and for 0 or a non-finite value).
fn power_of_two_scale(largest: f64) -> f64 {
    const LIMIT: i32 = 256;
    if !(largest.is_finite() && largest > 0.0) {
        return 1.0;
    }
    let exponent = largest.log2().floor() as i32;
    if exponent.abs() <= LIMIT { 1.0 } else { 2f64.powi(-exponent) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_cloud(rng: &mut ChaCha8Rng, dim: usize, len: usize) -> PointCloud {
        PointCloud::new(dim, (0..dim * len).map(|_| rng.random_range(-1.0..1.0)).collect())
    }

    fn brute_cover(net: &PointCloud, reference: &PointCloud) -> f64 {
        reference
            .iter()
            .map(|r| net.iter().map(|s| squared_distance(r, s).sqrt()).fold(f64::INFINITY, f64::min))
            .fold(0.0, f64::max)
    }

    #[test]
    fn covering_radius_matches_brute_force_in_2_to_10_dimensions() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for dim in 2..=10 {
            for &(ns, nr) in &[(1, 7), (40, 300), (700, 200)] {
                let s = random_cloud(&mut rng, dim, ns);
                let r = random_cloud(&mut rng, dim, nr);
                let fast = covering_radius(&s, &r);
                let slow = brute_cover(&s, &r);
                assert!((fast - slow).abs() <= 1e-12 * slow.max(1.0), "dim {dim}: {fast} vs {slow}");
                let h = hausdorff(&s, &r);
                assert!((h - slow.max(brute_cover(&r, &s))).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn nearest_distances_match_brute_force_with_repeated_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        // 3 distinct points repeated 200 times each, plus points sharing an axis value.
        let base = random_cloud(&mut rng, 4, 3);
        let mut coords: Vec<f64> = (0..200).flat_map(|_| base.as_slice().to_vec()).collect();
        for _ in 0..100 {
            coords.extend([0.0, rng.random_range(-1.0..1.0), 0.0, rng.random_range(-1.0..1.0)]);
        }
        let s = PointCloud::new(4, coords);
        let r = random_cloud(&mut rng, 4, 500);
        let fast = nearest_distances(&s, &r);
        for (k, q) in r.iter().enumerate() {
            let slow = s.iter().map(|p| squared_distance(p, q).sqrt()).fold(f64::INFINITY, f64::min);
            assert!((fast[k] - slow).abs() < 1e-12);
        }
    }

    #[test]
    fn high_dimensions_fall_back_to_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let s = random_cloud(&mut rng, MAX_TREE_DIM + 3, 50);
        let r = random_cloud(&mut rng, MAX_TREE_DIM + 3, 20);
        assert!((covering_radius(&s, &r) - brute_cover(&s, &r)).abs() < 1e-12);
    }

    fn grid(k: usize, offset: f64) -> PointCloud {
        let mut c = Vec::new();
        for i in 0..k {
            for j in 0..k {
                c.extend([i as f64 + offset, j as f64 + offset]);
            }
        }
        PointCloud::new(2, c)
    }

    #[test]
    fn grid_against_offset_grid_has_the_known_radius() {
        // Cell centres of a unit grid are √2/2 from the nearest grid node.
        let nodes = grid(11, 0.0);
        let centres = grid(10, 0.5);
        assert!((covering_radius(&nodes, &centres) - 0.5f64.sqrt()).abs() < 1e-12);
        // Every node, the corners included, is also √2/2 from a centre.
        assert!((covering_radius(&centres, &nodes) - 0.5f64.sqrt()).abs() < 1e-12);
        let sub = grid(3, 0.0);
        // Directed distance is asymmetric: a subset is covered exactly,
        // its superset is not.
        assert_eq!(covering_radius(&nodes, &sub), 0.0);
        assert!((covering_radius(&sub, &nodes) - (8.0f64 * 8.0 * 2.0).sqrt()).abs() < 1e-12);
        assert_eq!(hausdorff(&sub, &nodes), covering_radius(&sub, &nodes));
    }

    #[test]
    fn a_set_covers_itself() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let s = random_cloud(&mut rng, 6, 1000);
        assert_eq!(covering_radius(&s, &s), 0.0);
        assert_eq!(hausdorff(&s, &s), 0.0);
    }

    #[test]
    fn distances_beyond_the_square_range_are_exact_not_clamped() {
        // Squared, 3e200 overflows and 3e-200 underflows; the distances must
        // come back as they are, in every search (tree and brute force).
        for scale in [1e200, 1e-200, 1e300] {
            for dim in [2, MAX_TREE_DIM + 1] {
                let mut a = vec![0.0; dim];
                let mut b = vec![0.0; dim];
                a[0] = -1.5 * scale;
                b[0] = 1.5 * scale;
                b[1] = 4.0 * scale;
                let (a, b) = (PointCloud::new(dim, a), PointCloud::new(dim, b));
                let expect = 5.0 * scale;
                for d in [hausdorff(&a, &b), covering_radius(&a, &b), nearest_distances(&a, &b)[0]] {
                    assert!((d - expect).abs() <= 1e-15 * expect, "scale {scale:e}, dim {dim}: {d:e}");
                }
            }
        }
        // A query far beyond an ordinary set: its squares overflow even so.
        let one = PointCloud::new(2, vec![1.0, 0.0]);
        let far = PointCloud::new(2, vec![0.0, 1e300]);
        assert_eq!(nearest_distances(&one, &far)[0], 1e300);
    }

    #[test]
    fn power_of_two_scaling_leaves_ordinary_sets_alone() {
        for x in [0.0, 1e-70, 1.0, 3e70, f64::INFINITY] {
            assert_eq!(power_of_two_scale(x), 1.0, "{x:e}");
        }
        let s = power_of_two_scale(3e200);
        assert!((1.0..2.0).contains(&(3e200 * s)) && s.log2().fract() == 0.0);
    }

    #[test]
    fn empty_sets() {
        let empty = PointCloud::new(2, vec![]);
        let one = PointCloud::new(2, vec![1.0, 2.0]);
        assert_eq!(covering_radius(&one, &empty), 0.0);
        assert_eq!(covering_radius(&empty, &one), f64::INFINITY);
        assert_eq!(NearestIndex::new(&empty).nearest(&[0.0, 0.0]), None);
        assert_eq!(NearestIndex::new(&one).nearest(&[1.0, 5.0]), Some((0, 3.0)));
    }
}
