//! `--shard I/J`: which states of a batch a shard runs.

use anyhow::Result;

use super::input_error;

/// `I/J` as numbers, `0 ≤ I < J`.
pub(super) fn shard_numbers(text: &str) -> Result<(u64, u64)> {
    let parsed =
        text.split_once('/').and_then(|(i, j)| Some((i.trim().parse::<u64>().ok()?, j.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((i, j)) if j > 0 && i < j => Ok((i, j)),
        _ => Err(input_error(format!("--shard {text}: expected I/J with 0 ≤ I < J < 2⁶⁴"))),
    }
}

/// `I/J` → the states `⌊I·B/J⌋ … ⌊(I+1)·B/J⌋ − 1` of shard `I` of `J`
/// (products in 128 bits: no overflow for any `I < J < 2⁶⁴`).
pub(super) fn shard_range(text: &str, states: usize) -> Result<std::ops::Range<usize>> {
    let (i, j) = shard_numbers(text)?;
    let at = |i: u64| (i as u128 * states as u128 / j as u128) as usize;
    Ok(at(i)..at(i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_states() {
        for states in [0, 1, 7, 10_000] {
            for k in 1..6 {
                let ranges: Vec<_> = (0..k).map(|i| shard_range(&format!("{i}/{k}"), states).unwrap()).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[k - 1].end, states);
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            }
        }
        assert!(shard_range("3/3", 10).is_err());
        assert!(shard_range("1", 10).is_err());
    }

    #[test]
    fn shard_arithmetic_does_not_overflow() {
        // I·B overflows 64 bits here; the last shard of J holds the last state.
        let j = 9_223_372_036_854_775_809u64;
        let last = shard_range(&format!("{}/{j}", j - 1), 12).unwrap();
        assert_eq!(last, 11..12);
        assert_eq!(shard_range(&format!("0/{j}"), 12).unwrap(), 0..0);
        // Exactly ⌊I·B/J⌋: I = (J − 1)/2 starts at ⌊6 − 6/J⌋ = 5.
        assert_eq!(shard_range(&format!("{}/{j}", (j - 1) / 2), 12).unwrap().start, 5);
        assert!(shard_range(&format!("{}/{}", u64::MAX - 1, u64::MAX), usize::MAX).unwrap().end == usize::MAX);
    }
}
