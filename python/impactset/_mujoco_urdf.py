"""A legged robot's URDF in MuJoCo with a free base: :func:`load_urdf`, and
the robots that ship with the ``example-robot-data`` package
(:func:`example_robot_data`), found without Pinocchio. Re-exported by
:mod:`impactset.mujoco`; ``docs/robots.md`` documents them.

MuJoCo reads URDF, but a robot read as is cannot land: the URDF's root link
becomes a body welded to the world (no free joint), its ``package://``
meshes are looked for by file name in one folder, and there is no floor.
:func:`load_urdf` fixes each:

* meshes: every ``package://PKG/path`` is resolved against ``package_dirs``
  (folders that hold packages, as Pinocchio's ``package_dirs``) and written
  as an absolute path; visual elements are dropped (MuJoCo's collision uses
  the ``<collision>`` geometry only);
* the free base: the URDF's root link is the one top-level body; a free joint
  is added to it (at the top level, where MuJoCo accepts free joints; a
  ``world`` link with a fixed joint to the base is removed first, as it
  would weld the base to the world); ``fixed_base=True`` keeps the root
  link fixed at the origin instead (an arm on its mount);
* a link without ``<inertial>`` is massless, as in the URDF (MuJoCo would
  otherwise give it its geoms' mass); fixed joints are kept as bodies
  (``fusestatic`` off), so foot links such as
  a quadruped's ``FL_foot`` keep their names;
* a floor plane ``floor`` (friction ``friction``) and, with ``feet``, contact
  with the floor only at the named links' collision geoms (each named
  ``LINK`` or ``LINK/k``), every other collision geom switched off (a
  landing study's contacts are the feet's);
* with ``soles``, a flat rectangular sole (a thin box) on each named link
  instead of its collision geometry, so a flat foot touches the floor at
  its sole's four corners (a mesh foot's contacts are wherever its hull's
  vertices happen to lie);
* optional motors (one per hinge or slide joint, named after it, ``ctrlrange``
  the URDF's effort limit), rotor ``armature`` and a keyframe from an SRDF
  ``group_state`` (its ``root_joint`` is Pinocchio's ``x y z qx qy qz qw``,
  turned into MuJoCo's ``w x y z``).
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._mujoco_importer import import_mujoco

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

#: File types MuJoCo loads as meshes.
MESH_SUFFIXES = (".stl", ".obj", ".msh")


def example_robot_data(relative: str = "") -> Path:
    """The path of ``relative`` (e.g. ``"robots/a1_description/urdf/a1.urdf"``)
    inside the ``example-robot-data`` package's data folder (the folder its
    URDFs call ``package://example-robot-data``), found from the installed
    distribution's files: Pinocchio is not needed. ``ModuleNotFoundError``
    when the package is not installed, ``FileNotFoundError`` when the path is
    not in it."""
    try:
        dist = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        raise ModuleNotFoundError("example-robot-data is not installed: pip install example-robot-data") from None
    root = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data")))
    path = root / relative
    if not path.exists():
        raise FileNotFoundError(f"relative: {relative!r} is not in example-robot-data ({root})")
    return path


def _package_dirs(package_dirs: Sequence[str | os.PathLike[str]] | None) -> list[Path]:
    dirs = [Path(d) for d in (package_dirs or [])]
    try:
        dirs.append(example_robot_data().parent)  # share/: holds the example-robot-data package
    except (ModuleNotFoundError, FileNotFoundError):  # not installed, or not as a cmeel wheel
        pass
    return dirs


def _resolve(filename: str, base: Path, dirs: list[Path]) -> Path:
    """A URDF mesh file name as an existing absolute path."""
    if filename.startswith("package://"):
        package, _, rest = filename[len("package://") :].partition("/")
        for d in dirs:
            for candidate in (d / package / rest, d / rest):
                if candidate.is_file():
                    return candidate.resolve()
        raise FileNotFoundError(f"mesh {filename!r}: package {package!r} not found in package_dirs {dirs}")
    path = Path(filename[len("file://") :] if filename.startswith("file://") else filename)
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        raise FileNotFoundError(f"mesh {filename!r}: no file {path}")
    return path.resolve()


def _prepared_urdf(urdf: Path, dirs: list[Path]) -> str:
    """The URDF's text with visuals dropped, meshes absolute, a ``world``
    link removed and MuJoCo's compiler options set."""
    tree = ET.parse(urdf)
    robot = tree.getroot()
    if robot.tag != "robot":
        raise ValueError(f"urdf: {urdf} is not a URDF (root element <{robot.tag}>)")
    for link in robot.findall("link"):
        for visual in link.findall("visual"):
            link.remove(visual)
        for mesh in link.iter("mesh"):
            path = _resolve(mesh.get("filename", ""), urdf.parent, dirs)
            if path.suffix.lower() not in MESH_SUFFIXES:
                raise ValueError(f"mesh {path}: MuJoCo loads {', '.join(MESH_SUFFIXES)} meshes, not {path.suffix}")
            mesh.set("filename", str(path))
    # A "world" link fixed to the base welds the robot to the world.
    for joint in robot.findall("joint"):
        parent = joint.find("parent")
        if parent is not None and parent.get("link") == "world":
            robot.remove(joint)
    for link in robot.findall("link"):
        if link.get("name") == "world":
            robot.remove(link)
    for old in robot.findall("mujoco"):
        robot.remove(old)
    extension = ET.SubElement(robot, "mujoco")
    ET.SubElement(
        extension, "compiler", strippath="false", fusestatic="false", discardvisual="true", inertiafromgeom="false"
    )
    return ET.tostring(robot, encoding="unicode")


def _keyframe(srdf: Path, state: str, model: mujoco.MjModel) -> np.ndarray:
    """qpos of the SRDF's ``group_state`` named ``state``."""
    root = ET.parse(srdf).getroot()
    group = next((g for g in root.iter("group_state") if g.get("name") == state), None)
    if group is None:
        names = [g.get("name") for g in root.iter("group_state")]
        raise ValueError(f"state: no group_state {state!r} in {srdf}; it has {names}")
    qpos = np.array(model.qpos0, dtype=float)
    for joint in group.iter("joint"):
        name = joint.get("name", "")
        values = [float(x) for x in joint.get("value", "").split()]
        if len(values) == 7:  # the floating base: x y z qx qy qz qw
            x, y, z, qx, qy, qz, qw = values
            qpos[0:7] = [x, y, z, qw, qx, qy, qz]
            continue
        try:
            adr = model.jnt_qposadr[model.joint(name).id]
        except KeyError:
            raise ValueError(f"srdf: joint {name!r} of group_state {state!r} is not in the model") from None
        qpos[adr] = values[0]
    return qpos


def load_urdf(
    urdf: str | os.PathLike[str],
    *,
    package_dirs: Sequence[str | os.PathLike[str]] | None = None,
    feet: Sequence[str] | None = None,
    floor: bool = True,
    friction: float = 1.0,
    motors: bool = True,
    armature: float = 0.0,
    srdf: str | os.PathLike[str] | None = None,
    state: str | None = None,
    timestep: float = 0.002,
    fixed_base: bool = False,
    scene: Callable[[mujoco.MjSpec], object] | None = None,
    soles: Mapping[str, Sequence[float]] | None = None,
) -> mujoco.MjModel:
    """A legged robot's URDF as a MuJoCo model with a free base, a floor and
    contacts at its feet.

    ``package_dirs``: folders holding the packages that ``package://`` mesh
    paths name (``example-robot-data``'s is always added when installed).
    ``feet``: link names whose collision geoms touch the floor (each link
    must carry collision geometry); every other collision geom is switched
    off. ``None`` keeps every collision geom of the URDF, colliding as
    MuJoCo's defaults allow. ``floor``: add a plane ``floor`` at z = 0.
    ``friction``: the floor's sliding friction, and the feet's (MuJoCo takes
    the larger of a pair's two). ``motors``: one motor per hinge or slide
    joint, named after the joint, ``ctrlrange`` ± its URDF effort limit
    (unlimited where the URDF gives none). ``armature``: rotor inertia added
    to every such joint (kg·m² or kg; the URDF has none). ``srdf`` and
    ``state``: a keyframe named ``state`` from that SRDF ``group_state``.
    ``timestep``: MuJoCo's default, 2 ms. ``fixed_base``: no free joint, the
    root link fixed at the world's origin (an arm on its mount; ``feet``
    then names the links that touch, e.g. its hand). ``scene``: called with
    the robot's ``MjSpec`` once the feet and floor are set, before the motors
    and the keyframe: it adds what the robot meets (a box, a wall: geoms keep
    the contacts given to them there) or removes joints (a motor is added
    per hinge or slide joint left). ``soles``: ``{link: (length, width,
    depth)}`` (metres): a box sole on each link, its bottom face ``depth``
    below the link's frame, centred under it, ``length`` along the link's x
    axis and ``width`` along its y; it is the link's only contact
    (named ``LINK/sole``, massless: the URDF's inertia stays the link's),
    and touches the floor at its corners. The links need not be in ``feet``;
    with ``feet=None`` the soles are the only contacts.

    >>> import impactset.mujoco as imj
    >>> model = imj.load_urdf(imj.example_robot_data("robots/a1_description/urdf/a1.urdf"),
    ...     feet=["FL_foot", "FR_foot", "RL_foot", "RR_foot"],
    ...     srdf=imj.example_robot_data("robots/a1_description/srdf/a1.srdf"), state="standing")
    >>> model.nq, model.nv, model.nu, float(model.key("standing").qpos[2])
    (19, 18, 12, 0.26)
    """
    mj = import_mujoco()
    path = Path(urdf)
    if not path.is_file():
        raise FileNotFoundError(f"urdf: no file {path}")
    friction = float(friction)
    if not math.isfinite(friction) or friction < 0:
        raise ValueError(f"friction: expected a finite non-negative number, got {friction!r}")
    armature = float(armature)
    if not math.isfinite(armature) or armature < 0:
        raise ValueError(f"armature: expected a finite non-negative number, got {armature!r}")
    if (srdf is None) != (state is None):
        raise ValueError("srdf and state: give both (a keyframe from the SRDF's group_state) or neither")

    spec = mj.MjSpec.from_string(_prepared_urdf(path, _package_dirs(package_dirs)))
    spec.option.timestep = float(timestep)
    top = [b for b in spec.worldbody.bodies]
    if len(top) != 1:
        raise ValueError(f"urdf: expected one root link, found {[b.name for b in top]}")
    root = top[0]
    if len(root.joints):
        raise ValueError(f"urdf: the root link {root.name!r} already has joints")
    if not fixed_base:
        root.add_freejoint(name="root")

    slide_or_hinge = (int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE))
    for joint in spec.joints:
        if int(joint.type) in slide_or_hinge:
            joint.armature = armature

    if feet is not None:
        _keep_feet(spec, feet, friction)
    if soles is not None:
        _add_soles(mj, spec, soles, friction, only=feet is None)
    if floor:
        plane = spec.worldbody.add_geom(name="floor", type=mj.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.05])
        plane.friction[0] = friction
        plane.contype, plane.conaffinity = 1, 1
    if scene is not None:
        scene(spec)

    model = spec.compile()
    if motors:
        _add_motors(mj, spec, model, _efforts(path))
        model = spec.compile()
    if srdf is not None:
        qpos = _keyframe(Path(srdf), str(state), model)
        spec.add_key(name=str(state), qpos=qpos.tolist(), ctrl=[0.0] * model.nu)
        model = spec.compile()
    return model


def _keep_feet(spec: mujoco.MjSpec, feet: Sequence[str], friction: float) -> None:
    """Only the ``feet`` links' collision geoms collide (with the floor, not
    each other), each named after its link (``LINK/k`` where it has several);
    ``ValueError`` naming the links that have none."""
    found = set()
    for body in spec.bodies:
        for k, geom in enumerate(body.geoms):
            if body.name in feet:
                found.add(body.name)
                geom.name = body.name if len(body.geoms) == 1 else f"{body.name}/{k}"
                geom.contype, geom.conaffinity = 1, 0
                geom.friction[0] = friction
            else:
                geom.contype = geom.conaffinity = 0
    missing = [f for f in feet if f not in found]
    if missing:
        raise ValueError(f"feet: links {missing} have no collision geometry (or are not in the URDF)")


def _add_motors(mj: Any, spec: mujoco.MjSpec, model: mujoco.MjModel, efforts: Mapping[str, float]) -> None:
    """One motor per hinge or slide joint of ``model``, named after it,
    limited to ``efforts[name]`` where the URDF gives one."""
    slide_or_hinge = (int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE))
    for j in range(model.njnt):
        if int(model.jnt_type[j]) not in slide_or_hinge:
            continue
        name = model.joint(j).name
        act = spec.add_actuator(name=name, target=name, trntype=mj.mjtTrn.mjTRN_JOINT)
        limit = efforts.get(name)
        if limit is not None:
            act.ctrllimited = mj.mjtLimited.mjLIMITED_TRUE
            act.ctrlrange = [-limit, limit]


def _add_soles(
    mj: object, spec: mujoco.MjSpec, soles: Mapping[str, Sequence[float]], friction: float, *, only: bool
) -> None:
    """A box sole on each link of ``soles`` (see :func:`load_urdf`); the
    links' own geoms, and every other geom when ``only``, stop colliding."""
    sizes = {}
    for link, size in soles.items():
        values = [float(x) for x in size]
        if len(values) != 3 or not all(math.isfinite(x) and x > 0 for x in values):
            raise ValueError(f"soles: {link!r} needs (length, width, depth), three positive numbers, got {size!r}")
        sizes[link] = values
    bodies = {b.name: b for b in spec.bodies}
    missing = [link for link in sizes if link not in bodies]
    if missing:
        raise ValueError(f"soles: links {missing} are not in the URDF")
    if only:
        for body in spec.bodies:
            for geom in body.geoms:
                geom.contype = geom.conaffinity = 0
    half = 0.005  # the box's half thickness: only its bottom face touches
    for link, (length, width, depth) in sizes.items():
        body = bodies[link]
        for geom in body.geoms:
            geom.contype = geom.conaffinity = 0
        sole = body.add_geom(name=f"{link}/sole", type=mj.mjtGeom.mjGEOM_BOX, size=[length / 2, width / 2, half])  # type: ignore[attr-defined]
        sole.pos = [0.0, 0.0, half - depth]
        sole.mass = 0.0
        sole.contype, sole.conaffinity = 1, 0
        sole.friction[0] = friction


def _efforts(urdf: Path) -> dict[str, float]:
    """The URDF's positive effort limits by joint name (N·m or N)."""
    out = {}
    for element in ET.parse(urdf).getroot().findall("joint"):
        limit = element.find("limit")
        effort = float(limit.get("effort", 0) or 0) if limit is not None else 0.0
        if effort > 0:
            out[element.get("name", "")] = effort
    return out
