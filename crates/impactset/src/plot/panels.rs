//! Which velocities a figure panel shows: contact-frame velocities, or
//! chosen velocity coordinates (a robot's base velocity, its joints).

use crate::ImpactProblem;
use crate::analysis::Embedding;

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

/// One axis of a panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// A contact-frame velocity.
    Contact(ContactAxis),
    /// The velocity coordinate `v_i` itself (a robot's base velocity
    /// component, a joint's rate), in the problem's units.
    Coordinate(usize),
}

impl From<ContactAxis> for Axis {
    fn from(axis: ContactAxis) -> Self {
        Axis::Contact(axis)
    }
}

impl Axis {
    /// Index of this axis in a figure point `[Jn v; Jt v; v]`: the
    /// contact-frame velocities, then the coordinates.
    pub fn row(self, problem: &ImpactProblem) -> usize {
        match self {
            Axis::Contact(axis) => axis.row(problem),
            Axis::Coordinate(i) => problem.m() * (1 + problem.dimension().tangents()) + i,
        }
    }

    /// Axis label: a contact axis's ([`ContactAxis::label`]), or the
    /// coordinate's name in `names` (else `v<i>`).
    pub fn label(self, problem: &ImpactProblem, names: Option<&[String]>) -> String {
        match self {
            Axis::Contact(axis) => axis.label(problem),
            Axis::Coordinate(i) => names.and_then(|n| n.get(i)).cloned().unwrap_or_else(|| format!("v{i}")),
        }
    }
}

/// A velocity `v` as a figure places it: its contact-frame velocities
/// `[Jn v; Jt v]` (`embed`, the problem's [`Metric::Contact`] embedding;
/// the contact axes), then `v` itself (the coordinate axes): entry
/// [`Axis::row`] is the axis's value.
///
/// [`Metric::Contact`]: crate::analysis::Metric::Contact
pub(crate) fn figure_point(embed: &Embedding, v: &[f64]) -> Vec<f64> {
    let mut point = embed.apply(v);
    point.extend_from_slice(v);
    point
}

/// A panel: `x` against `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panel {
    /// Horizontal axis.
    pub x: Axis,
    /// Vertical axis.
    pub y: Axis,
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
        panels.push(Panel { x: ContactAxis::normal(i).into(), y: ContactAxis::normal(i + 1).into() });
    }
    for i in 0..m {
        panels.push(Panel { x: ContactAxis::tangent(i, 0).into(), y: ContactAxis::normal(i).into() });
        if problem.dimension().tangents() == 2 {
            panels.push(Panel { x: ContactAxis::tangent(i, 0).into(), y: ContactAxis::tangent(i, 1).into() });
        }
    }
    panels.truncate(MAX_DEFAULT_PANELS);
    panels
}

/// The panels of chosen velocity coordinates: every pair `(a, b)` of
/// `coordinates` with `a` before `b`, in order, at most
/// [`MAX_DEFAULT_PANELS`] (two coordinates: one panel; three: three; four:
/// six). Fewer than two coordinates give none.
pub fn coordinate_panels(coordinates: &[usize]) -> Vec<Panel> {
    let mut panels = Vec::new();
    for (k, &a) in coordinates.iter().enumerate() {
        for &b in &coordinates[k + 1..] {
            panels.push(Panel { x: Axis::Coordinate(a), y: Axis::Coordinate(b) });
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
        assert_eq!(panels[0], Panel { x: ContactAxis::normal(0).into(), y: ContactAxis::normal(1).into() });
        assert_eq!(panels[2].y.label(&p, None), "B normal velocity [m/s]");
        assert_eq!(panels[2].x.label(&p, None), "B tangent velocity [m/s]");
        assert_eq!(panels[2].x.row(&p), 3);
    }

    #[test]
    fn coordinate_panels_pair_every_chosen_coordinate_and_sit_after_the_contact_rows() {
        let a = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
        let p = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![-1.0, -1.0], vec![a]).unwrap();
        let panels = coordinate_panels(&[1, 0, 1]);
        assert_eq!(panels.len(), 3);
        assert_eq!(panels[0], Panel { x: Axis::Coordinate(1), y: Axis::Coordinate(0) });
        // [Jn v; Jt v; v]: one normal and one tangent row, then v0, v1.
        assert_eq!(Axis::Coordinate(1).row(&p), 3);
        // The figure's data on those axes are the coordinates themselves.
        let embed = crate::analysis::Metric::Contact.embedding(&p);
        let v = [0.25, -0.5];
        let point = figure_point(&embed, &v);
        assert_eq!(point[Axis::Coordinate(0).row(&p)], 0.25);
        assert_eq!(point[Axis::Coordinate(1).row(&p)], -0.5);
        assert_eq!(point[Axis::Contact(ContactAxis::normal(0)).row(&p)], -0.5);
        assert_eq!(point[Axis::Contact(ContactAxis::tangent(0, 0)).row(&p)], 0.25);
        let names = ["base_vx".to_string(), "knee".to_string()];
        assert_eq!(Axis::Coordinate(1).label(&p, Some(&names)), "knee");
        assert_eq!(Axis::Coordinate(1).label(&p, None), "v1");
        assert!(coordinate_panels(&[4]).is_empty());
        assert_eq!(coordinate_panels(&[0, 1, 2, 3, 4, 5]).len(), MAX_DEFAULT_PANELS);
    }
}
