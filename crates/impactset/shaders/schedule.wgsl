// The law of the caps p_i(k) (docs/model.md §5c), as `SampleSchedule` in
// src/sampling/schedule.rs: every cap is an integer P ∈ [0, 2²⁴] times 2⁻²⁴,
// computed with 32-bit integer operations only, so the GPU draws the CPU's
// caps in f32 and f64 alike. Assembled after types.wgsl and chacha.wgsl.
//
// Nothing here is kept between dispatches: a resumed sample resolves its
// law again from its schedule stream (schedule_start), `extreme` and
// `uniform` read the cap stream where the sample left it, and `held` reads
// the words of its last renewal at their position in the cap stream.

// CAP_ONE, CAP_FLOOR, MAX_CONTACTS and the laws SCHEDULE_* are in types.wgsl.

// The sample's law (SCHEDULE_UNIFORM … SCHEDULE_HELD; `mixed` resolved),
// `held`'s steps per draw and `ordered`'s persistent rates.
var<private> schedule_law: u32;
// `finish_step`: from this step on, every law but `uniform` takes every cap 1.
var<private> schedule_finish: u32;
var<private> schedule_hold: u32;
var<private> schedule_rates: array<u32, MAX_CONTACTS>;

// Set by the caller before schedule_draw: whether contact i is approaching
// at the step's start (`(J v)_i < −ε_term · s`).
var<private> approaching: array<bool, MAX_CONTACTS>;
// The step's caps P_i, written by schedule_draw.
var<private> step_caps: array<u32, MAX_CONTACTS>;

// `extreme_cap`: bit 31 the side, bits 24–30 the depth k = ⌊21 b / 128⌋,
// bits 0–23 the fraction u; the distance from the side is (u >> k) · 2⁻²⁴.
fn extreme_cap(x: u32) -> u32 {
    let k = (((x >> 24u) & 0x7fu) * 21u) >> 7u;
    let near = (x & 0x00ffffffu) >> k;
    return select(near, CAP_ONE - near, (x >> 31u) == 1u);
}

// `ordered_rate`: (2²³ + (x mod 2²³)) >> k, k = ⌊16 b / 128⌋ from bits 24–30.
fn ordered_rate(x: u32) -> u32 {
    let k = (((x >> 24u) & 0x7fu) * 16u) >> 7u;
    return (0x00800000u | (x & 0x007fffffu)) >> k;
}

// `hold_steps`: 2^(x mod 4) steps.
fn hold_steps(x: u32) -> u32 {
    return 1u << (x & 3u);
}

// Resolves the law of sample (lo, hi) under `schedule` from its schedule
// stream (stream number = index + 2⁶², wrapping): `mixed` picks
// index(x₀, 4) in the order SCHEDULE_UNIFORM, _EXTREME, _ORDERED, _HELD;
// `held` its hold from x₀, `ordered` its rates from words 1 ..= m.
// `uniform` opens no stream.
fn schedule_start(schedule: u32, key: array<u32, 8>, lo: u32, hi: u32, m: u32, max_steps: u32) {
    schedule_law = schedule;
    // K − ⌈K/4⌉.
    schedule_finish = max_steps - (max_steps + 3u) / 4u;
    if schedule == SCHEDULE_UNIFORM {
        return;
    }
    var words = stream_at(key, lo, hi + 0x40000000u, 0u);
    let x0 = next_word(&words);
    if schedule == SCHEDULE_MIXED {
        schedule_law = index(x0, 4u);
    }
    schedule_hold = hold_steps(x0);
    if schedule_law == SCHEDULE_ORDERED {
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            schedule_rates[c] = ordered_rate(next_word(&words));
        }
    }
}

// `renormalize`: every cap times the power of two 2^s that brings the
// largest approaching cap into [2²³, 2²⁴], clamped at 2²⁴; then caps below
// CAP_FLOOR to 0 and that largest cap (every approaching contact that has
// it) set to 2²⁴. Nothing changes when every approaching cap is 0.
fn renormalize(m: u32) {
    var largest = 0u;
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        if approaching[c] {
            largest = max(largest, step_caps[c]);
        }
    }
    if largest == 0u {
        return;
    }
    let zeros = countLeadingZeros(largest);
    let s = select(0u, zeros - 8u, zeros > 8u);
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        let p = step_caps[c];
        let top = (approaching[c] && p == largest) || p >= (CAP_ONE >> s);
        let scaled = select(p << s, 0u, (p << s) < CAP_FLOOR);
        step_caps[c] = select(scaled, CAP_ONE, top);
    }
}

// The caps P_i of step `steps` into step_caps: `uniform` and `extreme` read
// the next m words of the cap stream `caps` (word steps·m + i for contact i),
// `held` the words of its last renewal ⌊steps / L⌋ · m ..; `ordered` none.
// Every law but `uniform` is then renormalized over the `approaching`
// contacts, except in the finish (steps ≥ schedule_finish): every cap 2²⁴,
// no word read.
fn schedule_draw(caps: ptr<function, Stream>, key: array<u32, 8>, lo: u32, hi: u32, steps: u32, m: u32) {
    if schedule_law == SCHEDULE_UNIFORM {
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            step_caps[c] = next_word(caps) >> 8u;
        }
        return;
    }
    if steps >= schedule_finish {
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            step_caps[c] = CAP_ONE;
        }
        return;
    }
    if schedule_law == SCHEDULE_EXTREME {
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            step_caps[c] = extreme_cap(next_word(caps));
        }
    } else if schedule_law == SCHEDULE_ORDERED {
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            step_caps[c] = schedule_rates[c];
        }
    } else {
        var renewal = stream_at(key, lo, hi, (steps / schedule_hold) * m);
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            step_caps[c] = next_word(&renewal) >> 8u;
        }
    }
    renormalize(m);
}

// A cap P · 2⁻²⁴, exact in f32 and f64 (`unit` of the cap word for `uniform`).
fn cap_value(p: u32) -> scalar {
    return scalar(p) * scalar(5.9604644775390625e-8);
}
