//! Which solution of a step LCP a sample follows (docs/model.md §5b).

use std::fmt;

/// The rule that picks one solution of each Routh step LCP.
///
/// A step LCP can have several solutions with different velocity changes
/// (the compass gait: typically three). The post-impact set is the union over
/// all of them, so a sampler must give each a positive chance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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
    #[default]
    All,
}

impl Selection {
    /// Every rule, in the order the command line lists them.
    pub const ALL: [Selection; 3] = [Selection::Lemke, Selection::RandomLemke, Selection::All];

    /// One line on what the rule does (for help texts).
    pub fn summary(self) -> &'static str {
        match self {
            Selection::Lemke => {
                "deterministic Lemke (covering vector 1), the published reference's rule; misses branches"
            }
            Selection::RandomLemke => {
                "one Lemke solve per step with a random covering vector; misses index −1 solutions"
            }
            Selection::All => "every solution of each step (contact-mode enumeration), one picked uniformly",
        }
    }

    /// The name used on the command line and in summaries.
    pub fn name(self) -> &'static str {
        match self {
            Selection::Lemke => "lemke",
            Selection::RandomLemke => "random-lemke",
            Selection::All => "all",
        }
    }
}

/// A selection rule's name that is none of [`Selection::ALL`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown selection rule {0:?}: expected one of lemke, random-lemke, all")]
pub struct UnknownSelection(pub String);

impl std::str::FromStr for Selection {
    type Err = UnknownSelection;

    /// Parses `lemke`, `random-lemke` or `all` ([`Selection::name`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Selection::ALL.into_iter().find(|rule| rule.name() == s).ok_or_else(|| UnknownSelection(s.to_string()))
    }
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
