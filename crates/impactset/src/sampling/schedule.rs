//! The law of the impulse-rate schedule: how each step's caps `p_i ∈ [0, 1]`
//! are drawn (docs/model.md §5c).
//!
//! The post-impact set is the union of outcomes over *every* schedule, so
//! any law is a correct sampler of the set; laws differ in where they put
//! their samples. Caps i.i.d. uniform at every step (`uniform`, Algorithm 2
//! of Halm & Posa) average out over the steps, so the outcomes crowd around
//! the simultaneous one and the extremes — one contact far ahead of the
//! others for the whole impact — are reached with vanishing probability.
//! The default, `mixed`, gives each sample one of four laws in equal shares:
//! `uniform` keeps the interior, the three others reach the boundary.
//!
//! Every cap is an integer `P ∈ [0, 2²⁴]` times `2⁻²⁴`, computed with 32-bit
//! integer operations only, so it is exact in f32 and f64 and the GPU draws
//! the same caps as the CPU.

use rand::RngCore;

use crate::stream::{self, SampleStreams};

/// The law of the caps `p_i(k)` (docs/model.md §5c).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    /// Each sample follows one of `uniform`, `extreme`, `ordered` and `held`,
    /// in equal shares. The default.
    #[default]
    Mixed,
    /// Every cap i.i.d. uniform on `[0, 1)` at every step: Halm & Posa's
    /// Algorithm 2, bit for bit the law of earlier releases.
    Uniform,
    /// Every cap i.i.d. at every step, near 0 or near 1 with equal chance,
    /// log-uniformly close (a Beta(0.1, 0.1)-like law without its
    /// transcendental functions).
    Extreme,
    /// Persistent relative rates: each contact draws one log-uniform rate
    /// per sample; at every step the fastest contact still approaching runs
    /// at a cap in `[1/2, 1]` and the others in proportion.
    Ordered,
    /// Uniform caps held for 1, 2, 4 or 8 steps (the length drawn per
    /// sample), then drawn anew.
    Held,
}

crate::names::named_choices! { Schedule, UnknownSchedule, "schedule", [
    Mixed = "mixed": "each sample follows uniform, extreme, ordered or held, in equal shares (reaches the extremes)",
    Uniform = "uniform": "caps i.i.d. uniform at every step (Halm & Posa's Algorithm 2; crowds the middle of the set)",
    Extreme = "extreme": "caps i.i.d. near 0 or near 1 at every step",
    Ordered = "ordered": "persistent relative rates per sample, the fastest approaching contact at full rate",
    Held = "held": "uniform caps held for 1, 2, 4 or 8 steps",
] }

impl<'de> serde::Deserialize<'de> for Schedule {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::names::deserialize_choice(deserializer, "a schedule law")
    }
}

/// `2²⁴`: the cap `p = 1`.
pub const CAP_ONE: u32 = 1 << 24;

/// Caps below `2⁻²⁰` (`P < 16`) after [`renormalize`] are rounded to 0 by
/// the laws other than `uniform`: such a step LCP is degenerate to within
/// round-off (the contact's impulse `h·p` is below `10⁻⁶ h`, the fastest
/// contact's being `h`), and a zero cap is itself a legitimate schedule.
pub const CAP_FLOOR: u32 = 16;

/// The four laws `mixed` draws from, in the order of its pick.
const MIXED_LAWS: [Schedule; 4] = [Schedule::Uniform, Schedule::Extreme, Schedule::Ordered, Schedule::Held];

/// `extreme`: a cap near 0 or near 1 from one word `x`: bit 31 the side,
/// bits 24–30 the depth `k = ⌊21·b/128⌋ ∈ 0..=20`, bits 0–23 the fraction
/// `u`; the distance from the side is `(u >> k) · 2⁻²⁴ < 2⁻ᵏ`.
#[inline]
pub fn extreme_cap(x: u32) -> u32 {
    let k = (((x >> 24) & 0x7f) * 21) >> 7;
    let near = (x & 0x00ff_ffff) >> k;
    if x >> 31 == 1 { CAP_ONE - near } else { near }
}

/// `ordered`: a contact's persistent rate from one word `x`, log-uniform
/// over 16 octaves: `k = ⌊16·b/128⌋ ∈ 0..=15` from bits 24–30, and
/// `W = (2²³ + (x mod 2²³)) >> k ∈ [2²³⁻ᵏ, 2²⁴⁻ᵏ)`, never 0.
#[inline]
pub fn ordered_rate(x: u32) -> u32 {
    let k = (((x >> 24) & 0x7f) * 16) >> 7;
    (0x0080_0000 | (x & 0x007f_ffff)) >> k
}

/// The first step of the finish: under every law but `uniform`, steps
/// `k ≥ K − ⌈K/4⌉` of a sample with step cap `K` take every cap 1, so a
/// sample whose law kept some contact slow still ends its impact within
/// `K` steps (a rejected sample would lose that extreme outcome altogether).
#[inline]
pub fn finish_step(steps: usize) -> u32 {
    (steps - steps.div_ceil(4)) as u32
}

/// `held`: the hold length `2^(x mod 4)` ∈ {1, 2, 4, 8} steps from word 0
/// of the schedule stream.
#[inline]
pub fn hold_steps(x: u32) -> u32 {
    1 << (x & 3)
}

/// Scales every cap by the power of two `2^s` that brings the largest cap of
/// a contact still approaching into `[2²³, 2²⁴]` (`[1/2, 1]`), clamping at
/// `2²⁴`; then rounds caps below [`CAP_FLOOR`] to 0 and sets that largest
/// cap (every approaching contact that has it) to `2²⁴`. The fastest
/// approaching contact runs at the full cap, so a step never dawdles with
/// every approaching contact near 0; the other caps keep their ratios to
/// within a factor 2 (exactly, among themselves, between the floor and the
/// clamp). Nothing changes when every approaching contact's cap is 0.
pub fn renormalize(caps: &mut [u32], approaching: &[bool]) {
    let largest = caps.iter().zip(approaching).filter(|(_, a)| **a).map(|(p, _)| *p).max().unwrap_or(0);
    if largest == 0 {
        return;
    }
    // largest ∈ [1, 2²⁴]: s ∈ 0..=23 brings it into [2²³, 2²⁴].
    let s = largest.leading_zeros().saturating_sub(8);
    for (p, a) in caps.iter_mut().zip(approaching) {
        *p = if *a && *p == largest || *p >= CAP_ONE >> s {
            CAP_ONE
        } else if (*p << s) < CAP_FLOOR {
            0
        } else {
            *p << s
        };
    }
}

/// One sample's law, resolved from its schedule stream.
pub(crate) struct SampleSchedule {
    law: Schedule,
    /// [`finish_step`] of the run's step cap.
    finish: u32,
    /// `held`: steps per draw.
    hold: u32,
    /// `ordered`: the persistent rates.
    rates: Vec<u32>,
    /// The law's caps of the current step before [`renormalize`] (`held`
    /// keeps them from one renewal to the next), as integers `P`.
    drawn: Vec<u32>,
    /// The caps taken, `p = P · 2⁻²⁴`.
    caps: Vec<u32>,
}

impl SampleSchedule {
    pub(crate) fn new(m: usize) -> Self {
        SampleSchedule {
            law: Schedule::Uniform,
            finish: u32::MAX,
            hold: 1,
            rates: vec![0; m],
            drawn: vec![0; m],
            caps: vec![0; m],
        }
    }

    /// Resolves sample `index`'s law under `schedule`: `mixed` picks one of
    /// [`MIXED_LAWS`] with `index(x₀, 4)`; `held` takes its hold length from
    /// `x₀`, `ordered` its rates from words `1 ..= m`. `uniform` reads no word.
    pub(crate) fn start(&mut self, schedule: Schedule, steps: usize, key: &[u8; 32], index: u64) {
        self.finish = finish_step(steps);
        if schedule == Schedule::Uniform {
            self.law = Schedule::Uniform;
            return;
        }
        let mut words = stream::schedule_stream(key, index);
        let x0 = words.next_u32();
        self.law = match schedule {
            Schedule::Mixed => MIXED_LAWS[stream::index(x0, MIXED_LAWS.len())],
            law => law,
        };
        self.hold = hold_steps(x0);
        for w in self.rates.iter_mut() {
            *w = ordered_rate(words.next_u32());
        }
    }

    /// The caps `p_i = P_i · 2⁻²⁴` of step `step`, from the cap stream.
    /// `uniform` reads word `step·m + i` for contact `i` (in sequence);
    /// `extreme` reads the same words; `held` reads the words of its last
    /// renewal step `⌊step/L⌋·L`; `ordered` reads none. Then every law but
    /// `uniform` is [`renormalize`]d over the contacts `approaching`, except
    /// in the finish ([`finish_step`]): every cap 1, no word read.
    pub(crate) fn draw(&mut self, streams: &mut SampleStreams, step: u32, approaching: &[bool], p: &mut [f64]) {
        let m = self.caps.len();
        match self.law {
            Schedule::Uniform => {
                for p in p.iter_mut() {
                    *p = stream::unit(streams.cap_word());
                }
                return;
            }
            _ if step >= self.finish => {
                p.fill(1.0);
                return;
            }
            Schedule::Extreme => {
                for c in self.drawn.iter_mut() {
                    *c = extreme_cap(streams.cap_word());
                }
            }
            Schedule::Ordered => self.drawn.copy_from_slice(&self.rates),
            Schedule::Held => {
                if step % self.hold == 0 {
                    streams.seek_caps(u64::from(step / self.hold) * m as u64);
                    for c in self.drawn.iter_mut() {
                        *c = streams.cap_word() >> 8;
                    }
                }
            }
            Schedule::Mixed => unreachable!("resolved by start"),
        }
        self.caps.copy_from_slice(&self.drawn);
        renormalize(&mut self.caps, approaching);
        for (p, c) in p.iter_mut().zip(&self.caps) {
            *p = *c as f64 * (1.0 / CAP_ONE as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_caps_lie_near_the_ends_log_uniformly() {
        // Side 0, depth 0, every fraction: the whole [0, 1).
        assert_eq!(extreme_cap(0x00ff_ffff), 0x00ff_ffff);
        // Side 1, depth 0: 1 − u.
        assert_eq!(extreme_cap(0x8000_0001), CAP_ONE - 1);
        // Depth 20 (b = 127): within 2⁻²⁰ of the side.
        assert!(extreme_cap(0x7fff_ffff) < 16);
        assert!(extreme_cap(0xffff_ffff) > CAP_ONE - 16);
        // Every depth occurs.
        let depths: std::collections::BTreeSet<u32> = (0..128u32).map(|b| (b * 21) >> 7).collect();
        assert_eq!(depths.len(), 21);
    }

    #[test]
    fn ordered_rates_are_positive_and_span_sixteen_octaves() {
        assert_eq!(ordered_rate(0), 0x0080_0000);
        assert_eq!(ordered_rate(0x7fff_ffff), 0x00ff_ffff >> 15);
        assert!((0..1000u32).map(|j| ordered_rate(j.wrapping_mul(2_654_435_761))).all(|w| w > 0 && w < CAP_ONE));
    }

    #[test]
    fn renormalizing_brings_the_largest_approaching_cap_to_the_top_octave() {
        let mut caps = [100, 3000, 10, CAP_ONE - 1, 3000, 0];
        renormalize(&mut caps, &[true, true, true, false, false, true]);
        // The largest approaching cap, 3000, runs at 1; the others scale by
        // 2¹² (3000·2¹² ∈ [2²³, 2²⁴)), the separating contact's large cap
        // clamps at 1; 10·2¹² stays above the floor.
        assert_eq!(caps, [100 << 12, CAP_ONE, 10 << 12, CAP_ONE, 3000 << 12, 0]);
        // A slow contact alone runs at 1; a tiny one beside a fast one is 0.
        let mut slow = [5, 7];
        renormalize(&mut slow, &[true, false]);
        assert_eq!(slow, [CAP_ONE, 7 << 21]);
        let mut high = [CAP_ONE / 2, 3, CAP_ONE / 2];
        renormalize(&mut high, &[true, true, false]);
        assert_eq!(high, [CAP_ONE, 0, CAP_ONE / 2]);
        let mut zero = [0, 9];
        renormalize(&mut zero, &[true, false]);
        assert_eq!(zero, [0, 9]);
    }
}
