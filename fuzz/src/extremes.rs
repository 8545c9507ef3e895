//! The extremes query's arguments (docs/model.md §5d): direction specs,
//! the number of random directions and the search budget, as a front end
//! passes them to the core.

use impactset::SamplerOptions;
use impactset::sampling::{
    ExtremesOptions, MAX_EXTREMES_BUDGET, MAX_EXTREMES_DIRECTIONS, check_direction_names, extremes, parse_direction,
    random_directions,
};

/// Largest budget and direction count the harness searches with (a search
/// of the limits' size takes minutes; the limits themselves are checked
/// without searching).
const SEARCHED_BUDGET: usize = 32;
const SEARCHED_DIRECTIONS: usize = 4;

/// Bytes 0–7: the random directions' count, 8–15 the budget (little
/// endian; missing bytes are 0), the rest lines `NAME=c0,c1,…`. Counts
/// beyond the limits are refused before anything is allocated or run; a
/// bad spec is an error naming the entry; within the limits the search
/// returns, per direction, a value no smaller than the sampled one, of a
/// finite `v⁺` whose `cᵀv⁺` it is.
pub fn extremes_args(data: &[u8]) {
    let word = |k: usize| {
        let mut b = [0u8; 8];
        for (i, x) in b.iter_mut().enumerate() {
            *x = data.get(8 * k + i).copied().unwrap_or(0);
        }
        u64::from_le_bytes(b)
    };
    let (random, budget) = (word(0) as usize, word(1) as usize);
    let Ok(text) = std::str::from_utf8(data.get(16..).unwrap_or(&[])) else { return };
    let scene = impactset::scene::builtin("rocking-block").expect("a built-in scene");
    let problem = &scene.problem;
    let mut names = Vec::new();
    let mut directions = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        match parse_direction(line, problem.n()) {
            Ok((name, c)) => {
                assert!(c.len() == problem.n() && c.iter().all(|x| x.is_finite()), "{line:?}");
                names.push(name);
                directions.push(c);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    let random_ok = random <= MAX_EXTREMES_DIRECTIONS;
    if random > SEARCHED_DIRECTIONS {
        assert_eq!(random_directions(problem, random, 0).is_ok(), random_ok, "random {random}");
        if !random_ok {
            return;
        }
    } else {
        for (j, c) in random_directions(problem, random, 0).expect("a few directions").into_iter().enumerate() {
            names.push(format!("random-{j}"));
            directions.push(c);
        }
    }
    let named = check_direction_names(names.iter().map(String::as_str));
    let options = SamplerOptions {
        samples: 8,
        steps: Some(4),
        step_size: Some(scene.step_size),
        threads: Some(1),
        ..SamplerOptions::default()
    };
    let search = ExtremesOptions { budget, ..ExtremesOptions::default() };
    if budget > MAX_EXTREMES_BUDGET {
        let e = extremes(problem, &options, &directions, &search).expect_err("a budget over the limit");
        assert_eq!((e.field, e.value), ("budget", budget.to_string()));
        return;
    }
    if budget > SEARCHED_BUDGET || directions.len() > SEARCHED_DIRECTIONS || named.is_err() {
        return;
    }
    let found = extremes(problem, &options, &directions, &search).expect("arguments within the limits");
    assert_eq!(found.len(), directions.len());
    for (e, c) in found.iter().zip(&directions) {
        assert!(e.value >= e.sampled, "{e:?}");
        if !e.v_plus.is_empty() {
            assert!(e.v_plus.iter().all(|x| x.is_finite()), "{e:?}");
            let dot: f64 = c.iter().zip(&e.v_plus).map(|(a, b)| a * b).sum();
            assert!((dot - e.value).abs() <= 1e-9 * (1.0 + dot.abs()), "{e:?}");
        }
    }
}
