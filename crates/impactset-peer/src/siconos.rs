//! The Siconos side: `lcp_lexicolemke` through the C shim (`siconos_shim.c`).

use std::time::Instant;

use impactset::lcp::LcpResidual;

#[repr(C)]
struct PeerLcp {
    _opaque: [u8; 0],
}

unsafe extern "C" {
    fn peer_new(n: i32, a: *const f64) -> *mut PeerLcp;
    fn peer_max_iterations(p: *const PeerLcp) -> i32;
    fn peer_solve(p: *mut PeerLcp, q: *const f64, z: *mut f64, w: *mut f64, iterations: *mut i32) -> i32;
    fn peer_free(p: *mut PeerLcp);
}

/// One LCP matrix held by Siconos.
struct Peer {
    raw: *mut PeerLcp,
    n: usize,
}

impl Peer {
    fn new(a: &[f64], n: usize) -> Self {
        assert_eq!(a.len(), n * n);
        // SAFETY: `a` holds n·n values; the shim copies them.
        let raw = unsafe { peer_new(n as i32, a.as_ptr()) };
        assert!(!raw.is_null());
        Peer { raw, n }
    }

    /// Solves with `q`; `Some(z)` when Siconos reports success.
    fn solve(&mut self, q: &[f64], z: &mut [f64], w: &mut [f64]) -> bool {
        assert!(q.len() == self.n && z.len() == self.n && w.len() == self.n);
        let mut iterations = 0;
        // SAFETY: every buffer holds n values; `raw` is live.
        let info = unsafe { peer_solve(self.raw, q.as_ptr(), z.as_mut_ptr(), w.as_mut_ptr(), &mut iterations) };
        info == 0
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // SAFETY: `raw` came from peer_new and is freed once.
        unsafe { peer_free(self.raw) }
    }
}

/// Siconos' default pivot cap.
pub fn max_iterations() -> i32 {
    let peer = Peer::new(&[1.0], 1);
    // SAFETY: `raw` is live.
    unsafe { peer_max_iterations(peer.raw) }
}

/// One timed pass over `lcps` (ns per LCP), then the wrong answers (failure
/// or residual violation above `tolerance`), judged outside the timing.
pub fn solve_all(a: &[f64], lcps: &[Vec<f64>], tolerance: f64) -> (f64, usize) {
    let n = lcps[0].len();
    let mut peer = Peer::new(a, n);
    let mut z = vec![0.0; n * lcps.len()];
    let mut w = vec![0.0; n];
    let mut ok = vec![false; lcps.len()];
    let start = Instant::now();
    for (k, q) in lcps.iter().enumerate() {
        ok[k] = peer.solve(q, &mut z[k * n..(k + 1) * n], &mut w);
    }
    let ns = start.elapsed().as_nanos() as f64 / lcps.len() as f64;
    let wrong = lcps
        .iter()
        .enumerate()
        .filter(|&(k, q)| {
            let r = LcpResidual::compute(a, q, &z[k * n..(k + 1) * n], &mut w);
            !ok[k] || r.violation().is_nan() || r.violation() > tolerance
        })
        .count();
    (ns, wrong)
}
