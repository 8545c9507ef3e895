//! The states of a batch: one problem with many pre-impact velocities, or
//! many problems of equal sizes.

use std::borrow::Cow;

use nalgebra::DVector;

use super::ReachError;
use crate::io::ProblemSpec;
use crate::problem::RANGE;
use crate::{Dimension, ImpactProblem};

/// One state given as a whole problem.
#[derive(Clone, Debug)]
pub struct StateProblem {
    /// Name written in the table's `problem` column.
    pub name: String,
    /// The problem (its `v⁻` is the state's pre-impact velocity).
    pub problem: ImpactProblem,
    /// Impulse step `h` of this state, if its file or scene gives one
    /// (else [`default_step_size`](crate::sampling::default_step_size) unless the batch sets one).
    pub step_size: Option<f64>,
}

impl From<ProblemSpec> for StateProblem {
    fn from(spec: ProblemSpec) -> Self {
        StateProblem { name: spec.name, problem: spec.problem, step_size: spec.step_size }
    }
}

/// The pre-impact states of a batch, in state order `k = 0, 1, …`.
#[derive(Clone, Debug)]
pub struct ReachInput {
    states: States,
}

#[derive(Clone, Debug)]
enum States {
    /// One configuration (`M`, contacts), `B` pre-impact velocities,
    /// row-major `B × n`.
    Velocities { base: Box<StateProblem>, velocities: Vec<f64> },
    /// Problems of equal sizes; `orders[k]`: where each of the first
    /// problem's contacts is in problem `k` (`None`: in the same place).
    Problems { problems: Vec<StateProblem>, orders: Vec<Option<Vec<usize>>> },
}

impl ReachInput {
    /// The states `(M, contacts, v_k)` for every row `v_k` of the row-major
    /// `B × n` array `velocities`; `base` gives the configuration, the name
    /// and the step size (its own `v⁻` is not a state).
    ///
    /// Errors: [`ReachError::Velocities`] when the length is not a multiple
    /// of `n` or an entry is not finite or beyond
    /// [`RANGE`](crate::problem::RANGE); the rest of a state's checks (its
    /// energy, velocity scale, step size) run before the batch does
    /// ([`validate`](super::validate)).
    pub fn velocities(base: StateProblem, velocities: Vec<f64>) -> Result<Self, ReachError> {
        let n = base.problem.n();
        if velocities.len() % n != 0 {
            return Err(ReachError::Velocities(format!(
                "{} entries is not a whole number of rows of n = {n}",
                velocities.len()
            )));
        }
        if let Some(at) = velocities.iter().position(|x| !x.is_finite()) {
            return Err(ReachError::Velocities(format!("velocities[{}][{}] = {}", at / n, at % n, velocities[at])));
        }
        if let Some(at) = velocities.iter().position(|x| x.abs() > RANGE) {
            return Err(ReachError::Velocities(format!(
                "velocities[{}][{}] = {:e}: beyond {RANGE:e} in magnitude (docs/model.md §1, Range); rescale the units",
                at / n,
                at % n,
                velocities[at]
            )));
        }
        Ok(ReachInput { states: States::Velocities { base: Box::new(base), velocities } })
    }

    /// One state per problem. All must have the sizes of the first: `n`,
    /// `m`, planar or spatial, `d` (one table has one set of columns), and
    /// its contact names: in the same order, or, when the names of each
    /// problem are distinct, in any order (a state's per-contact columns,
    /// directions and mode labels then follow the names, not the places).
    ///
    /// Errors: [`ReachError::Shape`] naming the first state that differs.
    pub fn problems(problems: Vec<StateProblem>) -> Result<Self, ReachError> {
        let mut orders = Vec::with_capacity(problems.len());
        if let Some(first) = problems.first() {
            let sizes = Sizes::of(&first.problem);
            let names = contact_names(&first.problem);
            orders.push(None);
            for (k, p) in problems.iter().enumerate().skip(1) {
                let shape = |found: String, expected: String| ReachError::Shape {
                    state: k,
                    name: p.name.clone(),
                    found,
                    expected,
                };
                let other = Sizes::of(&p.problem);
                if other != sizes {
                    return Err(shape(other.to_string(), sizes.to_string()));
                }
                let theirs = contact_names(&p.problem);
                if theirs == names {
                    orders.push(None);
                    continue;
                }
                let order = names
                    .iter()
                    .map(|name| theirs.iter().position(|t| t == name))
                    .collect::<Option<Vec<usize>>>()
                    .filter(|_| distinct(&names) && distinct(&theirs));
                match order {
                    Some(order) => orders.push(Some(order)),
                    None => {
                        return Err(shape(
                            format!("contacts {}", theirs.join(", ")),
                            format!("contacts {} (distinct names, in any order)", names.join(", ")),
                        ));
                    }
                }
            }
        }
        Ok(ReachInput { states: States::Problems { problems, orders } })
    }

    /// Where each of the batch's contacts (the template's, in its order) is
    /// in state `k`'s problem: `None` when in the same place.
    pub fn contact_order(&self, k: usize) -> Option<&[usize]> {
        match &self.states {
            States::Velocities { .. } => None,
            States::Problems { orders, .. } => orders.get(k).and_then(|o| o.as_deref()),
        }
    }

    /// Number of states `B`.
    pub fn len(&self) -> usize {
        match &self.states {
            States::Velocities { base, velocities } => velocities.len() / base.problem.n(),
            States::Problems { problems, .. } => problems.len(),
        }
    }

    /// No states.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A problem with the batch's sizes and contacts (the first state's, or
    /// the configuration's), `None` for an empty list of problems.
    pub fn template(&self) -> Option<&StateProblem> {
        match &self.states {
            States::Velocities { base, .. } => Some(base.as_ref()),
            States::Problems { problems, .. } => problems.first(),
        }
    }

    /// The base problem and the `B × n` velocities of a batch given as
    /// velocities (`None` for a list of problems).
    pub(crate) fn velocity_rows(&self) -> Option<(&StateProblem, &[f64])> {
        match &self.states {
            States::Velocities { base, velocities } => Some((base, velocities)),
            States::Problems { .. } => None,
        }
    }

    /// Whether every state has the same `M` and contacts, so per-thread
    /// workspaces of one state serve every other.
    pub(crate) fn shares_operators(&self) -> bool {
        matches!(self.states, States::Velocities { .. })
    }

    /// The states in `states` in which no contact is colliding (every
    /// `(Jn v⁻)_i ≥ 0`, [`ProblemWarning::NothingColliding`]): each of their
    /// samples ends after 0 steps with `v⁺ = v⁻`, which is rarely meant.
    ///
    /// [`ProblemWarning::NothingColliding`]: crate::ProblemWarning::NothingColliding
    pub fn resting_states(&self, states: std::ops::Range<usize>) -> Vec<usize> {
        match &self.states {
            States::Velocities { base, velocities } => {
                let p = &base.problem;
                let n = p.n();
                states
                    .filter(|&k| {
                        let v = DVector::from_column_slice(&velocities[k * n..(k + 1) * n]);
                        p.normal_velocities(&v).iter().all(|&u| u >= 0.0)
                    })
                    .collect()
            }
            States::Problems { problems, .. } => {
                states.filter(|&k| problems[k].problem.colliding().is_empty()).collect()
            }
        }
    }

    /// The warning for [`resting_states`](Self::resting_states) among
    /// `states`, naming them (`state 3: …`, `states 3, 7, 9 and 2 more (5 of
    /// 10): …`); `None` when every state has a colliding contact.
    pub fn resting_warning(&self, states: std::ops::Range<usize>) -> Option<String> {
        let total = states.len();
        let resting = self.resting_states(states);
        let why = crate::ProblemWarning::NothingColliding;
        match resting.as_slice() {
            [] => None,
            [k] => Some(format!("state {k}: {why}")),
            many => {
                let shown: Vec<String> = many.iter().take(8).map(usize::to_string).collect();
                let more = if many.len() > 8 { format!(" and {} more", many.len() - 8) } else { String::new() };
                Some(format!("states {}{more} ({} of {total}): {why}", shown.join(", "), many.len()))
            }
        }
    }

    /// State `k` (`k < len()`).
    ///
    /// Errors: [`ReachError::Problem`] when the state's problem is invalid.
    pub fn state(&self, k: usize) -> Result<Cow<'_, StateProblem>, ReachError> {
        match &self.states {
            States::Velocities { base, velocities } => {
                let p = &base.problem;
                let n = p.n();
                let v = DVector::from_column_slice(&velocities[k * n..(k + 1) * n]);
                let problem = ImpactProblem::with_friction_directions(
                    p.mass().clone(),
                    v,
                    p.contacts().to_vec(),
                    Some(p.friction_directions()),
                )
                .and_then(|problem| problem.with_bilateral(p.bilateral().clone()))
                .map_err(|source| ReachError::Problem { state: k, source })?;
                Ok(Cow::Owned(StateProblem { name: base.name.clone(), problem, step_size: base.step_size }))
            }
            States::Problems { problems, .. } => Ok(Cow::Borrowed(&problems[k])),
        }
    }
}

fn contact_names(p: &ImpactProblem) -> Vec<&str> {
    p.contacts().iter().map(|c| c.name.as_str()).collect()
}

fn distinct(names: &[&str]) -> bool {
    let set: std::collections::HashSet<&&str> = names.iter().collect();
    set.len() == names.len()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sizes {
    n: usize,
    m: usize,
    dimension: Dimension,
    d: usize,
}

impl Sizes {
    fn of(p: &ImpactProblem) -> Self {
        Sizes { n: p.n(), m: p.m(), dimension: p.dimension(), d: p.friction_directions() }
    }
}

impl std::fmt::Display for Sizes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.dimension == Dimension::Planar { "planar" } else { "spatial" };
        write!(f, "n = {}, m = {} {kind} contacts, d = {}", self.n, self.m, self.d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Contact;
    use nalgebra::{DMatrix, dmatrix, dvector};

    #[test]
    fn velocity_states_keep_the_bilateral_constraints() {
        // Two points on a line joined by a rod, the first hitting a wall.
        let wall = Contact::planar("A", dvector![1.0, 0.0], dvector![0.0, 0.0], 0.0);
        let problem = ImpactProblem::new(DMatrix::identity(2, 2), dvector![-1.0, -1.0], vec![wall])
            .unwrap()
            .with_bilateral(dmatrix![1.0, -1.0])
            .unwrap();
        let base = StateProblem { name: "rod".into(), problem, step_size: None };
        let input = ReachInput::velocities(base, vec![-2.0, -2.0, -3.0, 1.0]).unwrap();
        let state = input.state(1).unwrap();
        assert_eq!(state.problem.bilateral(), &dmatrix![1.0, -1.0]);
        // (−3, 1) projected onto v₁ = v₂ with M = I.
        assert!((state.problem.velocity() - dvector![-1.0, -1.0]).amax() < 1e-15);
    }
}
