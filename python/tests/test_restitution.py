"""Restitution in the Python package: ``Problem.from_arrays(...,
restitution=)``, ``Problem.restitution``, ``Problem.with_restitution``, the
robot importers' and the MuJoCo impact sampler's ``restitution=`` option,
batches (``reach``), the per-sample ``energy_guard`` and the summary's
``energy_guards``.

The expected values are derived here, not read from the code:

* one frictionless contact (any mass matrix): the impulse acts along
  ``M⁻¹Jnᵀ`` only, so ``v⁺ = v⁻ + M⁻¹Jnᵀ p`` with a scalar ``p ≥ 0``. The
  compression phase ends when the normal velocity is 0, at
  ``p_c = −v_n⁻ / (Jn M⁻¹ Jnᵀ)``, having absorbed the work
  ``W_c = ½ (v_n⁻)² / (Jn M⁻¹ Jnᵀ)``. Stronge's energetic coefficient asks
  the expansion to give back ``e² W_c``; with the normal velocity rising
  linearly in the impulse that takes ``p_e = e p_c``, so
  ``v_n⁺ = −e v_n⁻`` and ``p = (1 + e) p_c`` (Newton's law: the energetic
  and kinematic coefficients agree for one frictionless contact);
* a body falling straight onto a floor, with no tangential velocity and no
  moment about the contact point, feels no friction: it leaves at ``e``
  times its landing speed, friction or not;
* frictionless contacts with ``e = 1`` keep the kinetic energy, and no
  sample of any problem gains any (docs/model.md §4b).
"""

from __future__ import annotations

import copy
import pickle

import impactset
import numpy as np
import pytest
from impactset import _mujoco_cli

RULES = ["lemke", "random-lemke", "all"]


def rod_on_floor(theta: float = 0.6, length: float = 1.0, mu: float = 0.0):
    """A planar rod (mass 1, length ``length``, coordinates x, y, θ about its
    centre) whose lower end touches the floor at tilt ``theta``, falling at
    1 with a spin: one contact whose normal row couples translation and
    rotation, so ``M⁻¹Jnᵀ`` is not along a coordinate."""
    inertia = length**2 / 12.0
    M = np.diag([1.0, 1.0, inertia])
    half = 0.5 * length
    # The lower end at (x − h cos θ, y − h sin θ): its velocity rows.
    Jn = np.array([[0.0, 1.0, -half * np.cos(theta)]])
    Jt = np.array([[1.0, 0.0, half * np.sin(theta)]])
    v = np.array([0.2, -1.0, 0.5])
    return M, v, Jn, Jt, np.array([mu])


def energy(M, v):
    v = np.asarray(v)
    return 0.5 * np.einsum("...i,ij,...j->...", v, M, v)


def same_samples(a: impactset.SampleSet, b: impactset.SampleSet) -> None:
    """Every array of the two runs equal bit for bit."""
    for field in ("v_plus", "accepted", "indices", "steps", "energy_ratio", "residual", "modes", "energy_guard"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype == y.dtype and x.shape == y.shape, field
        assert x.tobytes() == y.tobytes(), field
    assert a.mode_labels == b.mode_labels


@pytest.mark.parametrize("e", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("selection", RULES)
def test_one_frictionless_contact_rebounds_at_e_times_its_landing_speed(e, selection):
    M, v, Jn, Jt, mu = rod_on_floor()
    p = impactset.Problem.from_arrays(M, v, Jn, Jt, mu, restitution=e)
    assert p.restitution.tolist() == [e]
    s = impactset.sample(p, 256, seed=3, selection=selection)
    assert len(s) == 256
    vn_minus = float(Jn[0] @ v)
    vn_plus = s.v_plus @ Jn[0]
    np.testing.assert_allclose(vn_plus, -e * vn_minus, rtol=0, atol=1e-9)
    # The whole velocity: v⁻ + M⁻¹Jnᵀ (1 + e) p_c.
    w = np.linalg.solve(M, Jn[0])
    expected = v + w * (1.0 + e) * (-vn_minus / float(Jn[0] @ w))
    np.testing.assert_allclose(s.v_plus, np.broadcast_to(expected, s.v_plus.shape), rtol=0, atol=1e-9)
    # Energy: e = 1 keeps it; otherwise the lost part is (1 − e²) W_c.
    loss = 0.5 * vn_minus**2 / float(Jn[0] @ w) * (1.0 - e * e)
    np.testing.assert_allclose(energy(M, s.v_plus), energy(M, v) - loss, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("schedule", list(impactset._impactset.SCHEDULES))
def test_every_schedule_gives_the_rebound(schedule):
    M, v, Jn, Jt, mu = rod_on_floor(theta=1.1)
    s = impactset.sample(impactset.Problem.from_arrays(M, v, Jn, Jt, mu, restitution=0.3), 128, schedule=schedule)
    assert len(s) == 128
    np.testing.assert_allclose(s.v_plus @ Jn[0], -0.3 * float(Jn[0] @ v), rtol=0, atol=1e-9)


def test_e_zero_gives_the_inelastic_samples_bit_for_bit():
    """Restitution left out, 0, [0, 0] or set to 0 afterwards: the same run."""
    block = impactset.Problem.scene("rocking-block")
    arrays = (block.M, block.v, block.Jn, block.Jt, block.mu)
    variants = [
        impactset.Problem.from_arrays(*arrays),
        impactset.Problem.from_arrays(*arrays, restitution=0.0),
        impactset.Problem.from_arrays(*arrays, restitution=np.zeros(2)),
        impactset.Problem.from_arrays(*arrays, restitution=0.7).with_restitution(0),
    ]
    for p in variants:
        assert p.restitution.tolist() == [0.0, 0.0]
    for selection in RULES:
        runs = [impactset.sample(p, 512, seed=5, selection=selection, step_size=0.3, steps=10) for p in variants]
        for other in runs[1:]:
            same_samples(runs[0], other)
        assert not runs[0].energy_guard.any()
        assert runs[0].summary["energy_guards"] == 0


def test_with_restitution_keeps_the_rest_of_the_problem():
    block = impactset.Problem.scene("rocking-block")
    bouncing = block.with_restitution([0.5, 0.25])
    assert bouncing.restitution.tolist() == [0.5, 0.25]
    assert bouncing.restitution.flags.writeable is False
    assert block.restitution.tolist() == [0.0, 0.0]  # the original is unchanged
    for field in ("M", "v", "Jn", "Jt", "mu", "bilateral"):
        assert np.array_equal(getattr(bouncing, field), getattr(block, field)), field
    assert (bouncing.name, bouncing.names, bouncing.step_size, bouncing.steps, bouncing.samples) == (
        block.name,
        block.names,
        block.step_size,
        block.steps,
        block.samples,
    )
    assert repr(bouncing) == "Problem('rocking-block', n=3, m=2, planar, restitution=[0.5, 0.25])"
    assert repr(block.with_restitution(1)) == "Problem('rocking-block', n=3, m=2, planar, restitution=1.0)"
    assert repr(block) == "Problem('rocking-block', n=3, m=2, planar)"


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_no_sample_gains_energy_and_the_guard_is_counted(e):
    """With friction, two contacts and any e: E⁺ ≤ E⁻ on every sample; the
    per-sample guard flags add up to the summary's count."""
    p = impactset.Problem.scene("rocking-block").with_restitution(e)
    for selection in RULES:
        s = impactset.sample(p, 1024, seed=11, selection=selection)
        assert len(s) > 0
        E_minus = energy(p.M, p.v)
        assert np.all(energy(p.M, s.v_plus) <= E_minus * (1 + 1e-9))
        assert np.all(s.energy_ratio[s.accepted] <= 1 + 1e-9)
        assert s.energy_guard.dtype == np.bool_ and s.energy_guard.shape == s.accepted.shape
        assert int(s.energy_guard.sum()) == s.summary["energy_guards"]


def test_all_stays_exhaustive_while_frictional_contacts_expand():
    """Under ``all``, a step in which a frictional contact expands is
    searched in full (its friction as a twin contact, docs/model.md §5b):
    the bouncing rocking block and the box-wall with e = 0.5 have no
    fallback step. The block's steps have one solution each, so ``all``
    and ``random-lemke`` give the same outcomes to round-off."""
    for scene in ["rocking-block-bouncing", "box-wall"]:
        p = impactset.Problem.scene(scene)
        if not p.restitution.any():
            p = p.with_restitution(0.5)
        s = impactset.sample(p, 512, seed=3, selection="all")
        assert s.summary["fallback_steps"] == 0, scene
    block = impactset.Problem.scene("rocking-block-bouncing")
    s = impactset.sample(block, 512, seed=3, selection="all")
    r = impactset.sample(block, 512, seed=3, selection="random-lemke")
    np.testing.assert_allclose(s.v_plus, r.v_plus, rtol=0, atol=1e-12)


def test_frictionless_elastic_contacts_keep_the_energy():
    """The rocking block without friction and e = 1 at both corners: every
    sample keeps E⁻ to round-off, and the corners separate (v_n⁺ ≥ 0)."""
    block = impactset.Problem.scene("rocking-block")
    p = impactset.Problem.from_arrays(block.M, block.v, block.Jn, block.Jt, [0.0, 0.0], restitution=1)
    s = impactset.sample(p, 1024, seed=2, step_size=0.3, steps=40)
    assert len(s) > 0
    np.testing.assert_allclose(energy(p.M, s.v_plus), energy(p.M, p.v), rtol=1e-9)
    assert np.all(s.v_plus @ p.Jn.T >= -1e-9)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.5, "restitution: 1.5 is not a coefficient of restitution (0 ≤ e ≤ 1"),
        (-0.25, "restitution: -0.25 is not a coefficient of restitution"),
        ([0.2, 1.5], "restitution[1]: 1.5 is not a coefficient of restitution"),
        (np.array([np.nan, 0.2]), "restitution[0]: NaN is not a coefficient of restitution"),
        ([np.inf, 0.2], "restitution[0]: inf is not a coefficient of restitution"),
        ([0.1, 0.2, 0.3], "restitution: expected a number or shape (2,) (one per contact), got shape (3,)"),
        ([[0.1, 0.2]], "restitution: expected a number or shape (2,) (one per contact), got shape (1, 2)"),
    ],
)
def test_a_bad_coefficient_raises_value_error_naming_the_argument(value, message):
    block = impactset.Problem.scene("rocking-block")
    with pytest.raises(ValueError) as raised:
        impactset.Problem.from_arrays(block.M, block.v, block.Jn, block.Jt, block.mu, restitution=value)
    assert str(raised.value).startswith(message), str(raised.value)
    # with_restitution says the same of its argument e.
    with pytest.raises(ValueError) as raised:
        block.with_restitution(value)
    assert str(raised.value).startswith("e" + message[len("restitution") :]), str(raised.value)


def test_a_coefficient_that_is_not_a_number_raises_type_error():
    block = impactset.Problem.scene("rocking-block")
    with pytest.raises(TypeError, match=r"^restitution: expected an array of real numbers"):
        impactset.Problem.from_arrays(block.M, block.v, block.Jn, block.Jt, block.mu, restitution="0.5")
    with pytest.raises(TypeError, match=r"^e: expected an array of real numbers"):
        block.with_restitution(None)


def test_problem_files_pickles_and_copies_carry_restitution(tmp_path):
    p = impactset.Problem.scene("compass-gait").with_restitution([0.2, 0.45])
    copies = [pickle.loads(pickle.dumps(p)), copy.deepcopy(p)]
    for suffix in ("json", "toml"):
        path = tmp_path / f"gait.{suffix}"
        p.save(path)
        copies.append(impactset.Problem.load(path))
    assert [c["restitution"] for c in p.to_dict()["contacts"]] == [0.2, 0.45]
    s = impactset.sample(p, 256, seed=4)
    for q in copies:
        assert q.restitution.tolist() == [0.2, 0.45]
        assert repr(q) == repr(p)
        same_samples(impactset.sample(q, 256, seed=4), s)
    t = pickle.loads(pickle.dumps(s))
    same_samples(t, s)
    assert t.energy_guard.flags.writeable is False
    assert t.summary["energy_guards"] == s.summary["energy_guards"]


def test_a_problem_file_with_a_bad_coefficient_names_the_field(tmp_path):
    path = tmp_path / "ball.json"
    p = impactset.Problem.from_arrays(np.eye(2), [0.0, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.0], restitution=0.5)
    p.save(path)
    path.write_text(path.read_text().replace('"restitution": 0.5', '"restitution": 2.0'))
    with pytest.raises(ValueError, match=r"restitution"):
        impactset.Problem.load(path)


def test_a_batch_of_bouncing_balls_rebounds_at_e_times_each_landing_speed():
    """impactset.reach over landing velocities of a frictionless ball with
    e = 0.5: each state's normal velocity after is 0.5 times its landing
    speed, every sample is labelled 'rebounds', and the tangential velocity
    is untouched."""
    ball = impactset.Problem.from_arrays(
        np.eye(2), [0.0, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.0], restitution=0.5, name="ball"
    )
    landing = np.array([[0.2, -1.0], [0.0, -2.0], [-0.7, -0.25]])
    t = impactset.reach(ball, 64, velocities=landing).table
    np.testing.assert_allclose(t["A_normal_min"], -0.5 * landing[:, 1], rtol=1e-12)
    np.testing.assert_allclose(t["A_normal_max"], -0.5 * landing[:, 1], rtol=1e-12)
    np.testing.assert_allclose(t["A_tangent_max"], landing[:, 0], rtol=0, atol=1e-12)
    assert np.all(t["A_rebounds"] == 1.0) and np.all(t["A_separates"] == 0.0)


# The robot importers, on the models their own tests use.

BALL = """<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1" friction=".5"/>
  <body pos="0 0 .1"><freejoint/><geom name="ball" type="sphere" size=".1" friction=".3"/></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("e", [0.0, 0.3, 1.0])
def test_mujoco_ball_dropped_straight_down_bounces_at_e(e):
    """A frictional ball falling straight onto MuJoCo's floor: no tangential
    velocity, no moment about the contact point, so it leaves at e."""
    mujoco = pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    model = mujoco.MjModel.from_xml_string(BALL)
    data = mujoco.MjData(model)
    data.qvel[2] = -1.0
    p = imj.problem(model, data, restitution=e)
    assert p.restitution.tolist() == [e] and p.mu.tolist() == [0.5]
    s = impactset.sample(p, 128, seed=1)
    assert len(s) == 128
    expected = np.zeros(6)
    expected[2] = e
    np.testing.assert_allclose(s.v_plus, np.broadcast_to(expected, s.v_plus.shape), rtol=0, atol=1e-9)


def test_mujoco_importer_and_command_line_take_restitution(tmp_path):
    pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    robot = pytest.importorskip("test_mujoco")
    model, data = robot.landing("walker", velocity=(0.3, 0.0, -1.0))
    p = imj.problem(model, data, restitution=0.5)
    assert p.m >= 1 and p.restitution.tolist() == [0.5] * p.m
    per_contact = np.linspace(0.1, 0.9, p.m)
    assert imj.problem(model, data, restitution=per_contact).restitution.tolist() == per_contact.tolist()
    assert imj.problem(model, data).restitution.tolist() == [0.0] * p.m
    with pytest.raises(ValueError, match=r"^restitution: expected a number or shape"):
        imj.problem(model, data, restitution=[0.5] * (p.m + 1))
    with pytest.raises(ValueError, match=r"^restitution: 1.2 is not a coefficient of restitution"):
        imj.problem(model, data, restitution=1.2)
    s = impactset.sample(p, 256, seed=7)
    assert len(s) > 0
    assert np.all(energy(p.M, s.v_plus) <= energy(p.M, p.v) * (1 + 1e-9))
    # python -m impactset.mujoco --restitution writes it into the file.
    xml = tmp_path / "ball.xml"
    xml.write_text(BALL)
    out = tmp_path / "ball.json"
    assert _mujoco_cli.main([str(xml), "--out", str(out), "--qvel", "0,0,-1,0,0,0", "--restitution", "0.4"]) == 0
    assert impactset.Problem.load(out).restitution.tolist() == [0.4]
    assert _mujoco_cli.main([str(xml), "--out", str(out), "--restitution", "1.4"]) == 2


DROP = """<mujoco><option timestep="0.001"/><worldbody>
  <geom name="floor" type="plane" size="1 1 .1" friction=".5"/>
  <body pos="0 0 .3"><freejoint/><geom name="ball" type="sphere" size=".05" mass="1"/></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("e", [0.0, 0.5])
def test_the_impact_sampler_bounces_a_dropped_ball_at_e(e):
    """A ball falling straight onto MuJoCo's floor, stepped by ImpactSampler
    with restitution e: its first impact leaves it at e times its landing
    speed (no tangential motion, so friction plays no part), keeping e² of
    its kinetic energy."""
    mujoco = pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    model = mujoco.MjModel.from_xml_string(DROP)
    data = mujoco.MjData(model)
    sampler = imj.ImpactSampler(model, restitution=e)
    while sampler.impacts == 0 and data.time < 1.0:
        sampler.step(model, data)
    assert sampler.impacts == 1 and sampler.unresolved == 0
    first = sampler.history[0]
    assert first.v_minus[2] < -2.0  # fallen about 0.25 m
    assert first.v_plus[2] == pytest.approx(-e * first.v_minus[2], rel=1e-9, abs=1e-9)
    assert first.energy_after == pytest.approx(e * e * first.energy_before, rel=1e-9, abs=1e-12)
    with pytest.raises(ValueError, match=r"^restitution: 1.5 is not a coefficient of restitution"):
        imj.ImpactSampler(model, restitution=1.5)
    with pytest.raises(TypeError, match=r"^restitution: expected one number"):
        imj.ImpactSampler(model, restitution=[0.5])


def test_pinocchio_importer_takes_restitution_and_elastic_feet_keep_the_energy():
    """go1 landing flat on four frictionless feet with e = 1: every sample
    keeps the kinetic energy; with friction and e = 0.5 none gains any."""
    pytest.importorskip("pinocchio")
    ipin = pytest.importorskip("impactset.pinocchio")
    robot = pytest.importorskip("test_pinocchio")
    model, data, q, v, contacts = robot.landing("go1", velocity=(0.0, 0.0, -1.0), mu=0.0)
    elastic = ipin.problem(model, data, q, v, contacts, restitution=1.0)
    assert elastic.restitution.tolist() == [1.0] * 4
    s = impactset.sample(elastic, 256, seed=9)
    assert len(s) > 0
    np.testing.assert_allclose(energy(elastic.M, s.v_plus), energy(elastic.M, elastic.v), rtol=1e-8)
    model, data, q, v, contacts = robot.landing("go1", mu=0.8)
    e = [0.5, 0.4, 0.3, 0.2]
    bouncing = ipin.problem(model, data, q, v, contacts, restitution=e)
    assert bouncing.restitution.tolist() == e
    s = impactset.sample(bouncing, 256, seed=9)
    assert len(s) > 0
    assert np.all(energy(bouncing.M, s.v_plus) <= energy(bouncing.M, bouncing.v) * (1 + 1e-9))
    with pytest.raises(ValueError, match=r"^restitution\[2\]: -0.3 is not a coefficient of restitution"):
        ipin.problem(model, data, q, v, contacts, restitution=[0.5, 0.4, -0.3, 0.2])


def test_reach_with_restitution_does_not_depend_on_threads_and_each_state_is_its_sample():
    """A batch of bouncing states of one configuration: the table and sets
    are the same on one thread and on two (a worker's workspace serves
    several states; each state's ``E⁻`` and scale are its own), and each
    state's set is ``sample`` of that state at its state seed."""
    p = impactset.Problem.scene("rocking-block-bouncing")
    V = np.array([[-0.2 + 0.1 * k, -0.22 - 0.11 * k, 0.0] for k in range(5)])
    runs = [
        impactset.reach(p, 32, velocities=V, seed=4, selection="random-lemke", threads=t, keep_sets=True)
        for t in (1, 2)
    ]
    one, two = runs
    for name in one.columns:
        a, b = np.asarray(one[name]), np.asarray(two[name])
        if a.dtype == object:
            assert [repr(x) for x in a] == [repr(x) for x in b], name
        else:
            assert a.tobytes() == b.tobytes(), name
    assert one.sets is not None and two.sets is not None
    for k, v in enumerate(V):
        state = impactset.Problem.from_arrays(
            p.M, v, p.Jn, p.Jt, p.mu, p.names, restitution=p.restitution, step_size=p.step_size, steps=p.steps
        )
        s = impactset.sample(state, 32, seed=int(one["seed"][k]), selection="random-lemke")
        assert s.v_plus.tobytes() == one.sets[k].tobytes() == two.sets[k].tobytes(), k
