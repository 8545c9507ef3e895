//! The held-out certificate of an ε-net (docs/model.md §6).

use super::{PointCloud, nearest_distances};

/// What `M_h` fresh samples say about a net of `M` samples.
///
/// If all `M_h` held-out samples (independent of the net, drawn from the
/// same sampler) lie within `epsilon` of the net, then with confidence
/// `1 − δ` the probability that one more sample lands farther than
/// `epsilon` from the net is below `ln(1/δ)/M_h` (the probability of `M_h`
/// consecutive hits when the miss probability is `β` is `(1 − β)^{M_h} ≤
/// e^{−β M_h}`). It certifies **coverage under the sampling law**: it bounds
/// the sampling measure of the uncovered part, not the distance from the
/// net to the set's extremes, which a law may reach with vanishing
/// probability (the extremes check, [`extremes_gap`](super::extremes_gap),
/// measures that).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HeldOutCertificate {
    /// Samples in the net, `M`.
    pub net_size: usize,
    /// Held-out samples, `M_h`.
    pub held_out: usize,
    /// The smallest `ε` covering every held-out sample: `ε(S; H)`.
    pub epsilon: f64,
    /// The median held-out distance to the net (a typical gap, not a bound).
    pub median_distance: f64,
    /// Confidence parameter `δ`.
    pub delta: f64,
    /// `ln(1/δ)/M_h`: with confidence `1 − δ`, the probability that a new
    /// sample is farther than `epsilon` from the net is below this.
    pub miss_probability: f64,
    /// What it certifies, in words ([`CERTIFIES`]), so every output that
    /// carries the certificate says so.
    #[serde(default = "certifies")]
    pub certifies: String,
}

/// What a held-out certificate certifies.
pub const CERTIFIES: &str = "coverage under the sampling law: the sampling measure of what the net misses \
     (with confidence 1 - delta, one more sample of the same law lands farther than epsilon from the net \
     with probability below miss_probability), not the distance from the net to the set's extremes";

fn certifies() -> String {
    CERTIFIES.to_string()
}

/// The confidence `1 − δ` of a held-out certificate a caller does not set:
/// `δ = 0.05`.
pub const DEFAULT_DELTA: f64 = 0.05;

/// The certificate of `net` from the fresh samples `held_out` (both already
/// embedded with the same metric), at confidence `1 − delta`.
///
/// # Panics
/// If `delta` is not in `(0, 1)`.
pub fn held_out_certificate(net: &PointCloud, held_out: &PointCloud, delta: f64) -> HeldOutCertificate {
    assert!(delta > 0.0 && delta < 1.0, "δ must lie in (0, 1), got {delta}");
    let mut d = nearest_distances(net, held_out);
    d.sort_by(f64::total_cmp);
    let epsilon = d.last().copied().unwrap_or(0.0);
    let median_distance = if d.is_empty() { 0.0 } else { d[d.len() / 2] };
    let m_h = held_out.len();
    HeldOutCertificate {
        net_size: net.len(),
        held_out: m_h,
        epsilon,
        median_distance,
        delta,
        miss_probability: if m_h == 0 { 1.0 } else { ((1.0 / delta).ln() / m_h as f64).min(1.0) },
        certifies: certifies(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_of_a_line_net() {
        // Net: 0, 0.1, …, 1 on a line; held-out points at known gaps.
        let net = PointCloud::new(1, (0..=10).map(|i| i as f64 / 10.0).collect());
        let held = PointCloud::new(1, vec![0.05, 0.52, 0.99, 0.3]);
        let c = held_out_certificate(&net, &held, 0.01);
        assert!((c.epsilon - 0.05).abs() < 1e-12);
        assert_eq!((c.net_size, c.held_out), (11, 4));
        // ln(100)/4 > 1: four held-out samples certify nothing.
        assert_eq!(c.miss_probability, 1.0);
        let many = PointCloud::new(1, vec![0.5; 1000]);
        let c = held_out_certificate(&net, &many, 0.05);
        assert_eq!(c.epsilon, 0.0);
        assert!((c.miss_probability - 20.0f64.ln() / 1000.0).abs() < 1e-15);
    }
}
