//! Unit tests of problem construction and validation (`mod.rs`).

use super::*;
use nalgebra::{dmatrix, dvector};

fn point() -> (DMatrix<f64>, DVector<f64>, Vec<Contact>) {
    let c = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
    (DMatrix::identity(2, 2), dvector![0.0, -1.0], vec![c])
}

#[test]
fn accepts_a_valid_problem() {
    let (m, v, c) = point();
    let p = ImpactProblem::new(m, v, c).unwrap();
    assert_eq!((p.n(), p.m(), p.friction_directions()), (2, 1, 2));
    assert_eq!(p.colliding(), vec![0]);
}

#[test]
fn rejects_each_kind_of_bad_input() {
    let (m, v, c) = point();
    let bad_mass = dmatrix![1.0, 0.0; 0.0, -1.0];
    assert_eq!(ImpactProblem::new(bad_mass, v.clone(), c.clone()).unwrap_err(), ProblemError::NotPositiveDefinite);
    let asym = dmatrix![1.0, 0.5; 0.0, 1.0];
    assert!(matches!(ImpactProblem::new(asym, v.clone(), c.clone()), Err(ProblemError::NotSymmetric { .. })));
    assert!(matches!(
        ImpactProblem::new(m.clone(), dvector![0.0, f64::NAN], c.clone()),
        Err(ProblemError::NonFinite { .. })
    ));
    assert_eq!(ImpactProblem::new(m.clone(), v.clone(), vec![]).unwrap_err(), ProblemError::NoContacts);
    let mut neg = c.clone();
    neg[0].friction = -0.1;
    assert!(matches!(ImpactProblem::new(m.clone(), v.clone(), neg), Err(ProblemError::NegativeFriction { .. })));
    let mut short = c.clone();
    short[0].normal = dvector![1.0];
    assert!(matches!(ImpactProblem::new(m.clone(), v.clone(), short), Err(ProblemError::RowLength { .. })));
    assert!(matches!(
        ImpactProblem::new(DMatrix::identity(3, 3), v.clone(), c.clone()),
        Err(ProblemError::MassShape { .. })
    ));
    assert!(matches!(
        ImpactProblem::with_friction_directions(m, v, c, Some(4)),
        Err(ProblemError::FrictionDirections { .. })
    ));
}

#[test]
fn spatial_directions_must_be_even_and_large_enough() {
    let c = Contact::spatial("A", dvector![0.0, 0.0, 1.0], [dvector![1.0, 0.0, 0.0], dvector![0.0, 1.0, 0.0]], 1.0);
    let (m, v) = (DMatrix::identity(3, 3), dvector![0.0, 0.0, -1.0]);
    let ok = ImpactProblem::new(m.clone(), v.clone(), vec![c.clone()]).unwrap();
    assert_eq!(ok.friction_directions(), 8);
    for d in [2, 5, 7] {
        let r = ImpactProblem::with_friction_directions(m.clone(), v.clone(), vec![c.clone()], Some(d));
        assert!(matches!(r, Err(ProblemError::FrictionDirections { .. })), "d = {d}");
    }
}

#[test]
fn bilateral_rows_are_checked_and_bad_ones_named() {
    let (m, v, c) = point();
    let p = ImpactProblem::new(m, v, c).unwrap();
    let same = p.clone().with_bilateral(DMatrix::zeros(0, 2)).unwrap();
    assert_eq!(same.bilateral().shape(), (0, 2));
    assert_eq!(same.velocity(), p.velocity());
    let e = p.clone().with_bilateral(dmatrix![1.0, 0.0, 0.0]).unwrap_err();
    assert_eq!((e.field(), e.detail()), ("bilateral[0]".to_string(), "has 3 entries, expected 2".to_string()));
    let e = p.clone().with_bilateral(dmatrix![1.0, 0.0; f64::NAN, 1.0]).unwrap_err();
    assert_eq!(e.field(), "bilateral[1][0]");
    let e = p.clone().with_bilateral(dmatrix![1.0, 1.0; 1.0, -1.0]).unwrap_err();
    assert_eq!(e, ProblemError::BilateralNoMotion { rank: 2 });
    // Fixing y leaves the floor contact nothing to act on.
    let e = p.clone().with_bilateral(dmatrix![0.0, 1.0]).unwrap_err();
    assert_eq!(e, ProblemError::BilateralBlocksContact { contact: 0 });
    assert_eq!(e.field(), "contacts[0].normal");
}

#[test]
fn a_violating_velocity_is_projected_and_reported() {
    let (m, _, c) = point();
    let rows = dmatrix![1.0, 1.0];
    let p = ImpactProblem::new(m.clone(), dvector![0.0, -1.0], c.clone()).unwrap().with_bilateral(rows).unwrap();
    // v on the line x + y = 0 nearest (M = I) to (0, −1).
    assert!((p.velocity() - dvector![0.5, -0.5]).amax() < 1e-15);
    assert!(
        matches!(p.warnings()[..], [ProblemWarning::ProjectedVelocity { change }] if (change - 0.5f64.sqrt()).abs() < 1e-15)
    );
    let ok = ImpactProblem::new(m, dvector![1.0, -1.0], c).unwrap().with_bilateral(dmatrix![1.0, 1.0]).unwrap();
    assert_eq!(ok.velocity(), &dvector![1.0, -1.0]);
    assert!(ok.warnings().is_empty());
    // Adding the rows one call at a time is adding them at once.
    let both = ok.clone().with_bilateral(dmatrix![2.0, 2.0]).unwrap();
    assert_eq!(both.bilateral().nrows(), 2);
    assert!((&both.operators().delassus - &ok.operators().delassus).amax() < 1e-15);
}

#[test]
fn default_names_run_through_the_alphabet() {
    assert_eq!(default_contact_name(0), "A");
    assert_eq!(default_contact_name(25), "Z");
    assert_eq!(default_contact_name(26), "AA");
}
