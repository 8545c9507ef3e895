//! Tests of the bound from one solution (`bound.rs`): against the
//! brute-force oracle, against the search without the bound, on the steps
//! of every built-in scene and of random problems.

use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{EnumeratorOptions, StepEnumerator, brute_force};
use crate::scene::random::{coupled_problem, random_step_rhs};
use crate::{ContactOperators, ImpactProblem};

fn unbounded(ops: &ContactOperators) -> StepEnumerator {
    StepEnumerator::with_options(ops, EnumeratorOptions { bound: false, ..EnumeratorOptions::default() })
}

/// [`bounded`] and [`unbounded`] with a node budget of `budget`.
fn pair_with_budget(ops: &ContactOperators, budget: usize) -> (StepEnumerator, StepEnumerator) {
    let options = EnumeratorOptions { node_budget: budget, ..EnumeratorOptions::default() };
    (
        StepEnumerator::with_options(ops, EnumeratorOptions { bound_min_tuples: 0.0, ..options }),
        StepEnumerator::with_options(ops, EnumeratorOptions { bound: false, ..options }),
    )
}

/// An enumerator that starts every step with the bound, however small.
fn bounded(ops: &ContactOperators) -> StepEnumerator {
    StepEnumerator::with_options(ops, EnumeratorOptions { bound_min_tuples: 0.0, ..EnumeratorOptions::default() })
}

fn solution_bits(e: &StepEnumerator, count: usize) -> Vec<u64> {
    (0..count).flat_map(|k| e.solution(k).iter().map(|x| x.to_bits()).collect::<Vec<_>>()).collect()
}

/// The oracle's distinct velocity changes.
fn oracle(ops: &ContactOperators, b: &[f64]) -> Vec<DVector<f64>> {
    brute_force::solutions(ops, b).into_iter().map(|(_, dv)| dv).collect()
}

/// Two velocity changes of the step `b` agree to `10⁻¹²` of the step's
/// scale: `max |M⁻¹Jᵀ|` times its largest impulse (its largest cap, or the
/// impulse `max |u| / max |W|` that its largest contact velocity takes),
/// or the larger change.
fn assert_same_change(ops: &ContactOperators, b: &[f64], a: &[f64], reference: &[f64]) {
    let cap = b[..ops.m].iter().fold(0.0f64, |x, c| x.max(c.abs()));
    let velocity = b[ops.m..].iter().fold(0.0f64, |x, c| x.max(c.abs()));
    let impulse = cap.max(velocity / ops.delassus.amax());
    let scale = reference.iter().chain(a).fold(ops.minv_jt.amax() * impulse, |x, v| x.max(v.abs()));
    let gap = a.iter().zip(reference).fold(0.0f64, |x, (p, q)| x.max((p - q).abs()));
    assert!(gap <= 1e-12 * scale, "Δv {a:?} vs the search's {reference:?}: {gap:e} of {scale:e}; b = {b:?}");
}

/// What one step of [`check_step`] found.
#[derive(Default)]
struct Tally {
    steps: usize,
    certified: usize,
    several: usize,
    /// Certified only with the normal terms weighed in (`τ ≠ 1`).
    weighed: usize,
    /// Certified only with the null pattern held by the impulses it moves.
    patterned: usize,
    /// Certified with a Lemke solution refined (`keep.rs`).
    refined: usize,
    /// Certified only with the pattern's combined rows (friction cones
    /// included).
    combined: usize,
    /// Certified only from another representative of its solution
    /// (`linear_form/recentre.rs`), and those of them with a contact
    /// sliding.
    recentred: usize,
    recentred_sliding: usize,
}

/// One step `b`: the search with the bound returns the solutions of the
/// search without it bit for bit; a certified step has one velocity change,
/// and so does the oracle where the LCP is small enough for it.
fn check_step(
    ops: &ContactOperators,
    with: &mut StepEnumerator,
    without: &mut StepEnumerator,
    b: &[f64],
    t: &mut Tally,
) {
    let before = with.counts().certificates;
    let count = with.enumerate(ops, b);
    let reference = without.enumerate(ops, b);
    let after = with.counts().certificates;
    t.weighed += usize::from(after.weighed > before.weighed);
    t.patterned += usize::from(after.patterned > before.patterned);
    t.refined += usize::from(after.refined > before.refined);
    t.combined += usize::from(after.combined > before.combined);
    t.recentred += usize::from(after.recentred > before.recentred);
    t.recentred_sliding += usize::from(after.recentred_sliding > before.recentred_sliding);
    assert!(with.exhaustive() && without.exhaustive());
    t.steps += 1;
    t.several += usize::from(reference > 1);
    if with.certified() {
        t.certified += 1;
        assert_eq!(reference, 1, "a certified step with {reference} solutions: b = {b:?}");
        // It keeps its Lemke solution: the search's `Δv` to round-off.
        assert_eq!(count, 1);
        assert_same_change(ops, b, with.velocity_change(0), without.velocity_change(0));
        if ops.step_size_n() <= brute_force::MAX_ENUMERATED {
            assert_eq!(oracle(ops, b).len(), 1, "a certified step with several oracle solutions: b = {b:?}");
        }
    } else {
        assert_eq!(count, reference, "b = {b:?}");
        assert_eq!(solution_bits(with, count), solution_bits(without, count), "b = {b:?}");
    }
}

/// Algorithm 1 under `all` with caps drawn uniformly, from `v⁻` and from
/// random velocities of the same size: every step checked.
fn walk(problem: &ImpactProblem, step_size: f64, steps: usize, rng: &mut ChaCha8Rng, t: &mut Tally) {
    let ops = problem.operators();
    walk_with(problem, step_size, steps, rng, t, (bounded(ops), unbounded(ops)));
}

/// [`walk`] with the enumerators `(with, without)` the bound.
fn walk_with(
    problem: &ImpactProblem,
    step_size: f64,
    steps: usize,
    rng: &mut ChaCha8Rng,
    t: &mut Tally,
    (mut with, mut without): (StepEnumerator, StepEnumerator),
) {
    let ops = problem.operators();
    let (m, size) = (ops.m, ops.step_size_n());
    let scale = problem.velocity().amax();
    for start in 0..3 {
        let mut v = problem.velocity().clone();
        if start > 0 {
            v.iter_mut().for_each(|x| *x += scale * rng.random_range(-0.5..0.5));
        }
        for _ in 0..steps {
            let u = &ops.j * &v;
            if (0..m).all(|i| u[i] >= -1e-9 * scale) {
                break;
            }
            let mut b = vec![0.0; size];
            b[..m].iter_mut().for_each(|x| *x = step_size * rng.random_range(0.0..1.0));
            b[m..m + u.len()].copy_from_slice(u.as_slice());
            check_step(ops, &mut with, &mut without, &b, t);
            let k = rng.random_range(0..with.enumerate(ops, &b));
            v += DVector::from_column_slice(with.velocity_change(k));
        }
    }
}

#[test]
fn the_bound_changes_no_step_of_any_built_in_scene() {
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let mut total = Tally::default();
    for id in crate::scene::ids() {
        let scene = crate::scene::builtin(id).unwrap();
        // The walk takes compression steps only. A bouncing scene's
        // expansion step size (docs/model.md §4b) would make it take
        // hundreds of such steps: walk 40 steps of the same impulse `K h`.
        let (h, k) = match scene.problem.has_restitution() {
            true => (scene.step_size * scene.steps as f64 / 40.0, 40),
            false => (scene.step_size, scene.steps.max(8)),
        };
        let mut t = Tally::default();
        walk(&scene.problem, h, k, &mut rng, &mut t);
        println!("{id}: {} steps, {} certified, {} with several solutions", t.steps, t.certified, t.several);
        total.steps += t.steps;
        total.certified += t.certified;
        total.several += t.several;
    }
    assert!(total.certified > 0 && total.several > 0, "{} certified, {} several", total.certified, total.several);
}

/// The steps of compass gait and RAMone with several solutions (their
/// first steps, from `v⁻`) never certify, and the certified ones are unique
/// by the oracle.
#[test]
fn several_solutions_never_certify_on_compass_gait_and_ramone() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    for id in ["compass-gait", "ramone"] {
        let scene = crate::scene::builtin(id).unwrap();
        let ops = scene.problem.operators();
        let (m, size) = (ops.m, ops.step_size_n());
        let u = &ops.j * scene.problem.velocity();
        let mut e = bounded(ops);
        let (mut several, mut certified) = (0, 0);
        for _ in 0..300 {
            let mut b = vec![0.0; size];
            b[..m].iter_mut().for_each(|x| *x = scene.step_size * rng.random_range(0.0..1.0));
            b[m..m + u.len()].copy_from_slice(u.as_slice());
            e.enumerate(ops, &b);
            let solutions = oracle(ops, &b).len();
            assert!(!(e.certified() && solutions > 1), "{id}: certified with {solutions} solutions, b = {b:?}");
            several += usize::from(solutions > 1);
            certified += usize::from(e.certified());
        }
        println!("{id}: {several} of 300 first steps with several solutions, {certified} certified");
        assert!(several >= 30, "{id}: only {several} steps with several solutions");
    }
}

/// Random spatial and planar problems, coupled (several solutions) or not:
/// every certified step is unique by the oracle, and the bound changes no
/// solution of the search (some steps certify only with the normal terms
/// weighed in: they are checked too).
#[test]
fn certified_random_steps_are_unique_by_the_oracle() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut t = Tally::default();
    for case in 0..240 {
        let (n, m, spatial, coupled) = match case % 6 {
            0 => (6, 1, Some(4), false),
            1 => (6, 2, Some(4), false),
            2 => (4, 2, Some(4), true),
            3 => (4, 2, None, true),
            4 => (7, 3, None, false),
            _ => (5, 4, None, case % 12 == 5),
        };
        let problem = if coupled {
            coupled_problem(&mut rng, n, m, spatial, 0.6, 2.0..4.0)
        } else {
            coupled_problem(&mut rng, n, m, spatial, f64::INFINITY, 0.0..1.0)
        };
        let ops = problem.operators();
        let (mut with, mut without) = (bounded(ops), unbounded(ops));
        for _ in 0..3 {
            let b = random_step_rhs(&mut rng, &problem);
            check_step(ops, &mut with, &mut without, &b, &mut t);
        }
    }
    println!(
        "{} steps, {} certified ({} with the normal terms weighed in), {} with several solutions",
        t.steps, t.certified, t.weighed, t.several
    );
    assert!(t.certified >= t.steps / 10 && t.several >= 10, "{} certified, {} several", t.certified, t.several);
    assert!(t.weighed > 0, "no step certified with the normal terms weighed in");
}

/// Boxes landing flat on four corners (a rank-deficient `W`: the corners'
/// normal impulses have a null pattern) and on an edge, with random sizes,
/// friction and velocities: every certified step has one `Δv` by the full
/// search, and the certificates settle most of them (the reach alone
/// certified 145 of these 417 steps, with friction's linear form 299, 6 of
/// them only with the normal terms weighed in; with the null pattern held
/// by the corners it moves, 327; from the bound's hashed covering vector,
/// 335).
#[test]
fn certified_steps_of_boxes_on_four_corners_are_unique_by_the_search() {
    let t = landing_boxes(43, 24, false);
    assert!(t.weighed > 0, "no step certified with the normal terms weighed in");
    assert!(t.patterned > 0, "no step certified with the null pattern held by its corners");
    assert!(2 * t.certified >= t.steps, "{} of {} steps certified", t.certified, t.steps);
}

/// Among boxes landing on four corners not at one height, steps certified
/// unique whose Lemke solution misses the step by more than round-off (a
/// corner's normal impulse below its cap by `10⁻¹¹`, `Δv` off by `7·10⁻¹¹`
/// of its scale): their refinement on the solution's support gives the
/// search's `Δv` to `10⁻¹²`. (With the bound's hashed covering vector,
/// 3 to 19 of about 800 such steps are refined in each of 16 seeds; level
/// boxes, 0 to 7.)
#[test]
fn a_certified_step_whose_lemke_solution_is_off_keeps_the_searchs_change() {
    let t = landing_boxes(5151, 50, true);
    assert!(t.refined > 0, "no certified step refined");
}

/// Boxes landing on four corners that are not at one height (tilted by up
/// to 0.05 rad, every bottom corner a contact: a tracked cube's landing,
/// as `tests/data/cube-four-corner-landing.json`): every certified step
/// has one `Δv` by the full search, and some certify only by the
/// pattern's combined rows, where an internal force between two corners is
/// held by their friction cones (180 of these 401 steps certified, 33 of
/// them only so; from the bound's hashed covering vector 196 and 38; 6
/// steps with several solutions).
#[test]
fn certified_steps_of_boxes_on_four_uneven_corners_are_unique_by_the_search() {
    let t = landing_boxes(44, 24, true);
    assert!(t.combined > 0, "no step certified with the pattern's combined rows");
}

/// [`check_step`] along [`walk_with`] on `cases` boxes landing flat or on an
/// edge, drawn from `seed`; `uneven`: all near flat, tilted by up to 0.05
/// rad about a random horizontal axis, with every bottom corner a contact.
fn landing_boxes(seed: u64, cases: usize, uneven: bool) -> Tally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Tally::default();
    for case in 0..cases {
        let problem = landing_box(&mut rng, uneven, !uneven && case % 3 == 2);
        let enumerators = pair_with_budget(problem.operators(), 10_000_000);
        walk_with(&problem, problem.default_step_size(), 10, &mut rng, &mut t, enumerators);
    }
    println!(
        "{} steps, {} certified ({} with the normal terms weighed in, {} with the null pattern, {} with its \
         combined rows, {} from another representative, {} of them sliding), {} refined, {} with several \
         solutions",
        t.steps,
        t.certified,
        t.weighed,
        t.patterned,
        t.combined,
        t.recentred,
        t.recentred_sliding,
        t.refined,
        t.several
    );
    t
}

/// A box of random size, mass and friction (`d = 8`) on the floor: flat on
/// four corners, on an edge (`edge`: tilted 0.3 rad about `x`), or
/// (`uneven`) tilted by up to 0.05 rad about a random horizontal axis with
/// every bottom corner a contact; falling at 1 and sliding and spinning at
/// random.
fn landing_box(rng: &mut ChaCha8Rng, uneven: bool, edge: bool) -> ImpactProblem {
    use crate::scene::spatial::{Plane, Solid, SpatialSystem};
    use nalgebra::{Isometry3, UnitQuaternion, Vector3};
    let (x, y, z) = (rng.random_range(0.3..2.0), rng.random_range(0.3..2.0), rng.random_range(0.3..2.0));
    let solid = Solid::cuboid(x, y, z, rng.random_range(0.5..3.0));
    let friction = rng.random_range(0.1..1.2);
    let rotation = if uneven {
        let angle = rng.random_range(0.0..std::f64::consts::TAU);
        let axis = nalgebra::Unit::new_normalize(Vector3::new(angle.cos(), angle.sin(), 0.0));
        UnitQuaternion::from_axis_angle(&axis, rng.random_range(0.005..0.05))
    } else {
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), if edge { 0.3 } else { 0.0 })
    };
    let lowest = solid.vertices().iter().map(|p| (rotation * p).z).fold(f64::INFINITY, f64::min);
    let mut system = SpatialSystem::new();
    if uneven {
        system.contact_tolerance = 0.5 * x.min(y).min(z);
    }
    system.add_body(solid, friction);
    system.add_plane(Plane::floor(0.0));
    let pose = Isometry3::from_parts(Vector3::new(0.0, 0.0, -lowest).into(), rotation);
    let v = DVector::from_fn(6, |r, _| match r {
        2 => -1.0,
        0 | 1 => rng.random_range(-0.6..0.6),
        _ => rng.random_range(-0.4..0.4),
    });
    system.problem(&[pose], &v, Some(8)).unwrap()
}

/// Steps that bring a box on four corners (level or tilted) to full rest
/// (caps large enough to stop it, its slip within its cones) have a face of
/// impulses with one `Δv`, of which Lemke's is a vertex; friction's linear
/// form may start from another (`linear_form/recentre.rs`). Every step so
/// certified has one `Δv` by the full search, and some certify only so.
#[test]
fn certified_boxes_at_full_rest_are_unique_by_the_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(45);
    let mut t = Tally::default();
    for case in 0..24 {
        let problem = landing_box(&mut rng, case % 2 == 1, false);
        let ops = problem.operators();
        let (mut with, mut without) = pair_with_budget(ops, 10_000_000);
        let mass = problem.mass()[(2, 2)];
        for _ in 0..8 {
            // A velocity of the box's size (spinning: stopping it takes
            // shares that turn about the box), with no spin in every other
            // case (one common share stops it), and caps of up to twice
            // what stopping its fall on one corner takes.
            let mut v = problem.velocity().map(|x| x * rng.random_range(0.2..1.0));
            if case % 4 >= 2 {
                v.rows_mut(3, 3).fill(0.0);
            }
            let u = &ops.j * &v;
            let mut b = vec![0.0; ops.step_size_n()];
            b[..ops.m].iter_mut().for_each(|x| *x = 2.0 * mass * rng.random_range(0.1..1.0));
            b[ops.m..ops.m + u.len()].copy_from_slice(u.as_slice());
            check_step(ops, &mut with, &mut without, &b, &mut t);
        }
    }
    println!("{} steps, {} certified, {} at rest from another representative", t.steps, t.certified, t.recentred);
    assert!(t.recentred > 0, "no step certified from another representative");
}

/// Boxes on four corners, level or tilted, sliding along the normal of an
/// edge of their corners' friction polygons (where Algorithm 1 takes a
/// sliding box: the edge mode keeps the slip along that normal), each
/// corner's friction at its own point of the edge, so Lemke's impulses
/// couple to the corners' null pattern: friction's linear form may start
/// from shares moved along the edge (`linear_form/recentre.rs`). Every step
/// so certified has one `Δv` by the full search, and some certify only so
/// (seeds 100–131, 12 781 steps: 433 certified only from another
/// representative, 88 of them with a contact sliding).
#[test]
fn certified_sliding_boxes_are_unique_by_the_search() {
    let (level, tilted) = (landing_boxes(46, 24, false), landing_boxes(47, 24, true));
    assert!(
        level.recentred_sliding + tilted.recentred_sliding > 0,
        "no sliding step certified from another representative"
    );
}
