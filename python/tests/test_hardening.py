"""The Python package under hostile input: each
test is named after the defect it catches; each ends in a correct result or
a clear error naming the argument, with nothing partial left behind."""

from __future__ import annotations

import copy
import os
import pickle
import re
import stat
import sys
import threading
import warnings
from pathlib import Path

import impactset
import numpy as np
import pytest


def point(**kwargs: object) -> impactset.Problem:
    """A unit point mass falling at 1 onto a floor with friction 0.5."""
    return impactset.Problem.from_arrays(np.eye(2), [0.3, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.5], **kwargs)


def pair(**kwargs: object) -> impactset.Problem:
    """A rocking-block-like problem with two contacts."""
    M = np.diag([1.0, 1.0, 0.2])
    return impactset.Problem.from_arrays(
        M, [0.5, -1.0, 0.3], [[0, 1, 0.3], [0, 1, -0.4]], [[1, 0, 0.2], [1, 0, -0.1]], [0.6, 0.6], **kwargs
    )


# -- item 6: n beyond what can be held ---------------------------------------


@pytest.mark.parametrize("n", [2**40, 2**62, 2**64 - 1])
def test_sample_n_beyond_memory_is_a_value_error_not_an_abort(n: int) -> None:
    p = impactset.Problem.scene("compass-gait")
    with pytest.raises(ValueError, match=r"^n: \d+ samples would need [\d.]+ [kMGTPEZY]?B of memory") as e:
        impactset.sample(p, n)
    assert "more than this machine's" in str(e.value)


def test_sample_n_past_2_pow_64_names_both_bounds() -> None:
    p = impactset.Problem.scene("compass-gait")
    with pytest.raises(ValueError, match=re.escape(f"n: expected an integer in [1, 2**64), got {10**21}")):
        impactset.sample(p, 10**21)


def test_a_problem_whose_own_sample_count_cannot_be_held_is_refused() -> None:
    p = point(samples=2**50)
    with pytest.raises(ValueError, match=r"^n \(the problem's samples\): \d+ samples would need"):
        impactset.sample(p)


# -- item 12: sampling defaults at construction -------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"steps": 0}, "steps: expected an integer in [1, 1000000], got 0"),
        ({"steps": 10**7}, "steps: expected an integer in [1, 1000000], got 10000000"),
        ({"step_size": 1e300}, "step_size: 1e300 is outside [1e-150, 1e150]; rescale the units"),
        ({"step_size": 1e-300}, "step_size: 1e-300 is outside [1e-150, 1e150]; rescale the units"),
        ({"samples": 0}, "samples: expected an integer in [1, 2**64), got 0"),
    ],
)
def test_from_arrays_refuses_sampling_defaults_a_problem_file_refuses(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        point(**kwargs)


def test_problems_at_the_bounds_of_the_defaults_save_pickle_and_load(tmp_path: Path) -> None:
    for kwargs in [{"steps": 1}, {"steps": 10**6}, {"step_size": 1e150}, {"step_size": 1e-150}]:
        p = point(**kwargs)
        path = tmp_path / "p.json"
        p.save(path)
        for q in [impactset.Problem.load(path), pickle.loads(pickle.dumps(p)), copy.deepcopy(p)]:
            assert (q.steps, q.step_size) == (p.steps, p.step_size)


def test_importers_refuse_the_same_defaults() -> None:
    mujoco = pytest.importorskip("mujoco")
    import impactset.mujoco

    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1"/>'
        '<body pos="0 0 .1"><freejoint/><geom name="ball" type="sphere" size=".1"/></body>'
        "</worldbody></mujoco>"
    )
    data = mujoco.MjData(model)
    data.qvel[2] = -1.0
    with pytest.raises(ValueError, match=re.escape("steps: expected an integer in [1, 1000000], got 0")):
        impactset.mujoco.problem(model, data, steps=0)
    with pytest.raises(ValueError, match=re.escape("step_size: 1e300 is outside")):
        impactset.mujoco.problem(model, data, step_size=1e300)


# -- item 13: progress, low acceptance, the last index ------------------------


def test_a_progress_callable_is_called_with_done_and_total() -> None:
    calls: list[tuple[int, int]] = []
    impactset.sample(point(), 3000, progress=lambda done, total: calls.append((done, total)))
    assert calls, "the callable was never called"
    assert calls[-1] == (3000, 3000)
    assert all(total == 3000 for _, total in calls)
    assert [d for d, _ in calls] == sorted({d for d, _ in calls})  # increasing


def test_progress_of_another_kind_is_a_type_error_naming_it() -> None:
    with pytest.raises(
        TypeError, match=r"^progress: expected True, False or a callable progress\(done, total\), got str"
    ):
        impactset.sample(point(), 10, progress="yes")


def test_low_acceptance_warns_in_python_words() -> None:
    # K = 1 step of a tiny h cannot end the impact: nothing is accepted.
    with pytest.warns(UserWarning, match=r"only 0 of 200 samples \(0\.0%\) were accepted") as caught:
        s = impactset.sample(point(), 200, steps=1, step_size=1e-3)
    assert s.summary["accepted"] == 0
    message = str(caught[0].message)
    assert "raise steps, or step_size" in message and "--" not in message
    assert caught[0].filename == __file__  # points at the caller


def test_a_built_in_scene_with_its_own_parameters_does_not_warn() -> None:
    p = impactset.Problem.scene("compass-gait")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = impactset.sample(p, 100)
    assert s.summary["accepted"] < 99  # below 99%: the scene's documented acceptance
    with pytest.warns(UserWarning, match="were accepted"):
        impactset.sample(p, 100, steps=1)


def test_first_index_may_end_exactly_at_2_pow_64() -> None:
    p = point()
    s = impactset.sample(p, 5, first_index=2**64 - 5)
    assert s.summary["first_index"] == 2**64 - 5
    assert s.indices.tolist() == list(range(2**64 - 5, 2**64))
    # The same samples as indices 2**64 - 5 … of a run that starts earlier.
    t = impactset.sample(p, 7, first_index=2**64 - 7)
    assert np.array_equal(t.v_plus[t.indices >= 2**64 - 5], s.v_plus)
    with pytest.raises(ValueError, match="first_index"):
        impactset.sample(p, 5, first_index=2**64 - 4)


# -- item 14: messages ---------------------------------------------------------


def test_bool_arguments_name_themselves(tmp_path: Path) -> None:
    s = impactset.sample(point(), 16)
    with pytest.raises(TypeError, match=r"^baselines: expected True or False, got str"):
        s.plot(tmp_path / "a.svg", baselines="no")
    assert not list(tmp_path.iterdir())
    p = impactset.Problem.scene("compass-gait")
    with pytest.raises(TypeError, match=r"^baselines: expected True or False, got str"):
        impactset.reach(p, 8, baselines="no")
    with pytest.raises(TypeError, match=r"^keep_sets: expected True or False, got int"):
        impactset.reach(p, 8, keep_sets=1)
    assert len(impactset.reach(p, 8, baselines=np.bool_(False))) == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"M": np.diag([1e200, 1.0, 1.0])}, "M[0, 0]: entry 1e200 exceeds 1e150"),
        ({"v": [0.5, -1e200, 0.3]}, "v[1]: entry -1e200 exceeds 1e150"),
        ({"Jn": [[0, 1e200, 0.3], [0, 1, -0.4]]}, "Jn[0, 1]: entry 1e200 exceeds 1e150"),
        ({"Jt": [[1, 0, 0.2], [1, 0, 1e200]]}, "Jt[1, 2]: entry 1e200 exceeds 1e150"),
        ({"mu": [0.6, 1e200]}, "mu[1]: μ 1e200 exceeds 1e150"),
        ({"Jn": [[0, 1e-100, 0], [0, 1, -0.4]]}, "Jn[0]: this contact's Jn M⁻¹ Jnᵀ = 1e-200 is outside"),
    ],
)
def test_errors_name_the_python_arguments_not_file_fields(change: dict, message: str) -> None:
    args = {
        "M": np.diag([1.0, 1.0, 0.2]),
        "v": [0.5, -1.0, 0.3],
        "Jn": [[0, 1, 0.3], [0, 1, -0.4]],
        "Jt": [[1, 0, 0.2], [1, 0, -0.1]],
        "mu": [0.6, 0.6],
    }
    args.update(change)
    with pytest.raises(ValueError, match="^" + re.escape(message)) as e:
        impactset.Problem.from_arrays(**args)
    assert not re.search(r"mass_matrix|velocity|contacts\[|\.normal|friction\b", str(e.value))


def test_a_contact_name_given_twice_is_reported_as_such() -> None:
    with pytest.raises(ValueError, match=r"^names: 'A' is given twice \(contacts 0 and 1\)"):
        pair(names=["A", "A"])
    assert pair(names=["A", "B"]).names == ["A", "B"]


def test_sample_set_pickles_and_copies_read_only() -> None:
    s = impactset.sample(pair(name="block"), 300, seed=5, selection="random-lemke")
    for t in [pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)]:
        assert repr(t) == repr(s) and len(t) == len(s)
        for name in ["v_plus", "accepted", "indices", "steps", "energy_ratio", "residual", "modes"]:
            a, b = getattr(s, name), getattr(t, name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name
            assert not b.flags.writeable, name
        assert t.mode_labels == s.mode_labels and t.mode_table == s.mode_table
        assert t.summary == s.summary
        assert t.problem.to_dict() == s.problem.to_dict()


def test_an_unpickled_sample_set_still_plots(tmp_path: Path) -> None:
    s = pickle.loads(pickle.dumps(impactset.sample(impactset.Problem.scene("rocking-block"), 128)))
    s.plot(tmp_path / "set.svg", trajectories=2, baselines=False)
    assert (tmp_path / "set.svg").read_text().startswith("<svg")


def test_an_unpickled_reach_stays_read_only() -> None:
    p = impactset.Problem.scene("compass-gait")
    r = impactset.reach(p, 16, velocities=np.array([p.v, 0.9 * p.v]), keep_sets=True)
    for t in [pickle.loads(pickle.dumps(r)), copy.deepcopy(r)]:
        assert t.columns == r.columns and len(t) == len(r)
        for name, column in t.table.items():
            assert not column.flags.writeable, name
            with pytest.raises(ValueError):
                column[...] = column
        for row in t["simultaneous"]:
            assert not row.flags.writeable
        assert t.sets is not None and all(not s.flags.writeable for s in t.sets)


# -- item 5 (part) and item 14: Pinocchio ----------------------------------------


@pytest.fixture
def cube():
    pin = pytest.importorskip("pinocchio")
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    model.appendBodyToJoint(joint, pin.Inertia.FromBox(1.0, 0.1, 0.1, 0.1), pin.SE3.Identity())
    corner = pin.SE3(np.eye(3), np.array([0.05, 0.05, -0.05]))
    model.addFrame(pin.Frame("corner", joint, 0, corner, pin.FrameType.OP_FRAME))
    q = pin.neutral(model)
    # A turned cube (a quaternion away from the identity), falling and spinning.
    q[3:7] = np.array([0.1, -0.2, 0.3, 0.9]) / np.linalg.norm([0.1, -0.2, 0.3, 0.9])
    v = np.array([0.2, 0.0, -1.0, 0.3, -0.1, 0.2])
    return pin, model, q, v


def test_a_free_flyer_quaternion_of_norm_2_is_refused(cube) -> None:
    import impactset.pinocchio as ipin

    pin, model, q, v = cube
    good = ipin.problem(model, model.createData(), q, v, [("corner", [0, 0, 1], 0.6)])
    doubled = q.copy()
    doubled[3:7] *= 2
    with pytest.raises(
        ValueError, match=r"^q: joint 'base' \(JointModelFreeFlyer, q\[0:7\]\) has a quaternion .* of norm 2,"
    ):
        ipin.problem(model, model.createData(), doubled, v, [("corner", [0, 0, 1], 0.6)])
    zero = q.copy()
    zero[3:7] = 0
    with pytest.raises(ValueError, match=r"of norm 0,"):
        ipin.problem(model, model.createData(), zero, v, [("corner", [0, 0, 1], 0.6)])
    # Within the documented tolerance: accepted, the rows as good as exact.
    near = q.copy()
    near[3:7] *= 1 + 0.5 * ipin.UNIT_TOLERANCE
    close = ipin.problem(model, model.createData(), near, v, [("corner", [0, 0, 1], 0.6)])
    assert np.allclose(close.Jn, good.Jn, rtol=0, atol=1e-5)
    # The refused q, normalized, gives the correct problem bit for bit.
    fixed = ipin.problem(model, model.createData(), pin.normalize(model, doubled), v, [("corner", [0, 0, 1], 0.6)])
    assert np.allclose(fixed.Jn, good.Jn, rtol=0, atol=1e-15) and np.allclose(fixed.M, good.M, rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    ("contact", "error", "message"),
    [
        (("corner", [0, 0, 1], "0.6"), TypeError, "contacts[0].mu: expected a number ≥ 0, got str"),
        (("corner", [0, 0, 1], True), TypeError, "contacts[0].mu: expected a number ≥ 0, got bool"),
        (("corner", [0, 0, 1], -0.1), ValueError, "contacts[0].mu: expected a finite number ≥ 0, got -0.1"),
        (("corner", [0, 0, 1], 0.6, [0.0, 0.0]), ValueError, "contacts[0].point: expected a finite 3-vector"),
        (("corner", [0, 0, 1], 0.6, [0.0, np.nan, 0.0]), ValueError, "contacts[0].point: expected a finite 3-vector"),
        (("corner", [0, 0, 1], 0.6, "abc"), ValueError, "contacts[0].point: expected a finite 3-vector"),
        (("corner", "up", 0.6), ValueError, "contacts[0].normal: expected a nonzero finite 3-vector"),
        ((1.5, [0, 0, 1], 0.6), TypeError, "contacts[0].frame: expected a frame name or index, got float"),
    ],
)
def test_pinocchio_contact_arguments_give_clear_errors(cube, contact, error, message) -> None:
    import impactset.pinocchio as ipin

    _, model, q, v = cube
    with pytest.raises(error, match="^" + re.escape(message)):
        ipin.problem(model, model.createData(), q, v, [contact])


def test_pinocchio_contacts_sharing_a_frame_get_unique_names(cube) -> None:
    import impactset.pinocchio as ipin

    _, model, q, v = cube
    contacts = [("corner", [0, 0, 1], 0.6, [0.0, 0.0, -0.05]), ("corner", [0, 0, 1], 0.6, [0.01, 0.0, -0.05])]
    p = ipin.problem(model, model.createData(), q, v, contacts)
    assert p.names == ["corner#1", "corner#2"]


# -- item 14: MuJoCo -----------------------------------------------------------------


@pytest.fixture
def ball():
    mujoco = pytest.importorskip("mujoco")
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1" friction=".5"/>'
        '<body name="ball" pos="0 0 .1"><freejoint/><geom name="ball" type="sphere" size=".1"/></body>'
        "</worldbody></mujoco>"
    )
    data = mujoco.MjData(model)
    data.qvel[:3] = [0.2, 0.0, -1.0]
    return model, data


def test_mujoco_names_say_body_not_bodie(ball) -> None:
    import impactset.mujoco

    model, data = ball
    with pytest.raises(ValueError, match=r"^bodies: no body named 'wheel' in the model"):
        impactset.mujoco.problem(model, data, bodies=["wheel"])
    with pytest.raises(ValueError, match=r"^geoms: no geom named 'wheel' in the model"):
        impactset.mujoco.problem(model, data, geoms=["wheel"])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_duration": float("inf")}, ValueError, "max_duration: expected a finite positive number, got inf"),
        ({"max_duration": 1e9}, ValueError, "max_duration: 1e+09 s is 1e+14 steps"),
        ({"timestep": float("nan")}, ValueError, "timestep: expected a finite positive number, got nan"),
        ({"damping": "5e4"}, TypeError, "damping: expected a finite positive number, got str"),
        ({"impedance": 1.5}, ValueError, "impedance: expected a number in (0, 1], got 1.5"),
    ],
)
def test_mujoco_outcome_parameters_are_checked(ball, kwargs, error, message) -> None:
    import impactset.mujoco

    model, data = ball
    with pytest.raises(error, match="^" + re.escape(message)):
        impactset.mujoco.outcome(model, data, **kwargs)


def test_mujoco_bool_arguments_name_themselves(ball) -> None:
    import impactset.mujoco

    model, data = ball
    with pytest.raises(TypeError, match=r"^equality: expected True or False, got str"):
        impactset.mujoco.problem(model, data, equality="no")
    with pytest.raises(TypeError, match=r"^planar: expected None, True or False, got str"):
        impactset.mujoco.problem(model, data, planar="yes")


# -- item 10 (Python part): writes through links and into special files ---------------


def test_save_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    p = point(name="through")
    p.save(link)
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert impactset.Problem.load(target).name == "through"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_save_through_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.toml"
    link.symlink_to(tmp_path / "sub" / "new.toml")
    point(name="new").save(link)
    assert link.is_symlink()
    assert impactset.Problem.load(tmp_path / "sub" / "new.toml").name == "new"


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_save_and_plot_to_dev_null_leave_it_a_device(tmp_path: Path) -> None:
    before = os.stat("/dev/null")
    point().save("/dev/null")
    # A figure's format comes from its extension: a link named .svg.
    link = tmp_path / "null.svg"
    link.symlink_to("/dev/null")
    impactset.sample(point(), 16).plot(link, trajectories=1)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert link.is_symlink()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_save_into_a_fifo_writes_into_it(tmp_path: Path) -> None:
    fifo = tmp_path / "problem.json"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    point(name="piped").save(fifo)
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b'"name": "piped"' in received[0]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["problem.json"]


def test_plot_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    link = tmp_path / "fig.svg"
    link.symlink_to("real.svg")
    impactset.sample(point(), 16).plot(link, trajectories=1)
    assert link.is_symlink() and (tmp_path / "real.svg").read_text().startswith("<svg")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["fig.svg", "real.svg"]


def test_saving_onto_a_directory_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="is a folder, not a file to write"):
        point().save(tmp_path)
    assert not list(tmp_path.iterdir())


def test_mujoco_command_line_writes_through_a_symlink(tmp_path: Path, ball) -> None:
    import impactset.mujoco

    model_path = tmp_path / "ball.xml"
    model_path.write_text(
        '<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1"/>'
        '<body pos="0 0 .1"><freejoint/><geom name="ball" type="sphere" size=".1"/></body>'
        "</worldbody></mujoco>"
    )
    link = tmp_path / "out.toml"
    link.symlink_to("real.toml")
    assert impactset._mujoco_cli.main([str(model_path), "--qvel", "0,0,-1,0,0,0", "--out", str(link)]) == 0
    assert link.is_symlink() and impactset.Problem.load(tmp_path / "real.toml").m == 1
    if sys.platform.startswith("linux"):
        assert impactset._mujoco_cli.main([str(model_path), "--qvel", "0,0,-1,0,0,0", "--out", "/dev/null"]) == 0
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# Batch runs (items 3, 4 and 12): the checks live in the core; these make
# sure the Python entry point reaches them.


@pytest.mark.parametrize("name", ["simultaneous", "energy_ratio"])
def test_reach_direction_names_that_collide_with_columns_are_refused(name: str) -> None:
    p = impactset.Problem.scene("rocking-block")
    with pytest.raises(ValueError, match=re.escape(name)):
        impactset.reach(p, 16, directions={name: np.array([1.0, 0.0, 0.0])})


_MODE_COLUMN = {"sticks": "sticks", "separates": "separates", "slides +t": "slides_pos", "slides −t": "slides_neg"}


def test_reach_labels_each_problems_columns_by_contact_name_not_position() -> None:
    # The compass gait, and the same gait with its contacts given as (B, A):
    # each row's own top mode must be backed by its own contacts' columns.
    p = impactset.Problem.scene("compass-gait")
    swapped = impactset.Problem.from_arrays(
        p.M, p.v, p.Jn[::-1], p.Jt[::-1], p.mu[::-1], names=p.names[::-1], step_size=p.step_size, steps=p.steps
    )
    r = impactset.reach([p, swapped], 2000, seed=4)
    for row in range(2):
        share = r["top_mode_share"][row]
        assert share > 0.3
        for part in r["top_mode"][row].split(", "):
            contact, mode = part.split(" ", 1)
            column = f"{contact}_{_MODE_COLUMN[mode]}"
            assert r[column][row] >= share - 1e-12, (row, r["top_mode"][row], column, r[column][row])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"threads": 5000}, "threads"),
        ({"steps": 0}, "steps"),
        ({"step_size": 1e-200}, "step_size"),
        ({"step_size": 1e200}, "step_size"),
    ],
)
def test_reach_refuses_the_options_sample_refuses(kwargs: dict, name: str) -> None:
    p = impactset.Problem.scene("rocking-block")
    with pytest.raises(ValueError, match=name):
        impactset.sample(p, 16, **kwargs)
    with pytest.raises(ValueError, match=name):
        impactset.reach(p, 16, **kwargs)
