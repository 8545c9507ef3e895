//! Tests of `enumerate.rs`: the tables of `all` on the GPU, their layout
//! against the shader's, and which problems `all` runs on the GPU.

use super::*;
use crate::scene;

fn constants_of(id: &str) -> (ContactOperators, Vec<f64>, RouthParams) {
    let scene = scene::builtin(id).unwrap();
    let ops = scene.problem.operators().clone();
    let (mut constants, mut params) = (vec![0.5; 3], RouthParams::default());
    push_constants(&ops, 0, Precision::F64, 1e-9, &mut constants, &mut params);
    (ops, constants, params)
}

#[test]
fn the_shader_declares_the_same_layout() {
    let source = [include_str!("../../shaders/mode_system.wgsl"), include_str!("../../shaders/enumerate.wgsl")];
    let source = source.join("\n");
    for line in [
        format!("const MODE_STRIDE: u32 = {MODE_STRIDE}u;"),
        "const INEQ_STRIDE: u32 = 7u;".to_string(),
        "const MAX_CONTACTS_ALL: u32 = 3u;".to_string(),
        "const MAX_DIM: u32 = 9u;".to_string(),
        format!("const ENUM_CAP_SLOTS: u32 = {ENUM_CAP_SLOTS}u;"),
        format!("const ENUM_HEADER: u32 = {ENUM_HEADER}u;"),
    ] {
        assert!(source.contains(&line), "shaders lack `{line}`");
    }
}

#[test]
fn tuples_are_the_products_of_the_mode_counts() {
    // Planar contacts with friction: 7 modes; frictionless: 3; spatial
    // with d = 8: 4·8 + 3 = 35.
    for (id, tuples) in [
        ("compass-gait", 49),
        ("slope-point", 3),
        ("slope-point-slide", 7),
        ("cube-edge", 1225),
        ("disk-stack", 16_807),
        ("cradle", 81),
    ] {
        let (ops, _, params) = constants_of(id);
        assert_eq!(params.tuples, tuples, "{id}");
        assert_eq!(all_tuples(&ops), tuples as u64, "{id}");
        let planned = tuples_per_dispatch(&ops, tuples as usize, true);
        assert!((1..=tuples as usize).contains(&planned), "{id}: {planned}");
        let on_gpus = tuples_per_dispatch(&ops, tuples as usize, false);
        assert_eq!(on_gpus, (tuples as usize).min(GPU_TUPLES_PER_DISPATCH), "{id}");
    }
}

#[test]
fn the_gpu_takes_all_where_its_tuples_are_few() {
    for (id, fits, width) in [
        ("compass-gait", true, AllWidth::Narrow),
        ("cube-edge", true, AllWidth::Narrow),
        ("disk-stack", true, AllWidth::Wide),
        ("cradle", true, AllWidth::Wide),
        ("cube-flat", false, AllWidth::Wide),
    ] {
        let problem = scene::builtin(id).unwrap().problem;
        assert_eq!(check_all(&problem).is_ok(), fits, "{id}");
        assert_eq!(AllWidth::of(problem.operators().m), width, "{id}");
    }
    let cube = scene::builtin("cube-flat").unwrap().problem;
    assert_eq!(check_all(&cube), Err(GpuError::TooLargeForAll { m: 4, tuples: 35u64.pow(4) }));
    // Restitution: the frictionless cradle bounces under `all` on the
    // GPU, and so does the rocking block, whose two corners with
    // friction each add a twin to a widened step (7² · 3² tuples at
    // most, four contacts: the wider module).
    assert!(scene::builtin("cradle").unwrap().problem.has_restitution());
    let bouncing = scene::builtin("rocking-block-bouncing").unwrap().problem;
    assert_eq!(check_all(&bouncing), Ok(()));
    assert_eq!(widenable(&bouncing), 0b11);
    assert_eq!(widened_sets(0b11).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(widened_sets(0b101).collect::<Vec<_>>(), [1, 4, 5]);
    assert_eq!(all_width(&bouncing), AllWidth::Wide);
    assert_eq!(all_width(&scene::builtin("compass-gait").unwrap().problem), AllWidth::Narrow);
    // Twins of three spatial contacts: 35³ · 17 tuples, refused.
    let edge = scene::builtin("cube-edge").unwrap().problem;
    assert!(twinned_fits(edge.operators(), 0b01));
    assert!(!twinned_fits(edge.operators(), 0b11), "35² · 17² = {}", 35u64.pow(2) * 17u64.pow(2));
    // Frictionless and bouncing, but of 3⁵ tuples a step (≥ 100, which
    // the CPU certifies where it can): refused.
    let stack = scene::builtin("disk-stack").unwrap().problem;
    let contacts: Vec<_> =
        stack.contacts().iter().map(|c| crate::Contact { friction: 0.0, restitution: 0.5, ..c.clone() }).collect();
    let five = ImpactProblem::new(stack.mass().clone(), stack.velocity().clone(), contacts).unwrap();
    assert!(fits_all(five.operators()).is_ok());
    assert_eq!(check_all(&five), Err(GpuError::Restitution));
}

/// The twinned steps' directory and headers (`enumerate.wgsl`'s
/// `use_twinned_table`): one header per set of widened contacts, each
/// pointing at its twinned step's tables, with the twins' capped modes.
#[test]
fn constants_hold_the_twinned_steps_tables() {
    let problem = scene::builtin("rocking-block-bouncing").unwrap().problem;
    let ops = problem.operators();
    let (mut constants, mut params) = (vec![0.5; 3], RouthParams::default());
    push_constants(ops, widenable(&problem), Precision::F64, 1e-9, &mut constants, &mut params);
    let directory = constants[params.off_enum_scalars as usize + TWINNED_SLOT] as usize;
    assert!(directory > 0);
    for mask in 0..1u64 << MAX_GPU_ALL_CONTACTS {
        let header = constants[directory + mask as usize] as usize;
        if !(1..=3).contains(&mask) {
            assert_eq!(header, 0, "set {mask:b}");
            continue;
        }
        let (twinned, enumerator) = crate::impact::twinned_step(ops, mask);
        let red = enumerator.reduced();
        let m = 2 + mask.count_ones() as usize;
        let at = |k: usize| constants[header + k];
        assert_eq!([at(0), at(1), at(2)], [m as f64, (2 * m) as f64, (5 * m) as f64], "set {mask:b}");
        assert_eq!(&constants[at(6) as usize..][..red.w.len()], &red.w[..]);
        let size = twinned.step_size_n();
        assert_eq!(&constants[at(11) as usize..][..size * size], &twinned.step_matrix[..]);
        // Two planar contacts of seven modes each, then a twin of three
        // (capped: stick, vertex 0, vertex 1).
        let starts: Vec<f64> = (0..=m).map(|i| at(12 + i)).collect();
        let expected: Vec<f64> = (0..=m).map(|i| (7 * i.min(2) + 3 * i.saturating_sub(2)) as f64).collect();
        assert_eq!(starts, expected, "set {mask:b}");
        for g in 14..starts[m] as usize {
            let normal = constants[at(9) as usize + g * MODE_STRIDE + 1];
            assert_eq!(normal, 2.0, "set {mask:b}: a twin's mode {g} is capped");
        }
    }
    // No restitution, no directory.
    let (_, constants, params) = constants_of("rocking-block");
    assert_eq!(constants[params.off_enum_scalars as usize + TWINNED_SLOT], 0.0);
}

#[test]
fn constants_hold_the_enumerators_tables() {
    let (ops, constants, params) = constants_of("cube-edge");
    let enumerator = StepEnumerator::new(&ops);
    let red = enumerator.reduced();
    assert_eq!((params.s, params.dim), (3, 6));
    let at = |offset: u32, k: usize| constants[offset as usize + k];
    assert_eq!(at(params.off_enum_scalars, 0), ACCEPT);
    assert_eq!(at(params.off_enum_scalars, 3), ENUMERATED_VIOLATION);
    assert_eq!(&constants[params.off_w as usize..][..36], &red.w[..]);
    assert_eq!(params.mode_start[..3], [0, 35, 70]);
    // Mode 3 of contact 1 (global 38; open, closed-stick, closed at vertex
    // 0 come first): closed, sliding at vertex 1.
    let mode = &red.table.modes[38];
    let g = params.off_modes as usize + 38 * MODE_STRIDE;
    assert_eq!(constants[g..g + 4], [mode.params as f64, 1.0, 3.0, 1.0]);
    assert_eq!(constants[g + 6..g + 9], mode.offset);
    assert_eq!(constants[g + 9..g + 12], mode.basis[0]);
    let first = mode.first_inequality;
    let e = params.off_ineq as usize + first * 7;
    assert_eq!(constants[e..e + 3], red.table.inequalities[first].ax);
    assert_eq!(params.inequalities as usize, red.table.inequalities.len());
}
