//! The built-in scenes against scenes.md: sizes, mass matrices, the Jacobian
//! rows against finite differences of the geometry, the stated pre-impact
//! contact velocities, mirror maps and spatial contact frames.

use impactset::scene::{self, Model, Scene};
use impactset::{Dimension, ImpactProblem};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn scene(id: &str) -> Scene {
    scene::builtin(id).unwrap_or_else(|| panic!("no built-in scene {id}"))
}

fn all() -> Vec<Scene> {
    scene::ids().iter().map(|id| scene(id)).collect()
}

fn assert_close(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!((a - e).abs() <= tol, "{what}[{i}]: {a} vs {e} (tol {tol})");
    }
}

#[test]
fn sizes_and_sampling_parameters_follow_scenes_md() {
    // (id, n, m, h, K, samples) — scenes.md's table for the paper's scenes.
    let paper = [
        ("rocking-block", 3, 2, 0.3, 10, 1 << 14),
        ("compass-gait", 4, 2, 0.25, 5, 1 << 20),
        ("box-wall", 3, 2, 2.0, 5, 1 << 18),
        ("ramone", 7, 2, 1.0, 10, 1 << 20),
        ("disk-stack", 9, 5, 1.0, 10, 1 << 20),
    ];
    for (id, n, m, h, k, samples) in paper {
        let s = scene(id);
        assert_eq!((s.problem.n(), s.problem.m()), (n, m), "{id}");
        assert_eq!((s.step_size, s.steps, s.samples), (h, k, samples), "{id}");
        assert_eq!(s.problem.dimension(), Dimension::Planar);
    }
    let others = [
        ("slope-point", 2, 1),
        ("slope-point-stick", 2, 1),
        ("slope-point-slide", 2, 1),
        ("corner-point", 2, 2),
        ("two-link-arm", 2, 1),
        ("cube-flat", 6, 4),
        ("cube-edge", 6, 2),
    ];
    for (id, n, m) in others {
        let s = scene(id);
        assert_eq!((s.problem.n(), s.problem.m()), (n, m), "{id}");
    }
    assert_eq!(scene::ids().len(), paper.len() + others.len());
    assert!(scene::builtin("no-such-scene").is_none());
}

#[test]
fn catalog_lists_what_builtin_builds() {
    for info in scene::catalog() {
        let s = scene(info.id);
        assert_eq!(s.description, info.description);
        assert_eq!((s.problem.n(), s.problem.m(), s.problem.dimension()), (info.n, info.m, info.dimension));
        let names: Vec<&str> = s.problem.contacts().iter().map(|c| c.name.as_str()).collect();
        let expected: Vec<String> = (0..info.m).map(|i| ((b'A' + i as u8) as char).to_string()).collect();
        assert_eq!(names, expected, "{}", info.id);
    }
}

#[test]
fn mass_matrices_are_symmetric_positive_definite() {
    for s in all() {
        let m = s.problem.mass();
        assert!((m - m.transpose()).amax() == 0.0, "{}: not symmetric", s.id);
        let eig = m.clone().symmetric_eigen();
        assert!(eig.eigenvalues.min() > 1e-9 * eig.eigenvalues.max(), "{}: eigenvalues {}", s.id, eig.eigenvalues);
    }
}

/// Central differences of every contact's signed distance and tangential
/// displacement along `u` against `Jn u` and `Jt u`.
fn check_rows(s: &Scene, u: &DVector<f64>) {
    let e = 1e-5;
    let plus = s.model.contact_coordinates(u, e);
    let minus = s.model.contact_coordinates(u, -e);
    let p = &s.problem;
    assert_eq!(plus.len(), p.m(), "{}: contact count of the model", s.id);
    let t = p.dimension().tangents();
    for (i, contact) in p.contacts().iter().enumerate() {
        let check = |row: &DVector<f64>, fd: f64, what: &str| {
            let exact = row.dot(u);
            let scale = exact.abs().max(row.norm() * u.norm()).max(1e-12);
            let error = (fd - exact).abs() / scale;
            assert!(
                error < 1e-6,
                "{} contact {}: {what} row · u = {exact}, difference {fd}, rel. error {error}",
                s.id,
                contact.name
            );
        };
        check(&contact.normal, (plus[i].distance - minus[i].distance) / (2.0 * e), "normal");
        assert_eq!(contact.tangents.len(), t);
        for k in 0..t {
            let fd = (plus[i].tangential[k] - minus[i].tangential[k]) / (2.0 * e);
            check(&contact.tangents[k], fd, "tangent");
        }
    }
}

#[test]
fn jacobian_rows_are_derivatives_along_the_velocity() {
    for s in all() {
        check_rows(&s, s.problem.velocity());
    }
}

#[test]
fn jacobian_rows_are_derivatives_along_random_directions() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for s in all() {
        for _ in 0..8 {
            let u = DVector::from_fn(s.problem.n(), |_, _| rng.random_range(-1.0..1.0));
            check_rows(&s, &u);
        }
    }
}

#[test]
fn the_model_is_at_the_impact_configuration() {
    for s in all() {
        let zero = DVector::zeros(s.problem.n());
        for c in s.model.contact_coordinates(&zero, 0.0) {
            assert!(c.distance.abs() < 1e-9, "{}: contact at distance {}", s.id, c.distance);
        }
    }
}

fn jn(p: &ImpactProblem) -> Vec<f64> {
    p.contact_velocities().as_slice().to_vec()
}

fn jt(p: &ImpactProblem) -> Vec<f64> {
    p.tangent_velocities(p.velocity()).as_slice().to_vec()
}

#[test]
fn rocking_block_corners_strike_at_the_drop_speed() {
    let s = scene("rocking-block");
    let v0 = (2.0 * 9.81 * 0.01f64).sqrt();
    assert!((v0 - 0.44294).abs() < 1e-5);
    assert_close(s.problem.velocity().as_slice(), &[0.0, -v0, 0.0], 1e-15, "v⁻");
    assert_close(&jn(&s.problem), &[-v0, -v0], 1e-14, "Jn v⁻");
    assert!(s.problem.contacts().iter().all(|c| c.friction == 1.0));
    assert_eq!(s.step_size, (10.0 * v0 / 2.0).ceil() / 10.0);
}

#[test]
fn compass_gait_leading_foot_strikes_and_trailing_foot_rests() {
    let s = scene("compass-gait");
    let (phi, rate, l) = (78f64.to_radians(), 0.25, 1.0);
    let strike = 2.0 * l * phi.sin() * rate;
    assert!((strike - 0.48907).abs() < 1e-5);
    assert_close(&jn(&s.problem), &[-strike, 0.0], 1e-14, "Jn v⁻");
    // Trailing foot (B) entirely at rest: tangential velocity 0 too.
    assert!(jt(&s.problem)[1].abs() < 1e-14);
    let (c, sn) = (phi.cos(), phi.sin());
    assert_close(s.problem.velocity().as_slice(), &[-l * c * rate, -l * sn * rate, rate, rate], 1e-15, "v⁻");
    assert!(s.problem.contacts().iter().all(|c| c.friction == 5.0));
}

#[test]
fn box_wall_floor_slides_and_wall_is_struck() {
    let s = scene("box-wall");
    assert_close(&jn(&s.problem), &[0.0, -1.0], 1e-14, "Jn v⁻");
    assert_close(&jt(&s.problem), &[1.0, 0.0], 1e-14, "Jt v⁻");
    let Model::Planar { system, q } = &s.model else { panic!("planar") };
    assert!((q[2] - 80f64.to_radians()).abs() < 1e-15);
    let contacts = system.contacts(q);
    assert_eq!(contacts[0].normal.as_slice(), &[0.0, 1.0]);
    assert_eq!(contacts[1].normal.as_slice(), &[-1.0, 0.0]);
}

#[test]
fn ramone_trailing_foot_rests_and_leading_foot_strikes() {
    let s = scene("ramone");
    let v = s.problem.velocity().as_slice();
    assert_close(v, &[-0.41142, -0.21052, 1.0, 0.0, 0.0, 0.0, 0.0], 1e-5, "v⁻");
    assert_close(&jn(&s.problem), &[-0.53210, 0.0], 1e-5, "Jn v⁻");
    assert!(jn(&s.problem)[1].abs() < 1e-14 && jt(&s.problem)[1].abs() < 1e-14, "trailing foot at rest");
    // scenes.md's formulas for the trunk height and the trailing knee.
    let Model::Planar { q, .. } = &s.model else { panic!("planar") };
    let (l2, l3, s1, r) = (0.2, 0.2385, 0.137675, 0.0563 / 2.0);
    let (theta, al, bl, at) = (16f64.to_radians(), (-70f64).to_radians(), (-2f64).to_radians(), 70f64.to_radians());
    let y_leg = l3 * (theta + al + bl).cos() + l2 * (theta + al).cos();
    assert!((q[1] - (y_leg + s1 * theta.cos() + r)).abs() < 1e-15);
    let bt = -at - theta + ((y_leg - l2 * (theta + at).cos()) / l3).asin() - std::f64::consts::FRAC_PI_2;
    assert_close(q.as_slice(), &[0.0, q[1], theta, al, bl, at, bt], 1e-15, "q");
}

#[test]
fn disk_stack_only_the_top_disc_moves() {
    let s = scene("disk-stack");
    let v = s.problem.velocity();
    assert_eq!(v.iter().filter(|x| **x != 0.0).count(), 1);
    let half_root3 = 3f64.sqrt() / 2.0;
    assert_close(&jn(&s.problem), &[0.0, 0.0, -half_root3, -half_root3, 0.0], 1e-14, "Jn v⁻");
    assert!(s.problem.contacts().iter().all(|c| (c.friction - 3f64.sqrt()).abs() < 1e-15));
    assert!((s.problem.mass()[(0, 0)] - 5.0).abs() < 1e-15 && (s.problem.mass()[(2, 2)] - 2.5).abs() < 1e-15);
}

#[test]
fn slope_and_corner_scenes() {
    let tan30 = 30f64.to_radians().tan();
    let mu: Vec<f64> = ["slope-point", "slope-point-stick", "slope-point-slide"]
        .iter()
        .map(|id| scene(id).problem.contacts()[0].friction)
        .collect();
    assert_eq!(mu[0], 0.0);
    assert!(mu[1] >= tan30 && mu[2] < tan30 && mu[2] > 0.0);
    let s = scene("slope-point");
    let (sn, c) = 30f64.to_radians().sin_cos();
    assert_close(s.problem.contacts()[0].normal.as_slice(), &[sn, c], 1e-15, "slope normal");
    assert_close(s.problem.contacts()[0].tangents[0].as_slice(), &[c, -sn], 1e-15, "slope tangent");
    let corner = scene("corner-point");
    assert_close(&jn(&corner.problem), &[0.0, -1.0 / 2f64.sqrt()], 1e-15, "corner Jn v⁻");
    let arm = scene("two-link-arm");
    assert!(jn(&arm.problem)[0] < 0.0 && arm.problem.contacts()[0].friction == 0.0);
}

#[test]
fn mirror_maps_are_symmetries() {
    let mut mirrored = Vec::new();
    for s in all() {
        let Some(mirror) = &s.mirror else { continue };
        mirrored.push(s.id);
        let p = &mirror.velocity;
        let n = s.problem.n();
        let pi = &mirror.contacts;
        assert!((p * p - DMatrix::identity(n, n)).amax() < 1e-15, "{}: P² ≠ 1", s.id);
        let m = s.problem.mass();
        assert!((p.transpose() * m * p - m).amax() < 1e-12, "{}: Pᵀ M P ≠ M", s.id);
        assert!((p * s.problem.velocity() - s.problem.velocity()).amax() < 1e-15, "{}: P v⁻ ≠ v⁻", s.id);
        let contacts = s.problem.contacts();
        for (i, c) in contacts.iter().enumerate() {
            assert_eq!(pi[pi[i]], i, "{}: π is not an involution", s.id);
            let image = &contacts[pi[i]];
            let normal = (image.normal.transpose() * p).transpose();
            let tangent = (image.tangents[0].transpose() * p).transpose();
            assert!((normal - &c.normal).amax() < 1e-12, "{} contact {}: normal row", s.id, c.name);
            assert!((tangent + &c.tangents[0]).amax() < 1e-12, "{} contact {}: tangent row", s.id, c.name);
        }
    }
    assert_eq!(mirrored, ["rocking-block", "disk-stack"]);
}

#[test]
fn spatial_contacts_have_orthonormal_frames() {
    for (id, m) in [("cube-flat", 4), ("cube-edge", 2)] {
        let s = scene(id);
        assert_eq!(s.problem.m(), m);
        assert_eq!(s.problem.friction_directions(), 8);
        for c in s.problem.contacts() {
            // The linear block of each row is the contact direction in the world.
            let n = c.normal.fixed_rows::<3>(0).into_owned();
            let t1 = c.tangents[0].fixed_rows::<3>(0).into_owned();
            let t2 = c.tangents[1].fixed_rows::<3>(0).into_owned();
            let frame = nalgebra::Matrix3::from_columns(&[t1, t2, n]);
            assert!((frame.transpose() * frame - nalgebra::Matrix3::identity()).amax() < 1e-15, "{id} {}", c.name);
            assert_eq!(n, nalgebra::Vector3::z());
            assert_eq!(c.friction, 0.5);
        }
        assert_close(&jn(&s.problem), &vec![-1.0; m], 1e-15, "Jn v⁻");
    }
}
