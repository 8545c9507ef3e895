//! Assembling WGSL modules from the files in `shaders/`. WGSL has no
//! includes, so a module is the concatenation of its files; the only text
//! replaced is the scalar alias (`scalar`: f32 or f64), followed by the
//! scalar's own constants, the sizes of the private arrays and of the
//! tableau (`MAX_N`, `MAX_DOF` and what follows from them in `types.wgsl`,
//! [`ModuleSizes`]), and the width of `all`'s private arrays
//! (`MAX_CONTACTS_ALL`, `MAX_DIM` in `enumerate.wgsl`).

use super::Precision;
use super::enumerate::AllWidth;
use super::types::ModuleSizes;

const TYPES: &str = include_str!("../../shaders/types.wgsl");
const CHACHA: &str = include_str!("../../shaders/chacha.wgsl");
const SCHEDULE: &str = include_str!("../../shaders/schedule.wgsl");
const LEMKE: &str = include_str!("../../shaders/lemke.wgsl");
const MODE_SYSTEM: &str = include_str!("../../shaders/mode_system.wgsl");
const ROOT_FILTER: &str = include_str!("../../shaders/root_filter.wgsl");
const REBUILD: &str = include_str!("../../shaders/rebuild.wgsl");
const ENUMERATE: &str = include_str!("../../shaders/enumerate.wgsl");
const RESTITUTION: &str = include_str!("../../shaders/restitution.wgsl");
const CONTINUATION: &str = include_str!("../../shaders/continuation.wgsl");
const ELASTIC_STEP: &str = include_str!("../../shaders/elastic_step.wgsl");
const ROUTH: &str = include_str!("../../shaders/routh.wgsl");
const SLOT: &str = include_str!("../../shaders/slot.wgsl");
const LEMKE_COOP: &str = include_str!("../../shaders/lemke_coop.wgsl");
const ROUTH_COOP: &str = include_str!("../../shaders/routh_coop.wgsl");
const TESTS: &str = include_str!("../../shaders/tests.wgsl");
const TESTS_COOP: &str = include_str!("../../shaders/tests_coop.wgsl");

/// The line of `types.wgsl` that fixes the scalar type.
const SCALAR_LINE: &str = "alias scalar = f32;";

/// The lines of `enumerate.wgsl` that fix the width of `all`'s arrays.
const WIDTH_LINES: &str = "const MAX_CONTACTS_ALL: u32 = 3u;\nconst MAX_DIM: u32 = 9u;";

/// Which module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Module {
    /// Algorithm 1 (`routh.wgsl`), with `all`'s arrays of the given width,
    /// for problems of the given sizes.
    Routh(AllWidth, ModuleSizes),
    /// Algorithm 1 with one workgroup per sample (`routh_coop.wgsl` after
    /// the sampler module of `all`'s narrow width, whose bindings and
    /// helpers it shares), for problems of the given sizes.
    RouthCoop(ModuleSizes),
    /// The ChaCha, cap and Lemke test kernels (`tests.wgsl`), for LCPs and
    /// contacts of the given sizes.
    Tests(ModuleSizes),
    /// The cooperative Lemke test kernel (`tests_coop.wgsl`).
    TestsCoop(ModuleSizes),
}

/// The WGSL source of `module` in `precision`.
pub(crate) fn source(module: Module, precision: Precision) -> String {
    assert!(TYPES.contains(SCALAR_LINE), "types.wgsl must declare `{SCALAR_LINE}`");
    // The scalar's own constants: its ε and least normal number, and the
    // violation below which a step continued on its support
    // (continuation.wgsl) is taken: the CPU's `ENUMERATED_VIOLATION` in
    // f64, the run's residual tolerance alone in f32 (a bound above any
    // residual, so the `min` with the tolerance takes the tolerance).
    let scalar_line = match precision {
        Precision::F32 => format!(
            "{SCALAR_LINE}\nconst SCALAR_EPSILON: scalar = {:e};\nconst SCALAR_MIN_POSITIVE: scalar = {:e};\n\
             const CONTINUATION_VIOLATION: scalar = 1e30;",
            f32::EPSILON,
            f32::MIN_POSITIVE
        ),
        Precision::F64 => format!(
            "alias scalar = f64;\nconst SCALAR_EPSILON: scalar = scalar({:e});\n\
             const SCALAR_MIN_POSITIVE: scalar = scalar({:e});\nconst CONTINUATION_VIOLATION: scalar = scalar({:e});",
            f64::EPSILON,
            f64::MIN_POSITIVE,
            crate::impact::ENUMERATED_VIOLATION
        ),
    };
    let sizes = match module {
        Module::Routh(_, sizes) | Module::RouthCoop(sizes) | Module::Tests(sizes) | Module::TestsCoop(sizes) => sizes,
    };
    let base_lines = ModuleSizes::BASE.wgsl_lines();
    assert!(TYPES.contains(&base_lines), "types.wgsl must declare the smallest module's sizes:\n{base_lines}");
    let types = TYPES.replacen(SCALAR_LINE, &scalar_line, 1).replacen(&base_lines, &sizes.wgsl_lines(), 1);
    match module {
        Module::Routh(width, _) => routh(&types, width, &[]),
        Module::RouthCoop(_) => routh(&types, AllWidth::Narrow, &[LEMKE_COOP, ROUTH_COOP]),
        Module::Tests(_) => [types.as_str(), CHACHA, SCHEDULE, LEMKE, TESTS].join("\n"),
        Module::TestsCoop(_) => [types.as_str(), CHACHA, SCHEDULE, LEMKE, TESTS, LEMKE_COOP, TESTS_COOP].join("\n"),
    }
}

/// The sampler module: `types` (sizes and scalar substituted), the shaders
/// of Algorithm 1 with `all`'s arrays of `width`, then `extra`.
fn routh(types: &str, width: AllWidth, extra: &[&str]) -> String {
    let enumerate = enumerate_of(width);
    let mut parts = vec![
        types,
        CHACHA,
        SCHEDULE,
        LEMKE,
        MODE_SYSTEM,
        ROOT_FILTER,
        REBUILD,
        &enumerate,
        RESTITUTION,
        CONTINUATION,
        ELASTIC_STEP,
        ROUTH,
        SLOT,
    ];
    parts.extend(extra);
    parts.join("\n")
}

/// `enumerate.wgsl` with `all`'s arrays of `width`.
fn enumerate_of(width: AllWidth) -> String {
    assert!(ENUMERATE.contains(WIDTH_LINES), "enumerate.wgsl must declare `{WIDTH_LINES}`");
    let (contacts, dim) = width.sizes();
    let lines = format!("const MAX_CONTACTS_ALL: u32 = {contacts}u;\nconst MAX_DIM: u32 = {dim}u;");
    ENUMERATE.replacen(WIDTH_LINES, &lines, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of the `u32` constant `name` of `module`.
    fn constant(module: &naga::Module, name: &str) -> u32 {
        let (_, c) = module.constants.iter().find(|(_, c)| c.name.as_deref() == Some(name)).expect(name);
        match module.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => v,
            ref other => panic!("{name} = {other:?}"),
        }
    }

    /// `source` parses and validates (uniformity included: the
    /// cooperative kernel's barriers must be in uniform control flow).
    fn validate(source: &str, what: &str) {
        let module =
            naga::front::wgsl::parse_str(source).unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(source)));
        let flags = naga::valid::ValidationFlags::all();
        naga::valid::Validator::new(flags, naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(source)));
    }

    /// The cooperative sampler module validates in both precisions, in the
    /// smallest size class and in a humanoid's and a sixteen-contact
    /// quadruped's.
    #[test]
    fn the_cooperative_module_validates() {
        for sizes in [ModuleSizes::BASE, ModuleSizes::of(88, 27), ModuleSizes::of(176, 40)] {
            for precision in [Precision::F32, Precision::F64] {
                validate(&source(Module::RouthCoop(sizes), precision), &format!("{sizes:?} {precision:?}"));
                validate(&source(Module::TestsCoop(sizes), precision), &format!("tests {sizes:?} {precision:?}"));
            }
        }
    }

    /// Both widths of the sampler module parse and validate in both
    /// precisions (array sizes derived from the width included), with the
    /// width's own sizes, in the smallest size class and a larger one (a
    /// humanoid on both feet: N = 88), whose wider tableau blocks are code
    /// of their own.
    #[test]
    fn both_widths_of_the_sampler_module_validate() {
        for (width, sizes) in [
            (AllWidth::Narrow, ModuleSizes::BASE),
            (AllWidth::Wide, ModuleSizes::BASE),
            (AllWidth::Narrow, ModuleSizes::of(88, 27)),
        ] {
            for precision in [Precision::F32, Precision::F64] {
                let source = source(Module::Routh(width, sizes), precision);
                validate(&source, &format!("{width:?} {precision:?}"));
                let module = naga::front::wgsl::parse_str(&source).expect("the sampler module parses");
                let (contacts, dim) = width.sizes();
                assert_eq!(constant(&module, "MAX_CONTACTS_ALL"), contacts as u32, "{width:?}");
                assert_eq!(constant(&module, "MAX_DIM"), dim as u32, "{width:?}");
            }
        }
    }
}
