"""Impacts of the measured square drops (data/wang-mason-square): which
frames bracket an impact, the free flight on either side fitted as a
ballistic motion, and the pre- and post-impact velocities with their noise.

A pose is ``q = (x, z, θ)`` (metres, radians; ``z`` up, ground at ``z = 0``,
``θ`` counter-clockwise), a velocity ``v = (ẋ, ż, ω)``. A square of side
``s`` and mass ``m`` has ``M = diag(m, m, m s²/6)``; every number here is a
ratio of ``M``-norms, in which ``m`` cancels, so ``m = 1``.

docs/real-drops.md gives the method and its thresholds' reasons.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data" / "wang-mason-square" / "poses.npz"
G = 9.81
"""Gravity (m/s²) of the ballistic fits."""


@dataclass(frozen=True)
class Drops:
    """The measured drops: ``poses`` (drops, frames, 3) of ``x, z, θ``."""

    poses: np.ndarray
    drop: np.ndarray
    dt: float
    side: float

    @property
    def mass_matrix(self) -> np.ndarray:
        """``diag(1, 1, s²/6)``: a unit-mass uniform square."""
        return np.diag([1.0, 1.0, self.side**2 / 6.0])


def load_drops(path: Path = DATA) -> Drops:
    """The shipped drops (float64 poses)."""
    with np.load(path) as data:
        return Drops(
            poses=data["poses"].astype(np.float64),
            drop=data["drop"].copy(),
            dt=1.0 / float(data["frame_rate"]),
            side=float(data["side"]),
        )


def corner_offsets(theta: np.ndarray | float, side: float) -> np.ndarray:
    """World offsets ``R(θ) c`` of the four corners from the centre, shape
    ``(…, 4, 2)``; corner ``c`` in the body frame is ``(±s/2, ±s/2)``."""
    body = 0.5 * side * np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [-1.0, 1.0]])
    c, s = np.cos(theta)[..., None], np.sin(theta)[..., None]
    return np.stack([c * body[:, 0] - s * body[:, 1], s * body[:, 0] + c * body[:, 1]], axis=-1)


def corner_heights(poses: np.ndarray, side: float) -> np.ndarray:
    """Heights of the four corners above the ground, shape ``(…, 4)``."""
    return poses[..., 1, None] + corner_offsets(poses[..., 2], side)[..., 1]


def contact_rows(theta: float, side: float, corners: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Normal and tangent rows of the ground contacts at ``corners``: the
    corner's velocity ``(ẋ − ω r_z, ż + ω r_x)`` for its offset ``r``, so
    ``Jn = (0, 1, r_x)`` and ``Jt = (1, 0, −r_z)``."""
    r = corner_offsets(np.float64(theta), side)[corners]
    jn = np.column_stack([np.zeros(len(corners)), np.ones(len(corners)), r[:, 0]])
    jt = np.column_stack([np.ones(len(corners)), np.zeros(len(corners)), -r[:, 1]])
    return jn, jt


@dataclass(frozen=True)
class Flight:
    """A ballistic fit of frames ``first … last``: ``x`` and ``θ`` linear in
    time, ``z`` with acceleration ``−g``. ``q0``, ``v0`` are the pose and
    velocity at ``t0`` (the window's mean time), ``rms`` the residual per
    coordinate, ``spread`` ``Σ (t − t0)²`` (the velocity's variance is
    ``σ²/spread`` for a position noise ``σ``), ``dt`` the frame interval."""

    first: int
    last: int
    t0: float
    q0: np.ndarray
    v0: np.ndarray
    rms: np.ndarray
    spread: float
    g: float
    dt: float

    def times(self) -> np.ndarray:
        return np.arange(self.first, self.last + 1) * self.dt

    def pose(self, t: float) -> np.ndarray:
        tau = t - self.t0
        return self.q0 + self.v0 * tau - np.array([0.0, 0.5 * self.g * tau * tau, 0.0])

    def velocity(self, t: float) -> np.ndarray:
        return self.v0 - np.array([0.0, self.g * (t - self.t0), 0.0])


def fit_flight(poses: np.ndarray, first: int, last: int, dt: float, g: float = G) -> Flight:
    """The ballistic fit of ``poses[first : last + 1]`` (least squares, at
    least 3 frames)."""
    frames = np.arange(first, last + 1)
    if len(frames) < 3:
        raise ValueError(f"a flight needs 3 frames, got {len(frames)}")
    t = frames * dt
    t0 = float(t.mean())
    tau = t - t0
    y = poses[frames].copy()
    y[:, 1] += 0.5 * g * tau * tau
    spread = float(tau @ tau)
    v0 = tau @ (y - y.mean(axis=0)) / spread
    q0 = y.mean(axis=0)
    residual = y - q0 - np.outer(tau, v0)
    rms = np.sqrt((residual**2).sum(axis=0) / (len(frames) - 2))
    return Flight(first, last, t0, q0, v0, rms, spread, g, dt)


def free_fall_g(poses: np.ndarray, first: int, last: int, dt: float) -> float:
    """The acceleration of ``z`` fitted freely (a parabola) over a flight:
    a check of the fixed-``g`` model, not used by it."""
    t = np.arange(first, last + 1) * dt
    return float(-2.0 * np.polyfit(t - t.mean(), poses[first : last + 1, 1], 2)[0])


@dataclass(frozen=True)
class Detection:
    """Thresholds of impact detection and of the flights kept around it."""

    jump: float = 0.15
    """Smallest M-norm velocity jump (m/s) between 3-frame fits across a frame gap."""
    touch: float = 0.006
    """A candidate gap has its lowest corner within this height (m) on one side."""
    guard: int = 2
    """Frames left out on each side of the impact gap (tracking blurs them)."""
    window: int = 8
    """Most frames in a flight fit on each side."""
    min_frames: int = 4
    """Fewest frames of free flight on each side of a kept impact."""
    max_rms: float = 2.5e-4
    """Largest residual (m, and m per s/√6 for θ) a kept flight may have."""
    max_meet: float = 0.02
    """Largest distance (m) between the two flights' centres at the impact."""
    contact: float = 3.0e-3
    """A corner within this height (m) of the ground during the event is in the impact."""
    min_speed: float = 0.5
    """Smallest pre-impact speed ``‖v⁻‖_M`` (m/s, unit mass) of a kept impact."""
    floor: float = -2.0e-3
    """Lowest corner height (m) a kept flight's fit may reach inside its window."""


@dataclass(frozen=True)
class Impact:
    """One measured impact: drop id, the frame before it, its time ``t``,
    the pose there, the fitted velocities before and after, which corners
    touch, and the flights."""

    drop: int
    frame: int
    t: float
    pose: np.ndarray
    v_minus: np.ndarray
    v_plus: np.ndarray
    corners: tuple[int, ...]
    before: Flight
    after: Flight

    @property
    def kind(self) -> str:
        return "one-corner" if len(self.corners) == 1 else "two-corner"


def jump_gaps(poses: np.ndarray, side: float, dt: float, options: Detection) -> list[int]:
    """Frame gaps ``k`` (between frames ``k`` and ``k + 1``) where the
    velocity jumps near the ground: 3-frame fits on either side differ by
    more than ``options.jump`` in M-norm, the lowest corner is within
    ``options.touch`` of the ground on one side, and the jump is the
    largest within two gaps."""
    weight = np.array([1.0, 1.0, side**2 / 6.0])
    lowest = corner_heights(poses, side).min(axis=1)
    frames = len(poses)
    jumps = np.zeros(frames - 1)
    for k in range(2, frames - 3):
        t = (k + 0.5) * dt
        dv = fit_flight(poses, k + 1, k + 3, dt).velocity(t) - fit_flight(poses, k - 2, k, dt).velocity(t)
        jumps[k] = np.sqrt(dv**2 @ weight)
    gaps = []
    for k in np.flatnonzero(jumps > options.jump):
        near = min(lowest[k], lowest[k + 1]) < options.touch
        if near and jumps[k] == jumps[max(k - 2, 0) : k + 3].max():
            gaps.append(int(k))
    return gaps


def first_touch(before: Flight, side: float, lo: float, hi: float) -> float:
    """The time in ``[lo, hi]`` at which the pre-impact flight's lowest
    corner reaches the ground (bisection); ``lo`` when it is already below
    there, ``hi`` when it is still above."""

    def height(t: float) -> float:
        return float(corner_heights(before.pose(t), side).min())

    if height(lo) <= 0.0:
        return lo
    if height(hi) >= 0.0:
        return hi
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if height(mid) > 0.0 else (lo, mid)
    return 0.5 * (lo + hi)


def touching_corners(before: Flight, after: Flight, side: float, t: float, end: float, tol: float) -> tuple[int, ...]:
    """The corners in the impact: those within ``tol`` of the lowest corner
    in the pre-impact flight at the first touch ``t`` (the lowest is at the
    ground, or up to the tracking's 2 mm below it), and
    those that the post-impact flight, followed back in time, puts within
    ``tol`` of the ground between ``t`` and ``end`` (the first frame after
    the event): they touched inside the event, with the first corner or
    after it."""
    times = np.linspace(t, end, 33)
    after_heights = corner_heights(np.array([after.pose(s) for s in times]), side).min(axis=0)
    before_heights = corner_heights(before.pose(t), side)
    near = (before_heights <= before_heights.min() + tol) | (after_heights <= tol)
    return tuple(np.flatnonzero(near).tolist())


def flight_ok(flight: Flight, side: float, options: Detection) -> bool:
    """Free flight: residuals within ``options.max_rms``
    (θ's scaled by the radius of gyration) and no fitted corner below
    ``options.floor``."""
    scale = np.array([1.0, 1.0, side / np.sqrt(6.0)])
    if np.any(flight.rms * scale > options.max_rms):
        return False
    fitted = np.array([flight.pose(t) for t in flight.times()])
    return bool(corner_heights(fitted, side).min() >= options.floor)


def detect_impacts(drops: Drops, index: int, options: Detection | None = None) -> tuple[list[Impact], Counter[str]]:
    """The impacts of drop ``index`` kept for validation, and why the other
    candidate gaps were not kept (reason → count)."""
    options = options or Detection()
    poses, dt, side, g = drops.poses[index], drops.dt, drops.side, options.guard
    gaps = jump_gaps(poses, side, dt, options)
    impacts: list[Impact] = []
    rejected: Counter[str] = Counter()
    for j, k in enumerate(gaps):
        start = max(gaps[j - 1] + 1 + g if j > 0 else 0, k - g - options.window + 1)
        stop = min(gaps[j + 1] - g if j + 1 < len(gaps) else len(poses) - 1, k + g + options.window)
        if k - g - start + 1 < options.min_frames or stop - k - g < options.min_frames:
            rejected["short flight"] += 1
            continue
        before, after = fit_flight(poses, start, k - g, dt), fit_flight(poses, k + 1 + g, stop, dt)
        if not (flight_ok(before, side, options) and flight_ok(after, side, options)):
            rejected["not free flight"] += 1
            continue
        t = first_touch(before, side, (k - g) * dt, (k + 1 + g) * dt)
        pose, v_minus, v_plus = before.pose(t), before.velocity(t), after.velocity(t)
        if np.hypot(*(pose - after.pose(t))[:2]) > options.max_meet:
            rejected["flights do not meet"] += 1
            continue
        if np.sqrt(v_minus @ drops.mass_matrix @ v_minus) < options.min_speed:
            rejected["slow"] += 1
            continue
        corners = touching_corners(before, after, side, t, (k + 1 + g) * dt, options.contact)
        jn, _ = contact_rows(pose[2], side, list(corners))
        if np.min(jn @ v_minus) >= 0.0:
            rejected["not approaching"] += 1
            continue
        impacts.append(Impact(int(drops.drop[index]), k, t, pose, v_minus, v_plus, corners, before, after))
    return impacts, rejected


@dataclass(frozen=True)
class NoiseFloor:
    """How far tracking noise alone moves ``d``.

    ``sigma``: the position noise per coordinate, the quadratic mean of the
    kept flights' residuals. ``split_half``: the check against the data, the
    pre-impact velocity fitted separately on the two halves of every 8-frame
    flight, the root mean square of their M-norm difference over the one
    ``sigma`` predicts (1 when the noise model is right; above 1 the data
    scatter more, e.g. from tracking glitches or a ``g`` off by a little).
    ``per_impact``: the velocity noise of ``v⁻`` and ``v⁺`` relative to
    ``‖v⁻‖_M``, ``√(Σ_c M_cc σ_c² (1/S⁻ + 1/S⁺)) / ‖v⁻‖_M`` (``S`` the two
    flights' ``Σ (t − t̄)²``), scaled up by ``split_half`` when that exceeds
    1: the ``d`` a perfect model would show."""

    sigma: np.ndarray
    split_half: float
    per_impact: np.ndarray


def noise_floor(impacts: list[Impact], drops: Drops) -> NoiseFloor:
    """The noise floor of the measured velocities (see ``NoiseFloor``)."""
    weight = np.diag(drops.mass_matrix)
    flights = [f for i in impacts for f in (i.before, i.after)]
    sigma = np.sqrt(np.mean([f.rms**2 for f in flights], axis=0))
    measured, predicted = 0.0, 0.0
    for i in impacts:
        b = i.before
        if b.last - b.first + 1 < 8:
            continue
        poses = drops.poses[int(np.flatnonzero(drops.drop == i.drop)[0])]
        half = (b.first + b.last) // 2
        early, late = fit_flight(poses, b.first, half, drops.dt), fit_flight(poses, half + 1, b.last, drops.dt)
        measured += weight @ (early.velocity(i.t) - late.velocity(i.t)) ** 2
        predicted += weight @ sigma**2 * (1 / early.spread + 1 / late.spread)
    split_half = float(np.sqrt(measured / predicted)) if predicted > 0.0 else np.nan
    scale = max(split_half, 1.0) if np.isfinite(split_half) else 1.0
    per_impact = np.array(
        [
            scale
            * np.sqrt(weight @ sigma**2 * (1 / i.before.spread + 1 / i.after.spread))
            / np.sqrt(i.v_minus @ drops.mass_matrix @ i.v_minus)
            for i in impacts
        ]
    )
    return NoiseFloor(sigma, split_half, per_impact)
