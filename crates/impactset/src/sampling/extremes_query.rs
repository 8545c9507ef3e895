//! What an extremes query may ask (docs/model.md §5d), checked once here for
//! every front end (the command line, Python, batches): how many
//! directions, how many schedules per direction, the directions' names, and
//! a direction written `NAME=c0,c1,…`.
//!
//! Both limits come from the layout of the search's selection-stream
//! indices: candidate `e` of direction `d` reads `2⁴¹ + d·2²⁴ + e`, and the
//! ordered anchors start at `2⁴²`. A direction owns a block of `2²⁴`
//! indices, and `2¹⁷` such blocks fill `[2⁴¹, 2⁴²)`; past either limit two
//! candidates would read the same stream (or an anchor's), and the search
//! would no longer be a function of its arguments.

use thiserror::Error;

use super::OptionsError;

/// Bits of a candidate's number within its direction's block of
/// selection-stream indices (`2⁴¹ + d·2²⁴ + e`).
pub(crate) const DIRECTION_BLOCK_BITS: u32 = 24;

/// The most schedules the search evaluates per direction: `2²⁴`, one
/// direction's block of selection-stream indices.
pub const MAX_EXTREMES_BUDGET: usize = 1 << DIRECTION_BLOCK_BITS;

/// The most directions one query searches: `2¹⁷`, the blocks of `2²⁴`
/// indices between the search's first index `2⁴¹` and the anchors' `2⁴²`.
pub const MAX_EXTREMES_DIRECTIONS: usize = 1 << (41 - DIRECTION_BLOCK_BITS);

/// Checks a search budget: at most [`MAX_EXTREMES_BUDGET`] schedules per
/// direction. The error's field is `budget`.
pub fn check_budget(budget: usize) -> Result<(), OptionsError> {
    if budget > MAX_EXTREMES_BUDGET {
        return Err(OptionsError {
            field: "budget",
            value: budget.to_string(),
            why: format!(
                "at most {MAX_EXTREMES_BUDGET} (2²⁴) schedules per direction: a direction's candidates read the \
                 2²⁴ selection streams of its block (docs/model.md §5d)"
            ),
        });
    }
    Ok(())
}

/// Checks a number of directions: at most [`MAX_EXTREMES_DIRECTIONS`]. The
/// error's field is `directions`.
pub fn check_direction_count(count: usize) -> Result<(), OptionsError> {
    if count > MAX_EXTREMES_DIRECTIONS {
        return Err(OptionsError {
            field: "directions",
            value: count.to_string(),
            why: format!(
                "at most {MAX_EXTREMES_DIRECTIONS} (2¹⁷) directions: each owns a block of 2²⁴ selection streams, \
                 and 2¹⁷ blocks fill those below the anchors' (docs/model.md §5d)"
            ),
        });
    }
    Ok(())
}

/// Why named directions cannot label a query's results (or a batch's
/// columns).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum DirectionNameError {
    /// Direction `position` (0-based) has an empty (or blank) name.
    #[error("direction #{position}: the name is empty")]
    Empty {
        /// Its place among the directions.
        position: usize,
    },
    /// Two directions share a name.
    #[error("direction {name}: the name is given twice")]
    Twice {
        /// The name.
        name: String,
    },
}

impl DirectionNameError {
    /// The name at fault (empty for [`DirectionNameError::Empty`]).
    pub fn name(&self) -> &str {
        match self {
            DirectionNameError::Empty { .. } => "",
            DirectionNameError::Twice { name } => name,
        }
    }

    /// What is wrong, without the name.
    pub fn why(&self) -> &'static str {
        match self {
            DirectionNameError::Empty { .. } => "the name is empty",
            DirectionNameError::Twice { .. } => "the name is given twice",
        }
    }
}

/// Checks the names of a query's (or a batch's) directions: each
/// non-blank, no two alike.
pub fn check_direction_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), DirectionNameError> {
    let mut seen = std::collections::HashSet::new();
    for (position, name) in names.into_iter().enumerate() {
        if name.trim().is_empty() {
            return Err(DirectionNameError::Empty { position });
        }
        if !seen.insert(name) {
            return Err(DirectionNameError::Twice { name: name.to_string() });
        }
    }
    Ok(())
}

/// Why a direction written `NAME=c0,c1,…` could not be read.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum DirectionSpecError {
    /// No `=` between the name and the numbers.
    #[error("expected NAME=c0,c1,…")]
    NoName,
    /// An entry that is not a number.
    #[error("entry {entry} ({text:?}) is not a number")]
    NotANumber {
        /// Its place (0-based).
        entry: usize,
        /// The text given.
        text: String,
    },
    /// Not `n` entries.
    #[error("expected {expected} finite numbers (the problem's velocity has {expected}), got {got}")]
    Length {
        /// The problem's `n`.
        expected: usize,
        /// Entries given.
        got: usize,
    },
    /// An entry that is NaN or infinite.
    #[error("entry {entry} is {value}, not a finite number")]
    NotFinite {
        /// Its place (0-based).
        entry: usize,
        /// Its value.
        value: f64,
    },
}

/// A direction written `NAME=c0,c1,…` with `n` finite numbers: its name
/// (trimmed; [`check_direction_names`] judges it among the others) and `c`.
pub fn parse_direction(text: &str, n: usize) -> Result<(String, Vec<f64>), DirectionSpecError> {
    let (name, values) = text.split_once('=').ok_or(DirectionSpecError::NoName)?;
    let c = values
        .split(',')
        .enumerate()
        .map(|(entry, x)| {
            x.trim().parse::<f64>().map_err(|_| DirectionSpecError::NotANumber { entry, text: x.trim().into() })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if c.len() != n {
        return Err(DirectionSpecError::Length { expected: n, got: c.len() });
    }
    if let Some((entry, &value)) = c.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(DirectionSpecError::NotFinite { entry, value });
    }
    Ok((name.trim().to_string(), c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::{ANCHOR_INDEX, SEARCH_INDEX};

    #[test]
    fn the_last_candidate_of_the_last_direction_lies_below_the_anchors() {
        let last = SEARCH_INDEX
            + ((MAX_EXTREMES_DIRECTIONS as u64 - 1) << DIRECTION_BLOCK_BITS)
            + (MAX_EXTREMES_BUDGET as u64 - 1);
        assert_eq!(last + 1, ANCHOR_INDEX);
    }

    #[test]
    fn limits_are_inclusive_and_errors_name_the_field() {
        assert!(check_budget(MAX_EXTREMES_BUDGET).is_ok());
        let e = check_budget(usize::MAX).unwrap_err();
        assert_eq!((e.field, e.value.as_str()), ("budget", "18446744073709551615"));
        assert!(check_direction_count(MAX_EXTREMES_DIRECTIONS).is_ok());
        assert_eq!(check_direction_count(MAX_EXTREMES_DIRECTIONS + 1).unwrap_err().field, "directions");
    }

    #[test]
    fn a_direction_spec_names_the_entry_at_fault() {
        assert_eq!(parse_direction(" z = 0, 0,1", 3), Ok(("z".into(), vec![0.0, 0.0, 1.0])));
        let nan = parse_direction("z=nan,0,0", 3);
        assert!(matches!(nan, Err(DirectionSpecError::NotFinite { entry: 0, value }) if value.is_nan()), "{nan:?}");
        let e = parse_direction("z=0,0,inf", 3).unwrap_err().to_string();
        assert_eq!(e, "entry 2 is inf, not a finite number");
        assert_eq!(parse_direction("z=0,x,0", 3), Err(DirectionSpecError::NotANumber { entry: 1, text: "x".into() }));
        assert_eq!(parse_direction("z=0,0", 3), Err(DirectionSpecError::Length { expected: 3, got: 2 }));
        assert_eq!(parse_direction("0,0,1", 3), Err(DirectionSpecError::NoName));
    }

    #[test]
    fn empty_and_repeated_names_are_refused() {
        assert_eq!(check_direction_names(["a", "b"]), Ok(()));
        assert_eq!(check_direction_names(["a", " "]), Err(DirectionNameError::Empty { position: 1 }));
        assert_eq!(check_direction_names(["a", "b", "a"]), Err(DirectionNameError::Twice { name: "a".into() }));
    }
}
