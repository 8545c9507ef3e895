//! How the covering radius shrinks as the sample count doubles (docs/model.md §6).

use super::{NearestIndex, PointCloud};

/// One point of a convergence curve.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConvergencePoint {
    /// Samples in the net (a prefix of the run).
    pub samples: usize,
    /// Covering radius of that prefix against the reference set.
    pub epsilon: f64,
}

/// Covering radius `ε(S_M; R)` of the first `M` samples against a fixed
/// large reference `R`, for `M` doubling.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Convergence {
    /// Size of the reference set `R`.
    pub reference_size: usize,
    /// The curve, `M` increasing.
    pub points: Vec<ConvergencePoint>,
    /// Least-squares slope of `ln ε` against `ln M` over the points with
    /// `ε > 0` (`None` with fewer than two). For a set of intrinsic dimension
    /// `q` one expects about `−1/q`.
    pub slope: Option<f64>,
}

/// The convergence curve of `net` (its prefixes of `start`, `2·start`, …
/// samples, and all of it) against `reference`. Both embedded with the same
/// metric; `reference` should be independent of `net` and much larger.
pub fn convergence(net: &PointCloud, reference: &PointCloud, start: usize) -> Convergence {
    let mut sizes = Vec::new();
    let mut m = start.max(1);
    while m < net.len() {
        sizes.push(m);
        m = m.saturating_mul(2);
    }
    if !net.is_empty() {
        sizes.push(net.len());
    }
    let points: Vec<ConvergencePoint> = sizes
        .into_iter()
        .map(|samples| {
            let prefix = net.prefix(samples);
            let index = NearestIndex::new(&prefix);
            let epsilon = index.distances(reference).into_iter().fold(0.0, f64::max);
            ConvergencePoint { samples, epsilon }
        })
        .collect();
    let slope = log_log_slope(&points);
    Convergence { reference_size: reference.len(), points, slope }
}

fn log_log_slope(points: &[ConvergencePoint]) -> Option<f64> {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.epsilon > 0.0 && p.epsilon.is_finite())
        .map(|p| ((p.samples as f64).ln(), p.epsilon.ln()))
        .collect();
    if xy.len() < 2 {
        return None;
    }
    let k = xy.len() as f64;
    let (mx, my) = (xy.iter().map(|p| p.0).sum::<f64>() / k, xy.iter().map(|p| p.1).sum::<f64>() / k);
    let sxx: f64 = xy.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = xy.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn uniform_samples_of_a_segment_converge_at_rate_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let net = PointCloud::new(1, (0..4096).map(|_| rng.random_range(0.0..1.0)).collect());
        let reference = PointCloud::new(1, (0..=20000).map(|i| i as f64 / 20000.0).collect());
        let c = convergence(&net, &reference, 16);
        let sizes: Vec<usize> = c.points.iter().map(|p| p.samples).collect();
        assert_eq!(sizes, vec![16, 32, 64, 128, 256, 512, 1024, 2048, 4096]);
        assert!(c.points.windows(2).all(|w| w[1].epsilon <= w[0].epsilon));
        // ε ~ ln M / M for uniform points on a segment: slope a little above −1.
        let s = c.slope.unwrap();
        assert!(s < -0.6 && s > -1.2, "slope {s}");
        assert_eq!(c.reference_size, 20001);
    }

    #[test]
    fn prefix_sizes_end_with_the_whole_net() {
        let net = PointCloud::new(1, (0..100).map(f64::from).collect());
        let c = convergence(&net, &net, 30);
        let sizes: Vec<usize> = c.points.iter().map(|p| p.samples).collect();
        assert_eq!(sizes, vec![30, 60, 100]);
        assert_eq!(c.points.last().unwrap().epsilon, 0.0);
    }
}
