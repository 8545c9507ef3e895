//! The simultaneous baseline by the step enumerator (docs/model.md §2):
//! where every contact can be separated, the simultaneous LCP's solutions
//! are those of one Routh step with caps above the impulse bound, found by
//! the contact-mode search. Checked against the brute-force oracle (every
//! complementary index set of the §2 LCP, built here from its definition)
//! on every built-in scene and on random planar and spatial problems small
//! enough for it, both inclusions; and on the measured four-corner cube
//! landing (40 unknowns), which the oracle cannot reach.

use impactset::impact::{SolutionMethod, simultaneous};
use impactset::lcp::basic_solutions;
use impactset::scene::random::coupled_problem;
use impactset::{ImpactProblem, scene};
use nalgebra::DVector;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The largest LCP the oracle enumerates (`2^N` solves).
const ORACLE_SIZE: usize = 20;

/// The §2 LCP `w = A z + b`, `z = [λn; λD; γ]`, row-major, from its
/// definition: `A = [[W, E'], [U, −Eᵀ, 0]]` over `W = J M⁻¹ Jᵀ`.
fn lcp(problem: &ImpactProblem) -> (Vec<f64>, Vec<f64>) {
    let ops = problem.operators();
    let (m, d) = (ops.m, ops.d);
    let rows = m + m * d;
    let size = rows + m;
    let mut a = vec![0.0; size * size];
    for r in 0..rows {
        for c in 0..rows {
            a[r * size + c] = ops.delassus[(r, c)];
        }
    }
    for i in 0..m {
        let gamma = rows + i;
        a[gamma * size + i] = ops.friction[i];
        for k in 0..d {
            let lambda_d = m + i * d + k;
            a[lambda_d * size + gamma] = 1.0;
            a[gamma * size + lambda_d] = -1.0;
        }
    }
    let u = &ops.j * problem.velocity();
    let mut b = vec![0.0; size];
    b[..rows].copy_from_slice(u.as_slice());
    (a, b)
}

/// The oracle's distinct possible outcomes `v⁺` (no contact approaching,
/// no energy gained, as every baseline outcome is checked).
fn oracle(problem: &ImpactProblem) -> Vec<DVector<f64>> {
    let ops = problem.operators();
    let (a, b) = lcp(problem);
    let s = problem.velocity_scale();
    let mut out: Vec<DVector<f64>> = Vec::new();
    for z in basic_solutions(&a, &b, 1e-9, &vec![s; b.len()]) {
        let lambda = DVector::from_column_slice(&z[..ops.m + ops.m * ops.d]);
        let v = problem.velocity() + &ops.minv_jt * lambda;
        if impactset::impact::is_admissible(problem, &v) && !out.iter().any(|o| close(problem, o, &v, 1e-9)) {
            out.push(v);
        }
    }
    out
}

fn close(problem: &ImpactProblem, a: &DVector<f64>, b: &DVector<f64>, tol: f64) -> bool {
    problem.energy_norm(&(a - b)) <= tol * problem.energy_norm(problem.velocity())
}

/// Both inclusions within `1e-7·‖v⁻‖_M`; returns how many outcomes.
fn check(problem: &ImpactProblem, what: &str) -> usize {
    let sim = simultaneous(problem);
    assert_eq!(sim.method, SolutionMethod::Enumerated, "{what}: {:?}", sim.failure);
    let found: Vec<DVector<f64>> = sim.outcomes.iter().map(|o| DVector::from_vec(o.v_plus.clone())).collect();
    let expected = oracle(problem);
    for v in &expected {
        assert!(found.iter().any(|f| close(problem, f, v, 1e-7)), "{what}: the search missed {v:?}; found {found:?}");
    }
    for f in &found {
        assert!(expected.iter().any(|v| close(problem, f, v, 1e-7)), "{what}: {f:?} is no oracle solution");
    }
    found.len()
}

#[test]
fn the_search_finds_exactly_the_oracles_outcomes_on_every_built_in_scene() {
    for id in scene::ids() {
        let problem = &scene::builtin(id).unwrap().problem;
        let size = problem.m() * (2 + problem.operators().d);
        if problem.has_restitution() || size > ORACLE_SIZE {
            continue;
        }
        let count = check(problem, id);
        eprintln!("{id}: {count} simultaneous outcome(s)");
    }
}

#[test]
fn the_search_finds_exactly_the_oracles_outcomes_on_random_problems() {
    let mut rng = ChaCha8Rng::seed_from_u64(2034);
    let (mut checked, mut several) = (0, 0);
    for case in 0..240 {
        // Planar up to 4 contacts (16 unknowns), spatial (4 directions) up
        // to 3 (18); every other problem with high friction and strong
        // coupling, where the LCP has several solutions.
        let (n, m, spatial) = match case % 6 {
            0 => (4, 2, None),
            1 => (5, 3, None),
            2 => (6, 4, None),
            3 => (6, 1, Some(4)),
            4 => (6, 2, Some(4)),
            _ => (7, 3, Some(4)),
        };
        let problem = if case % 2 == 1 {
            coupled_problem(&mut rng, n, m, spatial, 0.6, 2.0..4.0)
        } else {
            coupled_problem(&mut rng, n, m, spatial, f64::INFINITY, 0.0..1.0)
        };
        if simultaneous(&problem).method != SolutionMethod::Enumerated {
            // No separating velocity: the brute force itself ran.
            continue;
        }
        checked += 1;
        several += usize::from(check(&problem, &format!("case {case}")) > 1);
    }
    eprintln!("{checked} problems searched, {several} with several outcomes");
    assert!(checked >= 120 && several >= 5, "{checked} searched, {several} with several outcomes");
}

/// A measured cube toss landing on four corners (0.37 kg, side 0.1048 m,
/// μ = 0.18, 8 friction directions): 40 unknowns, far beyond the oracle,
/// and a degenerate LCP (`W` of rank 6). The search is exhaustive, and
/// every outcome solves the §2 LCP and is a possible one.
#[test]
fn the_four_corner_landing_gets_every_simultaneous_outcome() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cube-four-corner-landing.json");
    let problem = impactset::io::load_problem(&path).unwrap().problem;
    let sim = simultaneous(&problem);
    assert_eq!(sim.method, SolutionMethod::Enumerated, "{:?}", sim.failure);
    assert!(!sim.outcomes.is_empty());
    let s = problem.velocity_scale();
    for o in &sim.outcomes {
        assert!(o.normal_velocities.iter().all(|&u| u >= -1e-9 * s), "{:?}", o.normal_velocities);
        assert!(o.energy < problem.kinetic_energy(problem.velocity()));
    }
}
