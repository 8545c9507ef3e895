"""impactset.pinocchio on example-robot-data's URDF robots (go1, solo12):
the arrays against finite differences of Pinocchio's own kinematics and
kinetic energy, the sampled set against the model's laws."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import impactset
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
ipin = pytest.importorskip("impactset.pinocchio")

ROBOTS = {
    "go1": (("go1_description", "urdf", "go1.urdf"), ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]),
    "solo12": (("solo_description", "robots", "solo12.urdf"), ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]),
}


def _robots_dir() -> Path:
    try:
        dist = distribution("example-robot-data")
    except PackageNotFoundError:
        pytest.skip("example-robot-data not installed")
    path = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")))
    if not path.is_dir():
        pytest.skip("example-robot-data's robots not found")
    return path


def landing(name: str, velocity=(0.3, 0.1, -1.0), mu=0.8):
    """The robot in its neutral pose, the base lowered until the lowest foot
    frame is at height 0, the base falling with ``velocity`` (world frame);
    a contact on every foot with the floor's normal ``e_z``."""
    parts, feet = ROBOTS[name]
    model = pin.buildModelFromUrdf(str(_robots_dir().joinpath(*parts)), pin.JointModelFreeFlyer())
    data = model.createData()
    q = pin.neutral(model)
    pin.framesForwardKinematics(model, data, q)
    q[2] -= min(data.oMf[model.getFrameId(f)].translation[2] for f in feet)
    v = np.zeros(model.nv)
    R = pin.Quaternion(q[3:7]).toRotationMatrix()
    v[:3] = R.T @ np.asarray(velocity)  # Pinocchio's free flyer: base-frame linear velocity
    contacts = [(f, [0.0, 0.0, 1.0], mu) for f in feet]
    return model, data, q, v, contacts


def frame_velocity_fd(model, q, v, frames, eps=1e-6):
    """World velocities of the frames' origins by central differences of
    their placements along pin.integrate(q, ±ε v)."""
    data = model.createData()

    def positions(sign):
        pin.framesForwardKinematics(model, data, pin.integrate(model, q, sign * eps * v))
        return np.array([data.oMf[model.getFrameId(f)].translation for f in frames])

    return (positions(1.0) - positions(-1.0)) / (2 * eps)


@pytest.mark.parametrize("name", list(ROBOTS))
def test_rows_and_mass_matrix_agree_with_finite_differences(name):
    model, data, q, _, contacts = landing(name)
    rows = ipin.contact_rows(model, data, q, np.zeros(model.nv), contacts)
    frames = [c[0] for c in contacts]
    rng = np.random.default_rng(1)
    for _ in range(3):
        w = rng.normal(size=model.nv)
        fd = frame_velocity_fd(model, q, w, frames)
        scale = np.abs(fd).max()
        np.testing.assert_allclose(rows.Jn @ w, fd[:, 2], atol=1e-6 * scale)
        t = (rows.Jt @ w).reshape(-1, 2)
        np.testing.assert_allclose(t, fd[:, :2], atol=1e-6 * scale)  # t₁, t₂ = e_x, e_y for n = e_z
        # M: ½ wᵀMw is Pinocchio's kinetic energy, and M w its RNEA
        # (without gravity and velocity terms: rnea(q, 0, w) − rnea(q, 0, 0)).
        E = pin.computeKineticEnergy(model, model.createData(), q, w)
        assert abs(0.5 * w @ rows.M @ w - E) <= 1e-10 * E
        d2 = model.createData()
        zero = np.zeros(model.nv)
        Mw = pin.rnea(model, d2, q, zero, w) - pin.rnea(model, d2, q, zero, zero)
        np.testing.assert_allclose(rows.M @ w, Mw, atol=1e-10 * np.abs(Mw).max())
    np.testing.assert_array_equal(rows.M, rows.M.T)


@pytest.mark.parametrize("name", list(ROBOTS))
def test_samples_obey_the_impact_laws(name):
    model, data, q, v, contacts = landing(name)
    p = ipin.problem(model, data, q, v, contacts)
    assert (p.n, p.m, p.dimension) == (model.nv, 4, "spatial")
    s = impactset.sample(p, 128, seed=3)
    assert len(s) >= 120
    E0 = p.v @ p.M @ p.v
    assert np.all(np.einsum("ij,jk,ik->i", s.v_plus, p.M, s.v_plus) <= E0 * (1 + 1e-9))
    # Not approaching afterwards, by Pinocchio's own kinematics (finite
    # differences of the foot frames' heights along v⁺).
    scale = np.abs(p.Jn @ p.v).max()
    for vp in s.v_plus[:8]:
        fd = frame_velocity_fd(model, q, vp, [c[0] for c in contacts])
        assert np.all(fd[:, 2] >= -1e-5 * scale)
    # μ = 0.8 lets the feet stick: the all-stick outcome is in the set.
    assert np.min(np.abs(s.v_plus @ np.vstack([p.Jn, p.Jt.reshape(-1, p.n)]).T).max(axis=1)) < 1e-6 * scale


def test_contact_formats_and_points():
    model, data, q, v, _ = landing("go1")
    a = ipin.problem(model, data, q, v, [("FL_foot", [0, 0, 1], 0.5)])
    b = ipin.problem(model, data, q, v, [{"frame": "FL_foot", "normal": [0, 0, 2.0], "mu": 0.5}])
    c = ipin.problem(model, data, q, v, [ipin.Contact("FL_foot", (0, 0, 1), 0.5)])
    for other in (b, c):
        np.testing.assert_array_equal(a.Jn, other.Jn)
        np.testing.assert_array_equal(a.Jt, other.Jt)
    # A point 2 cm below the foot frame, attached to it: its velocity by
    # finite differences of the attached point.
    fid = model.getFrameId("FL_foot")
    pin.framesForwardKinematics(model, data, q)
    origin = data.oMf[fid].translation.copy()
    point = origin - [0, 0, 0.02]
    local = data.oMf[fid].rotation.T @ (point - origin)
    rows = ipin.contact_rows(model, data, q, v, [("FL_foot", [0, 0, 1], 0.5, point)])
    w = np.random.default_rng(2).normal(size=model.nv)
    d2 = model.createData()

    def at(sign):
        pin.framesForwardKinematics(model, d2, pin.integrate(model, q, sign * 1e-6 * w))
        return d2.oMf[fid].translation + d2.oMf[fid].rotation @ local

    fd = (at(1.0) - at(-1.0)) / 2e-6
    np.testing.assert_allclose(np.r_[rows.Jn @ w, rows.Jt @ w], fd[[2, 0, 1]], atol=1e-6 * np.abs(fd).max())


def test_rows_carry_each_contacts_point_and_frame():
    # The rows type MuJoCo's importer returns too: each contact's world point and
    # frame (normal, tangents), the rows being the point's velocity in that
    # frame; no equality constraints.
    model, data, q, v, _ = landing("go1")
    pin.framesForwardKinematics(model, data, q)
    fid = model.getFrameId("FL_foot")
    origin = data.oMf[fid].translation.copy()
    point = origin - [0.0, 0.0, 0.02]
    rows = ipin.contact_rows(model, data, q, v, [("FL_foot", [0, 1, 1], 0.5, point), ("FR_foot", [0, 0, 1], 0.5)])
    np.testing.assert_array_equal(rows.pos[0], point)
    np.testing.assert_array_equal(rows.pos[1], data.oMf[model.getFrameId("FR_foot")].translation)
    np.testing.assert_allclose(rows.frame[0, 0], np.array([0, 1, 1]) / np.sqrt(2), rtol=1e-15)
    for k in range(2):
        np.testing.assert_allclose(rows.frame[k] @ rows.frame[k].T, np.eye(3), atol=1e-15)
        assert np.linalg.det(rows.frame[k]) > 0  # (normal, t1, t2) right-handed
        np.testing.assert_array_equal(rows.frame[k, 1:], ipin.tangent_basis(rows.frame[k, 0]))
    assert rows.J_eq.shape == (0, model.nv) and rows.geom is None and rows.dist is None
    assert rows.friction_rows == 2 and isinstance(rows, impactset._contact_rows.ContactRows)


def test_tangent_basis_is_orthonormal_and_right_handed():
    for n in ([0, 0, 1], [1, 0, 0], [0.3, -0.4, 0.866]):
        n = np.asarray(n) / np.linalg.norm(n)
        t1, t2 = ipin.tangent_basis(n)
        B = np.array([t1, t2, n])
        np.testing.assert_allclose(B @ B.T, np.eye(3), atol=1e-15)
        assert np.linalg.det(B) > 0


def test_errors_name_the_argument():
    model, data, q, v, contacts = landing("go1")
    with pytest.raises(ValueError, match="no frame named 'toe'"):
        ipin.problem(model, data, q, v, [("toe", [0, 0, 1], 0.5)])
    with pytest.raises(ValueError, match=r"contacts\[0\].normal"):
        ipin.problem(model, data, q, v, [("FL_foot", [0, 0, 0], 0.5)])
    with pytest.raises(ValueError, match=r"contacts\[0\].mu"):
        ipin.problem(model, data, q, v, [("FL_foot", [0, 0, 1], -0.5)])
    with pytest.raises(ValueError, match="contacts: no contacts"):
        ipin.problem(model, data, q, v, [])
    bad = v.copy()
    bad[4] = np.nan
    with pytest.raises(ValueError, match="v: not finite at index 4"):
        ipin.problem(model, data, q, bad, contacts)
    with pytest.raises(ValueError, match="q: expected 19 coordinates"):
        ipin.problem(model, data, q[:7], v, contacts)
    with pytest.raises(ValueError, match="does not move along its normal"):
        ipin.problem(model, data, q, v, [("universe", [0, 0, 1], 0.5)])


def test_ground_contacts_from_the_collision_geometry():
    # go1's collision feet are spheres: lowered until the sphere bottoms touch
    # z = 0, the contacts found from the geometry are the four sphere
    # bottoms, and their rows equal the explicit (frame, normal, mu, point).
    model, data, q, v, contacts = landing("go1")
    urdf = _robots_dir() / "go1_description" / "urdf" / "go1.urdf"
    geometry = pin.buildGeomFromUrdf(
        model, str(urdf), pin.GeometryType.COLLISION, package_dirs=[str(_robots_dir().parent)]
    )
    radius = {g.name: g.geometry.radius for g in geometry.geometryObjects if g.name.endswith("_foot_0")}
    assert len(radius) == 4
    q = q.copy()
    q[2] += next(iter(radius.values()))
    found = ipin.ground_contacts(model, data, geometry, q, mu=0.8)
    assert sorted(c.name for c in found) == sorted(radius)
    auto = ipin.problem(model, data, q, v, geometry_model=geometry, mu=0.8)
    pin.framesForwardKinematics(model, data, q)
    explicit = []
    for c in found:
        foot = c.name.removesuffix("_0")
        centre = data.oMf[model.getFrameId(foot)].translation
        explicit.append((foot, [0, 0, 1], 0.8, centre - [0, 0, radius[c.name]]))
    manual = ipin.problem(model, data, q, v, explicit)
    np.testing.assert_allclose(auto.Jn, manual.Jn, atol=1e-12)
    np.testing.assert_allclose(auto.Jt, manual.Jt, atol=1e-12)
    with pytest.raises(ValueError, match="needs geometry_model"):
        ipin.problem(model, data, q, v)
    q[2] += 0.5
    with pytest.raises(ValueError, match="no geometry within distance"):
        ipin.problem(model, data, q, v, geometry_model=geometry, mu=0.8)
