//! What a baseline predicts (docs/model.md §2, §3): outcomes and how the
//! simultaneous ones were found. In a file of their own so that the
//! baselines with restitution (`crate::sampling`) and the inelastic ones
//! share them without depending on each other.

use nalgebra::DVector;

use crate::ImpactProblem;

/// One predicted post-impact state.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ImpactOutcome {
    /// What produced it (e.g. `simultaneous 1/3`, `sequential from B`).
    pub label: String,
    /// The post-impact velocity `v⁺`.
    pub v_plus: Vec<f64>,
    /// Normal contact velocities `Jn v⁺`.
    pub normal_velocities: Vec<f64>,
    /// Tangential contact velocities `Jt v⁺`.
    pub tangent_velocities: Vec<f64>,
    /// Kinetic energy `½ v⁺ᵀ M v⁺`.
    pub energy: f64,
}

impl ImpactOutcome {
    pub(crate) fn new(problem: &ImpactProblem, label: String, v: DVector<f64>) -> Self {
        ImpactOutcome {
            label,
            normal_velocities: problem.normal_velocities(&v).as_slice().to_vec(),
            tangent_velocities: problem.tangent_velocities(&v).as_slice().to_vec(),
            energy: problem.kinetic_energy(&v),
            v_plus: v.as_slice().to_vec(),
        }
    }
}

/// How the simultaneous outcomes were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SolutionMethod {
    /// Every solution: every complementary index set was tried, or the
    /// contact-mode search was exhaustive. The list is complete.
    Enumerated,
    /// The LCP was too large to enumerate: the single Lemke solution.
    Lemke,
    /// The contact-mode search of the simultaneous LCP (docs/model.md §2)
    /// ran out of its budget: the solutions it found, completed by Lemke
    /// solves, possibly not all.
    Searched,
    /// With restitution: the distinct outcomes of several runs of the
    /// simultaneous process under the `all` rule, some step of which had
    /// several solutions (`crate::sampling::simultaneous_with_restitution`).
    Sampled,
    /// The LCP was too large to enumerate and no Lemke solve ended at a
    /// solution ([`SimultaneousOutcomes::failure`] says why): no outcome.
    Failed,
}

/// The simultaneous LCP's distinct post-impact velocities.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SimultaneousOutcomes {
    /// How they were found.
    pub method: SolutionMethod,
    /// One per distinct `v⁺`.
    pub outcomes: Vec<ImpactOutcome>,
    /// The impulses `[λn; λD]` (docs/model.md §2) of each outcome, in the
    /// same order: the solution of the simultaneous LCP it came from, by
    /// which it passed the acceptance check. Empty with restitution, whose
    /// outcomes are not solutions of that LCP.
    #[serde(skip)]
    pub impulses: Vec<Vec<f64>>,
    /// With [`SolutionMethod::Failed`]: why there is no outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}
