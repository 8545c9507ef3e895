//! Which solution of a step LCP a sample follows (docs/model.md §5b).

/// The rule that picks one solution of each Routh step LCP.
///
/// A step LCP can have several solutions with different velocity changes
/// (the compass gait: typically three). The post-impact set is the union over
/// all of them, so a sampler must give each a positive chance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// Lemke with covering vector `1` and the natural lexicographic order:
    /// deterministic, what the published reference does (through PATH). Misses
    /// whole branches of outcomes where steps have several solutions.
    Lemke,
    /// One Lemke solve per step with a random covering vector and a random
    /// lexicographic column order from the sample's selection stream. Cheap;
    /// reaches every solution of LCP index +1, never one of index −1.
    RandomLemke,
    /// Every solution of the step (contact-mode enumeration), one picked
    /// uniformly among the distinct velocity changes. The default.
    All,
}

impl Selection {
    /// The rule of a run that names none.
    pub const DEFAULT: Selection = Selection::All;

    /// Whether the rule finds every solution of each step LCP (a contact-mode
    /// enumeration, docs/model.md §5b) rather than one by a Lemke solve: its
    /// cost grows with the number of mode tuples, it reaches solutions of
    /// index −1, and a step's outcome records whether the search was
    /// exhaustive.
    pub fn enumerates(self) -> bool {
        match self {
            Selection::Lemke | Selection::RandomLemke => false,
            Selection::All => true,
        }
    }
}

impl Default for Selection {
    fn default() -> Self {
        Selection::DEFAULT
    }
}

crate::names::named_choices! { Selection, UnknownSelection, "selection rule", [
    Lemke = "lemke": "deterministic Lemke (covering vector 1), the published reference's rule; misses branches",
    RandomLemke = "random-lemke": "one Lemke solve per step with a random covering vector; misses index −1 solutions",
    All = "all": "every solution of each step (contact-mode enumeration), one picked uniformly",
] }
