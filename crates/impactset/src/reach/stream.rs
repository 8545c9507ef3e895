//! The random streams of a batch (docs/model.md §12): one seed per state.
//!
//! State `k` of a batch with seed `s` samples exactly as a single run with
//! seed `state_seed(s, k)` would (docs/model.md §7): sample `i` of state `k`
//! reads the cap and selection streams of index `i` under the key
//! `ChaCha8Rng::seed_from_u64(state_seed(s, k))`. The state seed is the
//! first 64-bit word of ChaCha8 stream `2⁶² + k` under the batch seed's key,
//! so it depends on `(s, k)` only: not on the other states, the thread
//! count, the batch split, the shard or the backend. The GPU takes the
//! state's key exactly as it takes a run's.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::sampling::stream::stream_key;

/// Stream numbers of the state-seed streams are the state index plus this
/// (below the selection streams' `2⁶³`, above any cap stream a run reaches).
pub const STATE_STREAM_OFFSET: u64 = 1 << 62;

/// The seed of state `state` in a batch with seed `seed`: the words 0 and 1
/// of ChaCha8 stream `2⁶² + state` under `stream_key(seed)`, as
/// `w₀ + 2³² w₁`.
pub fn state_seed(seed: u64, state: u64) -> u64 {
    let mut rng = ChaCha8Rng::from_seed(stream_key(seed));
    rng.set_stream(STATE_STREAM_OFFSET.wrapping_add(state));
    rng.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_seed_is_two_words_of_its_own_stream() {
        let mut words = ChaCha8Rng::seed_from_u64(9);
        words.set_stream((1 << 62) + 4);
        let (w0, w1) = (words.next_u32() as u64, words.next_u32() as u64);
        assert_eq!(state_seed(9, 4), w0 | (w1 << 32));
    }

    #[test]
    fn states_and_seeds_get_distinct_state_seeds() {
        let seeds: std::collections::BTreeSet<u64> =
            (0..2).flat_map(|s| (0..1000).map(move |k| state_seed(s, k))).collect();
        assert_eq!(seeds.len(), 2000);
    }
}
