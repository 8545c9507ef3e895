//! The table of a batch: one row per state, columns named and typed by a
//! [`ReachSchema`] (docs/model.md §12 lists them).

use super::ReachError;
use super::options::{Direction, column_name};
use crate::analysis::ContactMode;
use crate::{Dimension, ImpactProblem};

/// The figures of one state's post-impact set.
///
/// Figures over the set are over its accepted outcomes; with none accepted
/// they are `NaN` (distances `∞`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReachRow {
    /// State index `k` in the batch.
    pub state: u64,
    /// The state's seed ([`state_seed`](super::state_seed)): `impactset
    /// sample` with this seed reproduces the state's samples.
    pub seed: u64,
    /// Problem name.
    pub problem: String,
    /// Impulse step `h` used.
    pub step_size: f64,
    /// The pre-impact velocity `v⁻` (`n`).
    pub v_minus: Vec<f64>,
    /// Samples run.
    pub samples: u64,
    /// Accepted samples.
    pub accepted: u64,
    /// Rejected: not terminated within the step cap (including failed LCPs).
    pub unterminated: u64,
    /// Rejected: terminated, residual above tolerance.
    pub inaccurate: u64,
    /// LCP steps per sample.
    pub mean_steps: f64,
    /// The largest step violation of any sample.
    pub max_residual: f64,
    /// Steps where `all` completed its list with Lemke solves.
    pub fallback_steps: u64,
    /// `E(v⁻) = ½ v⁻ᵀ M v⁻`.
    pub energy_before: f64,
    /// Smallest `E(v⁺)/E(v⁻)` over the set.
    pub energy_ratio_min: f64,
    /// Largest `E(v⁺)/E(v⁻)` over the set.
    pub energy_ratio_max: f64,
    /// Share of the set in which each contact is in each mode, contact-major
    /// in [`ReachSchema::modes`] order.
    pub mode_shares: Vec<f64>,
    /// Distinct joint contact modes in the set.
    pub joint_modes: u64,
    /// The most frequent joint mode, e.g. `A sticks, B separates` (ties: the
    /// first in mode order; empty for an empty set).
    pub top_mode: String,
    /// Its share of the set.
    pub top_mode_share: f64,
    /// `max cᵀv⁺` over the set, per direction.
    pub support_max: Vec<f64>,
    /// `min cᵀv⁺` over the set, per direction.
    pub support_min: Vec<f64>,
    /// Per direction, the best `cᵀv⁺` of the set and the directed search
    /// (a certified lower bound on the support, at least `support_max`);
    /// empty without [`ReachOptions::extremes`](super::ReachOptions::extremes).
    pub support_extreme: Vec<f64>,
    /// `‖v⁻‖_M`, the scale of the ε figures.
    pub velocity_norm: f64,
    /// Covering-radius estimate `ε(S_net; S_held)` in the energy norm.
    pub epsilon: f64,
    /// Held-out accepted samples behind `epsilon`.
    pub heldout: u64,
    /// The certificate: with confidence `1 − δ`, a new sample lands farther
    /// than `epsilon` from the net with probability below this.
    pub miss_probability: f64,
    /// Energy-norm distance of every simultaneous outcome to the set (their
    /// number varies from state to state).
    pub simultaneous: Vec<f64>,
    /// Energy-norm distance of the sequential outcome from each starting
    /// contact to the set (`m`).
    pub sequential: Vec<f64>,
    /// Baseline outcomes farther than `epsilon` from the set.
    pub baselines_outside: u64,
    /// The extremes check: the largest energy-norm distance from an ordered
    /// anchor or a direction's search outcome to the set (`NaN` without
    /// [`ReachOptions::extremes`](super::ReachOptions::extremes)).
    pub extremes_gap: f64,
}

/// The type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// Unsigned 64-bit integer.
    U64,
    /// 64-bit float.
    F64,
    /// UTF-8 text.
    Text,
    /// A list of 64-bit floats (Parquet `list<double>`; CSV: `;`-separated).
    F64List,
}

/// A column of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its type.
    pub kind: ColumnKind,
}

/// One cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// A [`ColumnKind::U64`] cell.
    U64(u64),
    /// A [`ColumnKind::F64`] cell.
    F64(f64),
    /// A [`ColumnKind::Text`] cell.
    Text(&'a str),
    /// A [`ColumnKind::F64List`] cell.
    F64List(&'a [f64]),
}

/// The columns of a batch's table, fixed by the batch's sizes, contact
/// names, directions and whether baselines are computed.
#[derive(Clone, Debug, PartialEq)]
pub struct ReachSchema {
    n: usize,
    contacts: Vec<String>,
    modes: Vec<ContactMode>,
    directions: Vec<String>,
    baselines: bool,
    extremes: bool,
    columns: Vec<Column>,
}

impl ReachSchema {
    /// The schema for states shaped like `template`; `extremes` adds the
    /// `<direction>_extreme` and `extremes_gap` columns.
    ///
    /// Errors: two columns of one name — [`ReachError::Direction`] for a
    /// direction whose `<name>_max` or `_min` is another column
    /// (`energy_ratio`, `simultaneous`, …), [`ReachError::Contact`] for
    /// contacts whose column stems coincide (`left foot`, `left_foot`).
    pub fn new(
        template: &ImpactProblem,
        directions: &[Direction],
        baselines: bool,
        extremes: bool,
    ) -> Result<Self, ReachError> {
        let mut modes = match template.dimension() {
            Dimension::Planar => {
                vec![
                    ContactMode::Separates,
                    ContactMode::Sticks,
                    ContactMode::SlidesPositive,
                    ContactMode::SlidesNegative,
                ]
            }
            Dimension::Spatial => vec![ContactMode::Separates, ContactMode::Sticks, ContactMode::Slides],
        };
        if template.has_restitution() {
            modes.insert(1, ContactMode::Rebounds);
        }
        let mut schema = ReachSchema {
            n: template.n(),
            contacts: template.contacts().iter().map(|c| column_name(&c.name)).collect(),
            modes,
            directions: directions.iter().map(|d| d.name.clone()).collect(),
            baselines,
            extremes,
            columns: Vec::new(),
        };
        let columns = schema.build_columns();
        let mut seen: std::collections::HashMap<&str, Origin> = std::collections::HashMap::new();
        for (column, origin) in &columns {
            if let Some(before) = seen.insert(column.name.as_str(), *origin) {
                let why = format!("its column {} is already a column of the table", column.name);
                return Err(match (before, *origin) {
                    (_, Origin::Direction(i)) | (Origin::Direction(i), _) => {
                        ReachError::Direction { name: directions[i].name.clone(), why }
                    }
                    (_, Origin::Contact(i)) | (Origin::Contact(i), _) => {
                        ReachError::Contact { name: template.contacts()[i].name.clone(), why }
                    }
                    (Origin::Fixed, Origin::Fixed) => unreachable!("the fixed columns are distinct"),
                });
            }
        }
        schema.columns = columns.into_iter().map(|(c, _)| c).collect();
        Ok(schema)
    }

    /// Every column, in table order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The per-contact modes of the `<contact>_<mode>` share columns.
    pub fn modes(&self) -> &[ContactMode] {
        &self.modes
    }

    /// The support-direction stems.
    pub fn directions(&self) -> &[String] {
        &self.directions
    }

    /// The contacts' column stems, in the template's order.
    pub fn contacts(&self) -> &[String] {
        &self.contacts
    }

    fn build_columns(&self) -> Vec<(Column, Origin)> {
        use ColumnKind::*;
        let mut c = Vec::new();
        let origin = Origin::Fixed;
        let mut push = |name: String, kind, origin: Origin| c.push((Column { name, kind }, origin));
        push("state".into(), U64, origin);
        push("seed".into(), U64, origin);
        push("problem".into(), Text, origin);
        push("step_size".into(), F64, origin);
        for i in 0..self.n {
            push(format!("v_minus_{i}"), F64, origin);
        }
        for name in ["samples", "accepted", "unterminated", "inaccurate"] {
            push(name.into(), U64, origin);
        }
        push("mean_steps".into(), F64, origin);
        push("max_residual".into(), F64, origin);
        push("fallback_steps".into(), U64, origin);
        for name in ["energy_before", "energy_ratio_min", "energy_ratio_max"] {
            push(name.into(), F64, origin);
        }
        for (i, contact) in self.contacts.iter().enumerate() {
            for mode in &self.modes {
                push(format!("{contact}_{}", mode_stem(*mode)), F64, Origin::Contact(i));
            }
        }
        push("joint_modes".into(), U64, origin);
        push("top_mode".into(), Text, origin);
        push("top_mode_share".into(), F64, origin);
        for (i, d) in self.directions.iter().enumerate() {
            push(format!("{d}_max"), F64, Origin::Direction(i));
            push(format!("{d}_min"), F64, Origin::Direction(i));
            if self.extremes {
                push(format!("{d}_extreme"), F64, Origin::Direction(i));
            }
        }
        push("velocity_norm".into(), F64, origin);
        push("epsilon".into(), F64, origin);
        push("heldout".into(), U64, origin);
        push("miss_probability".into(), F64, origin);
        if self.extremes {
            push("extremes_gap".into(), F64, origin);
        }
        if self.baselines {
            push("simultaneous_count".into(), U64, origin);
            push("simultaneous_min".into(), F64, origin);
            push("simultaneous_max".into(), F64, origin);
            push("simultaneous".into(), F64List, origin);
            for (i, contact) in self.contacts.iter().enumerate() {
                push(format!("sequential_{contact}"), F64, Origin::Contact(i));
            }
            push("baselines_outside".into(), U64, origin);
        }
        c
    }

    /// The cells of `row`, in column order.
    pub fn values<'a>(&self, row: &'a ReachRow) -> Vec<Value<'a>> {
        use Value::*;
        let mut v = vec![U64(row.state), U64(row.seed), Text(&row.problem), F64(row.step_size)];
        v.extend(row.v_minus.iter().map(|x| F64(*x)));
        v.extend([U64(row.samples), U64(row.accepted), U64(row.unterminated), U64(row.inaccurate)]);
        v.extend([F64(row.mean_steps), F64(row.max_residual), U64(row.fallback_steps)]);
        v.extend([F64(row.energy_before), F64(row.energy_ratio_min), F64(row.energy_ratio_max)]);
        v.extend(row.mode_shares.iter().map(|x| F64(*x)));
        v.extend([U64(row.joint_modes), Text(&row.top_mode), F64(row.top_mode_share)]);
        for (j, (hi, lo)) in row.support_max.iter().zip(&row.support_min).enumerate() {
            v.extend([F64(*hi), F64(*lo)]);
            if self.extremes {
                v.push(F64(row.support_extreme.get(j).copied().unwrap_or(f64::NAN)));
            }
        }
        v.extend([F64(row.velocity_norm), F64(row.epsilon), U64(row.heldout), F64(row.miss_probability)]);
        if self.extremes {
            v.push(F64(row.extremes_gap));
        }
        if self.baselines {
            let (lo, hi) = row
                .simultaneous
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| (lo.min(*d), hi.max(*d)));
            let (lo, hi) = if row.simultaneous.is_empty() { (f64::NAN, f64::NAN) } else { (lo, hi) };
            v.extend([U64(row.simultaneous.len() as u64), F64(lo), F64(hi), F64List(&row.simultaneous)]);
            v.extend(row.sequential.iter().map(|x| F64(*x)));
            v.push(U64(row.baselines_outside));
        }
        debug_assert_eq!(v.len(), self.columns.len());
        v
    }
}

/// What made a column: the fixed list, contact `i` or direction `i`.
#[derive(Clone, Copy, Debug)]
enum Origin {
    Fixed,
    Contact(usize),
    Direction(usize),
}

/// The column stem of a contact mode: `separates`, `sticks`, `slides_pos`,
/// `slides_neg`, `slides`.
pub fn mode_stem(mode: ContactMode) -> &'static str {
    match mode {
        ContactMode::Separates => "separates",
        ContactMode::Rebounds => "rebounds",
        ContactMode::Sticks => "sticks",
        ContactMode::SlidesPositive => "slides_pos",
        ContactMode::SlidesNegative => "slides_neg",
        ContactMode::Slides => "slides",
    }
}
