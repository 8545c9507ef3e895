//! Random streams shared by the CPU and the GPU (docs/model.md §7).
//!
//! Every sample owns two independent ChaCha8 streams keyed by the run's
//! 32-byte key (`rand_chacha::ChaCha8Rng::seed_from_u64(seed)`), each read
//! from word 0:
//!
//! * the **cap stream**, stream number = sample index: step `s`, contact `i`
//!   reads word `s·m + i` and draws `p_i = (x >> 8) · 2⁻²⁴ ∈ [0, 1)`
//!   ([`unit()`]). The same 24-bit value serves f32 and f64 (it is exact in
//!   both), so single- and double-precision runs use identical caps; the
//!   53-bit variant of docs/model.md §7 would make them differ.
//! * the **selection stream**, stream number = sample index + 2⁶³, read
//!   sequentially, only by the step-selection rules (docs/model.md §5b), so the caps
//!   are the same whatever rule runs. Per step:
//!   * `lemke`: no word;
//!   * `random-lemke`: `N` words, the covering vector
//!     `d_j = 2⁻⁶ + (x >> 8) · 2⁻²⁴ ∈ [1/64, 1 + 1/64)` ([`cover`]: a spread
//!     like `Exp(1)`'s without its tiny values, which would amplify round-off
//!     in the tableau by `1/d`), then one
//!     word, the lexicographic column offset `index(x, N)` ([`index`]);
//!   * `all`: one word, the pick `index(x, k)` among the `k` distinct
//!     velocity changes.
//!
//! * the **schedule stream**, stream number = sample index + 2⁶², read only
//!   by the cap laws other than `uniform` (docs/model.md §5c,
//!   [`crate::sampling::Schedule`]): word 0 picks the sample's law and hold
//!   length, words `1 ..= m` its persistent rates. `uniform` never opens it.
//!
//! The three stream numbers of a sample are distinct from those of every
//! other sample of a run whose indices lie below 2⁶².
//!
//! `index(x, k) = ((x >> 16) · k) >> 16` for `1 ≤ k ≤ 2¹⁶`: only 32-bit
//! integer arithmetic, as WGSL has no 64-bit integers.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Stream numbers of selection streams are the sample index plus this.
pub const SELECTION_STREAM_OFFSET: u64 = 1 << 63;

/// Stream numbers of schedule streams are the sample index plus this.
pub const SCHEDULE_STREAM_OFFSET: u64 = 1 << 62;

/// The 32-byte ChaCha8 key of a run seed (`ChaCha8Rng::seed_from_u64(seed)`).
pub fn stream_key(seed: u64) -> [u8; 32] {
    ChaCha8Rng::seed_from_u64(seed).get_seed()
}

/// A uniform number in `[0, 1)` from one word: `(x >> 8) · 2⁻²⁴`.
#[inline]
pub fn unit(x: u32) -> f64 {
    (x >> 8) as f64 * (1.0 / 16_777_216.0)
}

/// A covering-vector entry from one word: `2⁻⁶ + (x >> 8) · 2⁻²⁴`.
#[inline]
pub fn cover(x: u32) -> f64 {
    1.0 / 64.0 + unit(x)
}

/// A uniform index in `0..k` from one word: `((x >> 16) · k) >> 16`, `1 ≤ k ≤ 2¹⁶`.
#[inline]
pub fn index(x: u32, k: usize) -> usize {
    debug_assert!((1..=1 << 16).contains(&k));
    (((x >> 16) as u64 * k as u64) >> 16) as usize
}

/// The two streams of one sample.
#[derive(Clone)]
pub struct SampleStreams {
    caps: ChaCha8Rng,
    selection: ChaCha8Rng,
}

impl SampleStreams {
    /// The streams of sample `index` under `key`.
    #[inline]
    pub fn new(key: &[u8; 32], index: u64) -> Self {
        let mut caps = ChaCha8Rng::from_seed(*key);
        caps.set_stream(index);
        let mut selection = ChaCha8Rng::from_seed(*key);
        selection.set_stream(index.wrapping_add(SELECTION_STREAM_OFFSET));
        SampleStreams { caps, selection }
    }

    /// The next cap-stream word.
    #[inline]
    pub fn cap_word(&mut self) -> u32 {
        self.caps.next_u32()
    }

    /// Repositions the cap stream at word `word` (the `held` law reads the
    /// words of its last renewal step).
    #[inline]
    pub fn seek_caps(&mut self, word: u64) {
        self.caps.set_word_pos(u128::from(word));
    }

    /// The next selection-stream word.
    #[inline]
    pub fn selection_word(&mut self) -> u32 {
        self.selection.next_u32()
    }

    /// A `random-lemke` step's draws from the selection stream: writes the
    /// covering vector (`cover.len()` words, [`cover`]) and returns the
    /// lexicographic column offset (one more word, [`index`]).
    #[inline]
    pub fn random_cover(&mut self, cover: &mut [f64]) -> usize {
        for d in cover.iter_mut() {
            *d = self::cover(self.selection_word());
        }
        index(self.selection_word(), cover.len())
    }
}

/// The schedule stream of sample `index` under `key` (stream number
/// `index + 2⁶²`), at word 0.
pub fn schedule_stream(key: &[u8; 32], index: u64) -> ChaCha8Rng {
    let mut s = ChaCha8Rng::from_seed(*key);
    s.set_stream(index.wrapping_add(SCHEDULE_STREAM_OFFSET));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_stream_is_rand_chacha_stream_at_word_zero() {
        let key = stream_key(7);
        let mut s = SampleStreams::new(&key, 5);
        let mut reference = ChaCha8Rng::seed_from_u64(7);
        reference.set_stream(5);
        reference.set_word_pos(0);
        for _ in 0..40 {
            assert_eq!(s.cap_word(), reference.next_u32());
        }
        let mut sel = ChaCha8Rng::seed_from_u64(7);
        sel.set_stream(5 + (1 << 63));
        assert_eq!(s.selection_word(), sel.next_u32());
    }

    #[test]
    fn conversions_cover_their_ranges() {
        assert_eq!(unit(0), 0.0);
        assert!(unit(u32::MAX) < 1.0);
        assert_eq!(cover(0), 1.0 / 64.0);
        assert!(cover(u32::MAX) < 1.0 + 1.0 / 64.0);
        assert_eq!(index(0, 7), 0);
        assert_eq!(index(u32::MAX, 7), 6);
        assert_eq!(index(u32::MAX, 1), 0);
        // Every bucket is reachable.
        let hits: std::collections::BTreeSet<usize> =
            (0..1000u32).map(|j| index(j.wrapping_mul(4_294_967), 10)).collect();
        assert_eq!(hits.len(), 10);
    }
}
