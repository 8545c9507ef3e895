//! How samples' floats are written as JSON.

use serde::Serializer;

/// Serializes a float as a JSON number when finite, else as the string
/// `"inf"`, `"-inf"` or `"nan"` (JSON has no such numbers; serde_json would
/// write `null`).
pub fn finite_or_string<S: Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        serializer.serialize_f64(*x)
    } else if x.is_nan() {
        serializer.serialize_str("nan")
    } else if *x > 0.0 {
        serializer.serialize_str("inf")
    } else {
        serializer.serialize_str("-inf")
    }
}
