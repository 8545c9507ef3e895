//! Numbers in messages and summaries, as people read them.

/// `x` in plain decimals when `|x|` lies within `[1e-4, 1e6)` (or is 0),
/// else in scientific notation: `0.25`, `-3`, `1e300` (not 301 digits),
/// `2.5e-7`; `NaN`, `inf` and `-inf` as Rust writes them.
pub fn readable(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e6).contains(&x.abs()) { x.to_string() } else { format!("{x:e}") }
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn large_and_small_numbers_are_scientific_and_read_back_exactly() {
        for (x, text) in [(0.25, "0.25"), (-3.0, "-3"), (1e300, "1e300"), (-2.5e-7, "-2.5e-7"), (f64::NAN, "NaN")] {
            assert_eq!(readable(x), text);
        }
        for x in [1e300, 123456789.125, 1e-300, f64::MAX, f64::MIN_POSITIVE, 0.1] {
            assert_eq!(readable(x).parse::<f64>().unwrap(), x, "{x}");
        }
    }
}
