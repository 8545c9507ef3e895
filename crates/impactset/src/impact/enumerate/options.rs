//! What a [`StepEnumerator`](super::StepEnumerator) may do, kept apart by
//! whether it can change an answer: [`EnumeratorOptions`] holds what can
//! (the node budget, the Lemke solves that complete a search cut short, the
//! bound), [`EnumeratorTuning`] what only changes the cost (the store of
//! records kept from step to step). What the enumerations did is counted in
//! [`EnumerationCounts`].

/// Options of [`StepEnumerator`](super::StepEnumerator).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnumeratorOptions {
    /// Mode fixes (search nodes and forward-checking probes: one contact's
    /// mode fixed on a partial tuple, 0.5–2 µs each) the search may make
    /// before it gives up being exhaustive: a guard against a runaway step,
    /// about 8 s on four spatial contacts and 20–35 s on eight. Default
    /// `1 << 24` (16 777 216): `cube-flat`'s longest searches take about
    /// 200 000 fixes; a humanoid standing on both flat feet (eight spatial
    /// contacts) needed up to 5.7 million on every step of 8 samples under
    /// the uniform law, and under the default `mixed` law 1 % of its steps
    /// need more than this guard (14 % more than the million of the default
    /// before; docs/performance.md).
    pub node_budget: usize,
    /// Lemke solves with pseudo-random covering vectors that complete a
    /// search cut short by the budget. Default `16`.
    pub fallback_solves: usize,
    /// Whether a step starts with one Lemke solve and the bound it puts on
    /// every other solution (docs/model.md#5b4-the-bound-from-one-solution): the modes no solution can
    /// have are not searched, and a step whose `Δv` it proves unique stops
    /// at the first solution. The velocity changes found do not depend on
    /// it beyond round-off (a certified step keeps the Lemke solution; a
    /// step whose friction cone is widened, `b_γ ≠ 0`, starts with the
    /// bound whenever the problem has [`bound_min_tuples`](Self::bound_min_tuples),
    /// and when it certifies the step keeps that Lemke solution). Default
    /// `true`.
    pub bound: bool,
    /// The fewest mode tuples (the product of the contacts' mode counts)
    /// for which a step starts with the bound: below, searching costs less
    /// than the Lemke solve (two planar contacts: 49 tuples, a few
    /// microseconds a step). Below, a step with `b_γ ≠ 0` does not either,
    /// nor its twinned search: it keeps the first mode tuple of each `Δv`,
    /// as the GPU's enumeration does. Default 100.
    pub bound_min_tuples: f64,
    /// What changes only the cost.
    pub tuning: EnumeratorTuning,
}

impl Default for EnumeratorOptions {
    fn default() -> Self {
        EnumeratorOptions {
            node_budget: 1 << 24,
            fallback_solves: 16,
            bound: true,
            bound_min_tuples: 100.0,
            tuning: EnumeratorTuning::default(),
        }
    }
}

/// What a [`StepEnumerator`](super::StepEnumerator) may keep from step to
/// step: the results do not depend on it, bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumeratorTuning {
    /// Bytes the enumerator may keep of the tableaux of the modes it fixes,
    /// from step to step (per enumerator, that is per thread; see
    /// `tableaux/records/`): once full, further nodes are computed without
    /// being kept, and the next enumeration starts afresh. Records are kept
    /// only when the search tree's records would fit twice this (not for
    /// four spatial contacts), and never with `0`. Default 32 MiB.
    pub cache_bytes: usize,
    /// Records kept whenever the store is not empty, those that do not fit
    /// included (the store then fills and starts afresh): only the tests of
    /// that path build it.
    #[cfg(test)]
    pub(super) record_always: bool,
}

impl Default for EnumeratorTuning {
    fn default() -> Self {
        EnumeratorTuning {
            cache_bytes: 32 << 20,
            #[cfg(test)]
            record_always: false,
        }
    }
}

/// What the enumerations of one [`StepEnumerator`](super::StepEnumerator)
/// did since it was built ([`counts`](super::StepEnumerator::counts)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnumerationCounts {
    /// Enumerations (steps).
    pub steps: u64,
    /// Steps whose `Δv` the bound from a Lemke solution certified unique
    /// (docs/model.md#5b10-when-a-step-is-certified).
    pub certified: u64,
    /// Steps searched to the end, not certified.
    pub enumerated: u64,
    /// Steps not exhaustive: the search hit its budget (or could not run:
    /// more than 64 contacts with their twins, `widened.rs`) and
    /// Lemke solves completed the list.
    pub not_exhaustive: u64,
    /// Which parts of the certificate settled the certified steps.
    pub certificates: CertificateCounts,
}

/// Certified steps by the part of friction's linear form that settled them
/// (docs/model.md#5b6-the-certificate-from-frictions-linear-form), and the Lemke solutions refined on their basis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CertificateCounts {
    /// Certified with the normal terms weighed in (`τ ≠ 1`) where the
    /// form alone did not certify.
    pub weighed: u64,
    /// Certified only with the null pattern held by the normal impulses it
    /// moves.
    pub patterned: u64,
    /// Certified only with the pattern's combined rows, friction cones
    /// included.
    pub combined: u64,
    /// Certified only from another representative of the solution's face,
    /// and those of them with a contact sliding.
    pub recentred: u64,
    pub recentred_sliding: u64,
    /// Certified steps whose Lemke solution was refined on its final basis.
    pub refined: u64,
}
