"""The command line ``python -m impactset.mujoco MODEL.xml --out
problem.toml``: a MuJoCo model's impact problem at a keyframe written as a
problem file. :func:`main` is re-exported by :mod:`impactset.mujoco`."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._mujoco_importer import DEFAULT_DISTANCE, import_mujoco, problem


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m impactset.mujoco",
        description="Write the impact problem of a MuJoCo model (MJCF) at a state as a problem file.",
    )
    parser.add_argument("model", help="the MJCF file (.xml) or compiled model (.mjb)")
    parser.add_argument(
        "--keyframe", metavar="NAME", help="the state: this keyframe (name or index); default qpos0, qvel 0"
    )
    parser.add_argument("--out", metavar="PATH", required=True, help="the problem file to write (.toml or .json)")
    parser.add_argument(
        "--distance",
        type=float,
        default=DEFAULT_DISTANCE,
        help=f"contact distance tolerance (default {DEFAULT_DISTANCE:g})",
    )
    parser.add_argument(
        "--geom", action="append", metavar="NAME", help="keep contacts involving this geom (repeatable)"
    )
    parser.add_argument(
        "--body", action="append", metavar="NAME", help="keep contacts involving this body (repeatable)"
    )
    parser.add_argument(
        "--qvel", metavar="V", help="pre-impact velocity: nv comma-separated numbers (default: the state's)"
    )
    parser.add_argument("--no-equality", action="store_true", help="ignore the model's equality constraints")
    parser.add_argument(
        "--restitution",
        metavar="E",
        help="coefficients of restitution: one number for every contact or one per contact, comma-separated "
        "(default 0, inelastic)",
    )
    parser.add_argument("--name", help="the problem's name (default: the model's)")
    parser.add_argument("--samples", type=int, help="the problem's default sample count")
    return parser


def _load_model(path: str) -> Any:
    mj = import_mujoco()
    try:
        if path.endswith(".mjb"):
            return mj.MjModel.from_binary_path(path)
        return mj.MjModel.from_xml_path(path)
    except Exception as e:  # mujoco raises ValueError with its compiler's message
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path}: {first}") from e


def _state(model: Any, keyframe: str | None) -> Any:
    mj = import_mujoco()
    data = mj.MjData(model)
    if keyframe is None:
        return data
    key = int(keyframe) if keyframe.lstrip("-").isdigit() else mj.mj_name2id(model, mj.mjtObj.mjOBJ_KEY, keyframe)
    if not 0 <= key < model.nkey:
        raise ValueError(f"--keyframe: no keyframe {keyframe!r} in the model ({model.nkey} keyframes)")
    mj.mj_resetDataKeyframe(model, data, key)
    return data


def _parse_vector(text: str, n: int, what: str) -> npt.NDArray[np.float64]:
    try:
        values = np.array([float(x) for x in text.replace(" ", ",").split(",") if x], dtype=float)
    except ValueError as e:
        raise ValueError(f"{what}: not a list of numbers: {text!r}") from e
    if values.shape != (n,):
        raise ValueError(f"{what}: expected {n} numbers, got {values.size}")
    return values


def _parse_restitution(text: str | None) -> npt.NDArray[np.float64] | None:
    """``--restitution``: None when not given, one number (a 0-d array) or
    one per contact; the values are checked by the core."""
    if text is None:
        return None
    try:
        values = np.array([float(x) for x in text.replace(" ", ",").split(",") if x], dtype=float)
    except ValueError as e:
        raise ValueError(f"--restitution: not a list of numbers: {text!r}") from e
    if values.size == 0:
        raise ValueError("--restitution: expected one number or one per contact, got none")
    return values[0] if values.size == 1 else values


def main(argv: Sequence[str] | None = None) -> int:
    """The command line ``python -m impactset.mujoco``; returns the exit
    status (2 on an error, with one line on standard error)."""
    args = _parser().parse_args(argv)
    try:
        model = _load_model(args.model)
        data = _state(model, args.keyframe)
        v = _parse_vector(args.qvel, model.nv, "--qvel") if args.qvel else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            p = problem(
                model,
                data,
                distance=args.distance,
                geoms=args.geom,
                bodies=args.body,
                v=v,
                equality=not args.no_equality,
                restitution=_parse_restitution(args.restitution),
                name=args.name,
                samples=args.samples,
            )
        for w in caught:
            print(f"warning: {w.message}", file=sys.stderr)
        p.save(args.out)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{args.out}: {p.m} contacts, n = {p.n}, {p.dimension}")
    return 0
