//! Which contact-frame velocities a figure panel shows.

use crate::ImpactProblem;

/// One contact-frame velocity component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// The normal velocity `(Jn v)_i` (separating-positive).
    Normal,
    /// Tangential velocity `k` (`0` in the plane; `0` or `1` in space).
    Tangent(usize),
}

/// A contact-frame velocity: a contact and a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactAxis {
    /// Contact index (order of [`ImpactProblem::contacts`]).
    pub contact: usize,
    /// Which component.
    pub component: Component,
}

impl ContactAxis {
    /// The normal velocity of contact `i`.
    pub fn normal(contact: usize) -> Self {
        ContactAxis { contact, component: Component::Normal }
    }

    /// Tangential velocity `k` of contact `i`.
    pub fn tangent(contact: usize, k: usize) -> Self {
        ContactAxis { contact, component: Component::Tangent(k) }
    }

    /// Index of this component in `[Jn v; Jt v]` (the coordinates of
    /// [`Metric::Contact`](crate::analysis::Metric::Contact)).
    pub fn row(self, problem: &ImpactProblem) -> usize {
        match self.component {
            Component::Normal => self.contact,
            Component::Tangent(k) => problem.m() + self.contact * problem.dimension().tangents() + k,
        }
    }

    /// Axis label with the contact name and unit, e.g. `A normal velocity [m/s]`.
    pub fn label(self, problem: &ImpactProblem) -> String {
        let name = &problem.contacts()[self.contact].name;
        match self.component {
            Component::Normal => format!("{name} normal velocity [m/s]"),
            Component::Tangent(_) if problem.dimension().tangents() == 1 => format!("{name} tangent velocity [m/s]"),
            Component::Tangent(k) => format!("{name} tangent {} velocity [m/s]", k + 1),
        }
    }
}

/// A panel: `x` against `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panel {
    /// Horizontal axis.
    pub x: ContactAxis,
    /// Vertical axis.
    pub y: ContactAxis,
}

/// The most panels [`default_panels`] returns.
pub const MAX_DEFAULT_PANELS: usize = 9;

/// The default panels for `problem`, at most [`MAX_DEFAULT_PANELS`]:
///
/// 1. normal against normal for consecutive pairs of contacts `(A, B)`,
///    `(C, D)`, … (none for a single contact): where the contacts open;
/// 2. normal against tangent for every contact (`A`, `B`, …): stick, slide or
///    separate; in space, tangent 1 against tangent 2 follows each.
///
/// Two planar contacts give three panels; the five-contact disk stack gives
/// seven.
pub fn default_panels(problem: &ImpactProblem) -> Vec<Panel> {
    let m = problem.m();
    let mut panels = Vec::new();
    for i in (0..m.saturating_sub(1)).step_by(2) {
        panels.push(Panel { x: ContactAxis::normal(i), y: ContactAxis::normal(i + 1) });
    }
    for i in 0..m {
        panels.push(Panel { x: ContactAxis::tangent(i, 0), y: ContactAxis::normal(i) });
        if problem.dimension().tangents() == 2 {
            panels.push(Panel { x: ContactAxis::tangent(i, 0), y: ContactAxis::tangent(i, 1) });
        }
    }
    panels.truncate(MAX_DEFAULT_PANELS);
    panels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Contact;
    use nalgebra::{dmatrix, dvector};

    #[test]
    fn two_planar_contacts_give_three_panels() {
        let a = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
        let b = Contact::planar("B", dvector![1.0, 0.0], dvector![0.0, -1.0], 0.5);
        let p = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![-1.0, -1.0], vec![a, b]).unwrap();
        let panels = default_panels(&p);
        assert_eq!(panels.len(), 3);
        assert_eq!(panels[0], Panel { x: ContactAxis::normal(0), y: ContactAxis::normal(1) });
        assert_eq!(panels[2].y.label(&p), "B normal velocity [m/s]");
        assert_eq!(panels[2].x.label(&p), "B tangent velocity [m/s]");
        assert_eq!(panels[2].x.row(&p), 3);
    }
}
