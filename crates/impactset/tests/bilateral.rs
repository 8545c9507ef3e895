//! Bilateral constraints (docs/model.md §1, "Bilateral constraints"):
//! constrained systems against the same systems in minimal coordinates,
//! redundant rows, and the invariants of every sample.

use impactset::impact::{sequential, simultaneous};
use impactset::{Contact, ImpactProblem, ProblemWarning, SampleSet, SamplerOptions, Selection, sample_set};
use nalgebra::{DMatrix, DVector, dmatrix, dvector};

const RULES: [Selection; 3] = [Selection::Lemke, Selection::RandomLemke, Selection::All];

fn options(rule: Selection, h: f64) -> SamplerOptions {
    SamplerOptions {
        samples: 256,
        step_size: Some(h),
        steps: Some(200),
        seed: 7,
        selection: rule,
        ..Default::default()
    }
}

/// Every sample of `a` is `map` of the same-index sample of `b`, within
/// `tol` of `b`'s largest `|v⁻|` entry, and both were accepted alike.
fn assert_maps(a: &SampleSet, b: (&SampleSet, &ImpactProblem), map: &DMatrix<f64>, tol: f64, what: &str) {
    let (b, problem) = b;
    assert_eq!(a.samples.len(), b.samples.len());
    let scale = problem.velocity().amax();
    let mut accepted = 0;
    for (sa, sb) in a.samples.iter().zip(&b.samples) {
        assert_eq!((sa.accepted, sa.terminated, sa.steps), (sb.accepted, sb.terminated, sb.steps), "{what}: {sa:?}");
        accepted += usize::from(sa.accepted);
        let expected = map * DVector::from_column_slice(&sb.v_plus);
        let err = (DVector::from_column_slice(&sa.v_plus) - &expected).amax();
        assert!(err <= tol * scale, "{what}: sample {}: {:?} vs {expected:?}", sa.index, sa.v_plus);
    }
    assert!(accepted > 200, "{what}: only {accepted} accepted");
}

/// Two unit-mass points in the plane, (x₁, y₁, x₂, y₂), joined by a rigid rod
/// along x; point 1 hits a wall x ≥ 0 with friction along y.
/// Along x they are one mass of 2: the lumped system is (X, y₁, y₂) with
/// M = diag(2, 1, 1).
#[test]
fn a_rod_along_the_wall_normal_is_one_lumped_mass() {
    for mu in [0.0, 0.3, 2.0] {
        let wall = Contact::planar("A", dvector![1.0, 0.0, 0.0, 0.0], dvector![0.0, 1.0, 0.0, 0.0], mu);
        let rod = ImpactProblem::new(DMatrix::identity(4, 4), dvector![-1.0, 0.4, -1.0, -0.7], vec![wall])
            .unwrap()
            .with_bilateral(dmatrix![1.0, 0.0, -1.0, 0.0])
            .unwrap();
        assert!(rod.warnings().is_empty());
        let wall = Contact::planar("A", dvector![1.0, 0.0, 0.0], dvector![0.0, 1.0, 0.0], mu);
        let lumped =
            ImpactProblem::new(DMatrix::from_diagonal(&dvector![2.0, 1.0, 1.0]), dvector![-1.0, 0.4, -0.7], vec![wall])
                .unwrap();
        let map = dmatrix![1.0, 0.0, 0.0; 0.0, 1.0, 0.0; 1.0, 0.0, 0.0; 0.0, 0.0, 1.0];
        for rule in RULES {
            let a = sample_set(&rod, &options(rule, 0.3));
            let b = sample_set(&lumped, &options(rule, 0.3));
            assert_maps(&a, (&b, &lumped), &map, 1e-12, &format!("μ = {mu}, {rule}"));
            // Plastic along x: both points stop; friction only slows y₁.
            for s in &a.samples {
                assert!(s.v_plus[0].abs() < 1e-12 && s.v_plus[2].abs() < 1e-12, "{:?}", s.v_plus);
                assert_eq!(s.v_plus[3], -0.7);
            }
        }
    }
}

/// The same two points on a line (n = 2) with `J_eq = [1, −1]`: the impact
/// of one mass of 2 on the wall, which stops both.
#[test]
fn a_rod_on_a_line_stops_both_masses() {
    let wall = Contact::planar("A", dvector![1.0, 0.0], dvector![0.0, 0.0], 0.0);
    let p = ImpactProblem::new(dmatrix![3.0, 0.0; 0.0, 1.0], dvector![-2.0, -2.0], vec![wall])
        .unwrap()
        .with_bilateral(dmatrix![1.0, -1.0])
        .unwrap();
    // Jn M̃⁻¹ Jnᵀ = 1/(m₁ + m₂).
    assert!((p.operators().delassus[(0, 0)] - 0.25).abs() < 1e-15);
    for s in &sample_set(&p, &options(Selection::All, 1.0)).samples {
        assert!(s.accepted && s.v_plus.iter().all(|x| x.abs() < 1e-12), "{s:?}");
    }
}

/// A planar rigid body: point masses `m_k` at body positions `r_k` (relative
/// to the centre of mass) at angle 0, with velocities `(vx − ω r_y, vy + ω r_x)`.
struct Body {
    masses: Vec<f64>,
    points: Vec<[f64; 2]>,
}

impl Body {
    fn new(masses: Vec<f64>, points: Vec<[f64; 2]>) -> Self {
        let total: f64 = masses.iter().sum();
        let c = [0, 1].map(|a| masses.iter().zip(&points).map(|(m, p)| m * p[a]).sum::<f64>() / total);
        Body { points: points.iter().map(|p| [p[0] - c[0], p[1] - c[1]]).collect(), masses }
    }

    /// Full velocities (2k) from minimal ones (vx, vy, ω): the map `T`.
    fn lift(&self) -> DMatrix<f64> {
        let k = self.points.len();
        DMatrix::from_fn(2 * k, 3, |r, c| {
            let p = self.points[r / 2];
            match (r % 2, c) {
                (0, 0) | (1, 1) => 1.0,
                (0, 2) => -p[1],
                (1, 2) => p[0],
                _ => 0.0,
            }
        })
    }

    /// Rigidity: `(p_i − p_j)·(v_i − v_j) = 0` for every pair (redundant
    /// beyond 2k − 3 rows).
    fn rigidity(&self) -> DMatrix<f64> {
        let k = self.points.len();
        let pairs: Vec<(usize, usize)> = (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).collect();
        DMatrix::from_fn(pairs.len(), 2 * k, |r, c| {
            let (i, j) = pairs[r];
            let d = [self.points[i][0] - self.points[j][0], self.points[i][1] - self.points[j][1]];
            if c / 2 == i {
                d[c % 2]
            } else if c / 2 == j {
                -d[c % 2]
            } else {
                0.0
            }
        })
    }

    /// Point `k` touching the floor `y ≥ const`: (normal, tangent) rows in
    /// full and in minimal coordinates.
    fn floor_rows(&self, k: usize) -> ([DVector<f64>; 2], [DVector<f64>; 2]) {
        let n = 2 * self.points.len();
        let full = [
            DVector::from_fn(n, |c, _| f64::from(u8::from(c == 2 * k + 1))),
            DVector::from_fn(n, |c, _| f64::from(u8::from(c == 2 * k))),
        ];
        let p = self.points[k];
        (full, [dvector![0.0, 1.0, p[0]], dvector![1.0, 0.0, -p[1]]])
    }

    fn full(&self, contacts: &[(usize, f64)], v: &DVector<f64>, rows: DMatrix<f64>) -> ImpactProblem {
        let mass = DMatrix::from_diagonal(&DVector::from_fn(2 * self.masses.len(), |r, _| self.masses[r / 2]));
        let contacts = contacts
            .iter()
            .enumerate()
            .map(|(i, &(k, mu))| {
                let [jn, jt] = self.floor_rows(k).0;
                Contact::planar(format!("{i}"), jn, jt, mu)
            })
            .collect();
        ImpactProblem::new(mass, &self.lift() * v, contacts).unwrap().with_bilateral(rows).unwrap()
    }

    fn minimal(&self, contacts: &[(usize, f64)], v: &DVector<f64>) -> ImpactProblem {
        let total: f64 = self.masses.iter().sum();
        let inertia: f64 = self.masses.iter().zip(&self.points).map(|(m, p)| m * (p[0] * p[0] + p[1] * p[1])).sum();
        let contacts = contacts
            .iter()
            .enumerate()
            .map(|(i, &(k, mu))| {
                let [jn, jt] = self.floor_rows(k).1;
                Contact::planar(format!("{i}"), jn, jt, mu)
            })
            .collect();
        ImpactProblem::new(DMatrix::from_diagonal(&dvector![total, total, inertia]), v.clone(), contacts).unwrap()
    }
}

fn triangle() -> Body {
    Body::new(vec![1.0, 2.0, 0.5], vec![[-1.0, 0.0], [1.2, 0.1], [0.2, 1.3]])
}

/// A rigid triangle of three point masses held by its three distance
/// constraints (n = 6, rank 3) samples the same set, sample by sample, as
/// the rigid body in minimal coordinates (x, y, θ): `M̃⁻¹` does not depend
/// on the basis of the null space, which is the range of the lift `T`, and
/// `Tᵀ M T` is the body's mass matrix, so both see the same Delassus matrix
/// and the same step LCPs; the seed then draws the same caps.
#[test]
fn a_rigid_triangle_of_point_masses_is_the_rigid_body() {
    let body = triangle();
    let v = dvector![0.3, -1.0, 0.8];
    for contacts in [vec![(0, 0.5)], vec![(0, 0.4), (1, 0.9)], vec![(0, 0.2), (1, 0.6), (2, 1.5)]] {
        let full = body.full(&contacts, &v, body.rigidity());
        let minimal = body.minimal(&contacts, &v);
        assert!(full.warnings().is_empty(), "{:?}", full.warnings());
        let w_err = (&full.operators().delassus - &minimal.operators().delassus).amax();
        assert!(w_err < 1e-14 * minimal.operators().delassus.amax(), "{w_err:e}");
        let h = minimal.default_step_size();
        for rule in RULES {
            let a = sample_set(&full, &options(rule, h));
            let b = sample_set(&minimal, &options(rule, h));
            assert_maps(&a, (&b, &minimal), &body.lift(), 1e-9, &format!("{} contacts, {rule}", contacts.len()));
        }
        // The baselines agree too.
        let (sa, sb) = (simultaneous(&full), simultaneous(&minimal));
        assert_eq!(sa.outcomes.len(), sb.outcomes.len());
        for (a, b) in sa.outcomes.iter().zip(&sb.outcomes).chain(sequential(&full).iter().zip(&sequential(&minimal))) {
            let expected = body.lift() * DVector::from_column_slice(&b.v_plus);
            assert!((DVector::from_column_slice(&a.v_plus) - expected).amax() < 1e-9, "{} vs {}", a.label, b.label);
        }
    }
}

/// Repeating a constraint row, adding a combination of rows or a zero row
/// changes nothing: the null space is the same (to rounding).
#[test]
fn redundant_rows_change_nothing() {
    let body = triangle();
    let v = dvector![0.3, -1.0, 0.8];
    let contacts = [(0, 0.4), (1, 0.9)];
    let rows = body.rigidity();
    let mut redundant = rows.clone().resize_vertically(6, 0.0);
    redundant.row_mut(3).copy_from(&(rows.row(1) * 2.5));
    let combination = rows.row(0) - rows.row(2) * 0.3;
    redundant.row_mut(4).copy_from(&combination);
    let (a, b) = (body.full(&contacts, &v, rows), body.full(&contacts, &v, redundant));
    assert!((&a.operators().mass_inv - &b.operators().mass_inv).amax() < 1e-14);
    let identity = DMatrix::identity(6, 6);
    for rule in RULES {
        let h = a.default_step_size();
        let what = format!("{rule}");
        assert_maps(
            &sample_set(&b, &options(rule, h)),
            (&sample_set(&a, &options(rule, h)), &a),
            &identity,
            1e-12,
            &what,
        );
    }
}

/// Every sample of a constrained problem keeps `J_eq v⁺ = 0`, loses
/// energy and ends with no contact approaching.
#[test]
fn every_sample_keeps_the_constraints_loses_energy_and_separates() {
    // A rigid quadrilateral (8 coordinates, 6 distance rows of rank 5) on
    // three contacts, and a hinge: two bars sharing a point.
    let quad = Body::new(vec![1.0, 0.7, 1.3, 0.4], vec![[-1.0, 0.0], [1.0, -0.2], [1.1, 0.9], [-0.8, 1.0]]);
    let v = dvector![0.6, -1.0, -0.9];
    let problems = [
        quad.full(&[(0, 0.3), (1, 0.8), (3, 1.2)], &v, quad.rigidity()),
        quad.full(&[(0, 0.3), (1, 0.8)], &v, quad.rigidity().rows(0, 4).into_owned()),
    ];
    for p in &problems {
        let eq = p.bilateral();
        let row_norm = eq.row_iter().map(|r| r.norm()).fold(0.0, f64::max);
        let s = p.velocity_scale();
        for rule in RULES {
            let set = sample_set(
                p,
                &SamplerOptions { samples: 512, steps: Some(200), selection: rule, ..Default::default() },
            );
            assert!(set.accepted_count() > 500, "{rule}: {}", set.accepted_count());
            for sample in set.samples.iter().filter(|x| x.accepted) {
                let v_plus = DVector::from_column_slice(&sample.v_plus);
                let scale = row_norm * v_plus.norm().max(p.velocity().norm());
                assert!((eq * &v_plus).amax() <= 1e-12 * scale, "{rule}: J_eq v⁺ = {}", eq * &v_plus);
                assert!(sample.energy_after <= sample.energy_before * (1.0 + 1e-12), "{rule}: {sample:?}");
                assert!(p.normal_velocities(&v_plus).min() >= -1e-9 * s, "{rule}: {sample:?}");
            }
        }
        for outcome in simultaneous(p).outcomes.iter().chain(&sequential(p)) {
            let v_plus = DVector::from_column_slice(&outcome.v_plus);
            assert!((eq * &v_plus).amax() <= 1e-12 * row_norm * p.velocity().norm(), "{}", outcome.label);
        }
    }
}

/// A `v⁻` that violates the constraints is replaced by its M-orthogonal
/// projection onto `null(J_eq)`, and the problem says so.
#[test]
fn a_violating_velocity_is_projected_m_orthogonally() {
    let body = triangle();
    let mass = DMatrix::from_diagonal(&dvector![1.0, 1.0, 2.0, 2.0, 0.5, 0.5]);
    let given = dvector![0.3, -1.0, 0.1, -0.2, 0.5, 0.0];
    let (rows, tangent) = body.floor_rows(0).0.into();
    let p = ImpactProblem::new(mass.clone(), given.clone(), vec![Contact::planar("A", rows, tangent, 0.5)])
        .unwrap()
        .with_bilateral(body.rigidity())
        .unwrap();
    let v = p.velocity();
    assert!((body.rigidity() * v).amax() < 1e-14);
    // (v⁻ − proj) is M-orthogonal to the null space (the body's motions).
    let lift = body.lift();
    let inner = lift.transpose() * &mass * (&given - v);
    assert!(inner.amax() < 1e-14, "{inner}");
    let change = ((&given - v).dot(&(&mass * (&given - v))) / given.dot(&(&mass * &given))).sqrt();
    let warned = p.warnings().into_iter().find_map(|w| match w {
        ProblemWarning::ProjectedVelocity { change } => Some(change),
        _ => None,
    });
    assert!(warned.is_some_and(|c| (c - change).abs() < 1e-14), "{warned:?} vs {change}");
}

/// Constraints that leave no motion, or leave a contact nothing to act on,
/// are refused naming the field.
#[test]
fn constraints_that_freeze_everything_or_a_contact_are_refused() {
    let body = triangle();
    let (jn, jt) = body.floor_rows(0).0.into();
    let p = ImpactProblem::new(
        DMatrix::identity(6, 6),
        body.lift() * dvector![0.0, -1.0, 0.2],
        vec![Contact::planar("A", jn, jt, 0.5)],
    )
    .unwrap();
    let e = p.clone().with_bilateral(DMatrix::identity(6, 6)).unwrap_err();
    assert_eq!(e.field(), "bilateral");
    // Rigid and pinned at point 0 in y and x and at point 1 in y: no motion.
    let mut pinned = body.rigidity().resize_vertically(6, 0.0);
    pinned[(3, 1)] = 1.0;
    pinned[(4, 0)] = 1.0;
    pinned[(5, 3)] = 1.0;
    assert_eq!(p.clone().with_bilateral(pinned.clone()).unwrap_err().field(), "bilateral");
    // Rigid and with point 0's y fixed: the floor contact on point 0 is dead.
    let e = p.with_bilateral(pinned.rows(0, 4).into_owned()).unwrap_err();
    assert_eq!(e.field(), "contacts[0].normal");
}

/// A bilateral row holds whatever the size of its entries: a rod written
/// as `1e-200 · (1, 0, −1, 0)` (or `1e100 ·`) is the same constraint. The
/// tiny row's norm used to underflow to 0, the row was dropped as empty and
/// the samples broke the rod by 2.5.
#[test]
fn a_bilateral_row_of_tiny_or_huge_entries_is_kept() {
    let wall = Contact::planar("A", dvector![1.0, 0.0, 0.0, 0.0], dvector![0.0, 1.0, 0.0, 0.0], 0.3);
    let rod = |size: f64| {
        ImpactProblem::new(DMatrix::identity(4, 4), dvector![-1.0, 0.4, -1.0, -0.7], vec![wall.clone()])
            .unwrap()
            .with_bilateral(dmatrix![size, 0.0, -size, 0.0])
            .unwrap()
    };
    let reference = rod(1.0);
    for size in [1e-200, 1e100] {
        let problem = rod(size);
        for rule in RULES {
            let a = sample_set(&problem, &options(rule, 0.3));
            let b = sample_set(&reference, &options(rule, 0.3));
            assert_maps(&a, (&b, &reference), &DMatrix::identity(4, 4), 1e-12, &format!("row × {size:e}, {rule}"));
            for s in a.accepted() {
                assert!((s.v_plus[0] - s.v_plus[2]).abs() < 1e-12, "row × {size:e}, {rule}: {:?}", s.v_plus);
            }
        }
    }
}
