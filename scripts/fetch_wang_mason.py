#!/usr/bin/env python3
"""One-time conversion of the Wang–Mason square ("dice") drops of
DAIRLab/ImpactModeling into the compact file that ships with impactset,
data/wang-mason-square/poses.npz (docs/real-drops.md).

    git clone https://github.com/DAIRLab/ImpactModeling /tmp/ImpactModeling
    python scripts/fetch_wang_mason.py /tmp/ImpactModeling [--out data/wang-mason-square/poses.npz]

SOURCE is a clone (or bare mirror) of the repository: the script reads
``Wang/Wang-Mason Square/dice-data-processed/traj_<k>.csv``, k = 1…500, at
the commit named by ``--commit`` (default: the one the shipped file was made
from) with ``git show``, so the working tree may be anywhere. Each CSV holds
200 frames at 250 Hz of ``x, z, th, vx, vz, vth`` (metres, radians, and
their rates); only the poses ``x, z, th`` are kept, rounded to float32 (at
most 0.03 µm and 0.5 µrad here, far below the tracking noise of about 50 µm
and 1 mrad). The rates are dropped: the provider derived them from the
poses with an undocumented filter, and the validation fits its own.

Nothing in impactset downloads this at run time; the script exists so the
shipped file can be regenerated and checked byte for byte.
"""

from __future__ import annotations

import argparse
import csv
import io
import subprocess
from pathlib import Path

import numpy as np

COMMIT = "f6c28898845da6d48efdd6c1c696db2fb3716edf"
FOLDER = "Wang/Wang-Mason Square/dice-data-processed"
DROPS = 500
FRAMES = 200
COLUMNS = ("x", "z", "th")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "wang-mason-square" / "poses.npz"


def git_dir(source: Path) -> Path:
    """The git directory of a clone (``.git`` inside) or a bare mirror."""
    return source / ".git" if (source / ".git").exists() else source


def read_drop(repo: Path, commit: str, k: int) -> np.ndarray:
    """Drop ``k``'s poses, a (FRAMES, 3) array of ``x, z, th``."""
    text = subprocess.run(
        ["git", "--git-dir", str(git_dir(repo)), "show", f"{commit}:{FOLDER}/traj_{k}.csv"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    columns = [header.index(name) for name in COLUMNS]
    poses = np.array([[float(row[c]) for c in columns] for row in body])
    if poses.shape != (FRAMES, 3):
        raise ValueError(f"traj_{k}.csv: expected {FRAMES} frames, got {poses.shape[0]}")
    return poses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a clone or mirror of DAIRLab/ImpactModeling")
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    poses = np.stack([read_drop(args.source, args.commit, k) for k in range(1, DROPS + 1)])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        poses=poses.astype(np.float32),
        drop=np.arange(1, DROPS + 1, dtype=np.int32),
        frame_rate=np.float64(250.0),
        side=np.float64(0.06),
        source=np.array(f"github.com/DAIRLab/ImpactModeling@{args.commit}:{FOLDER}"),
    )
    print(f"{args.out}: {DROPS} drops × {FRAMES} frames of (x, z, th), {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
