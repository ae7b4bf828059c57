"""The job resource's footprint: its `__provider` blob, its state, and the cost of serializing them.

What is measured, per job resource, ours (SpotTrainingJob) beside the baseline
(bench.baseline.BareJob: a bare `pulumi.dynamic.Resource` whose provider is a
trivial ResourceProvider subclass in an importable module, state = inputs):

- the `__provider` blob: base64 characters and pickled bytes. The real values,
  from rendering a one-job stack under mocks (tests.program.Recorder: the
  offline mocks answering as after a deploy, images pinned by digest) and
  reading the job's recorded inputs. Both providers set
  `serialize_as_secret_always = False`, so both blobs are plain strings.
- the state: ours is the outputs dict `SpotTrainingJobProvider().create(props)`
  returns, run against the project's Vertex emulator
  (tests.emulator.JobServiceEmulator, AIPLATFORM_EMULATOR_HOST set to its
  address; its job scripted to RUNNING, as `waitFor: running` waits for);
  the baseline's is what `BareJobProvider().create(props)` returns, i.e. its
  inputs. Props are the recorded inputs without `__provider` (the host adds
  the blob to both states). Sizes: compact JSON bytes, and the protobuf Struct
  the dynamic provider host sends (`pulumi.runtime.rpc.serialize_properties`).
- time per resource, over ITERATIONS calls, ROUNDS rounds interleaved ours /
  baseline, median: `serialize_properties` of the state (awaited in one event
  loop), and pickling the provider as `pulumi.dynamic.Resource.__init__` does
  for every resource (`_serialize(True, serialize_provider, provider)`: dill,
  `recurse=True`, then base64).

    uv run python -m bench.footprint [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import time
from collections.abc import Callable
from typing import Any

ITERATIONS, QUICK_ITERATIONS = 2000, 100
ROUNDS, QUICK_ROUNDS = 5, 1
PROVIDER_KEY = "__provider"


def job_inputs(run: Callable, mocks_type: type) -> dict[str, Any]:
    """The one job's recorded inputs, from a one-job, one-team stack rendered with `run` under mocks."""
    from bench.measure import DYNAMIC, stack_config

    mocks = run(stack_config(1, 1), "bench", mocks_type())
    [job] = [r for r in mocks.resources if r.typ.startswith(DYNAMIC)]
    return dict(job.inputs)


def our_state(props: dict[str, Any]) -> dict[str, Any]:
    from components.spot_job.client.job_service import EMULATOR_HOST_ENV
    from components.spot_job.provider import SpotTrainingJobProvider
    from tests.emulator import JobServiceEmulator

    with JobServiceEmulator() as emulator:
        os.environ[EMULATOR_HOST_ENV] = emulator.address
        emulator.script("JOB_STATE_RUNNING")
        try:
            return SpotTrainingJobProvider().create(props).outs
        finally:
            del os.environ[EMULATOR_HOST_ENV]


def per_call_us(f: Callable[[], Any], n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t) / n * 1e6


def serialize_us(loop: asyncio.AbstractEventLoop, state: dict[str, Any], n: int) -> float:
    from pulumi.runtime import rpc

    async def many() -> float:
        t = time.perf_counter()
        for _ in range(n):
            await rpc.serialize_properties(state, {})
        return (time.perf_counter() - t) / n * 1e6

    return loop.run_until_complete(many())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ITERATIONS} iterations, one round")
    args = parser.parse_args()
    iterations, rounds = (QUICK_ITERATIONS, QUICK_ROUNDS) if args.quick else (ITERATIONS, ROUNDS)

    from pulumi.dynamic.dynamic import serialize_provider
    from pulumi.runtime import rpc
    from pulumi.runtime._serialization import _serialize

    from bench import baseline
    from bench.stats import median, table
    from components.spot_job.provider import SpotTrainingJobProvider
    from offline import program
    from tests.program import Recorder

    inputs = {"ours": job_inputs(program.run, Recorder), "baseline": job_inputs(baseline.run, Recorder)}
    props = {v: {k: x for k, x in i.items() if k != PROVIDER_KEY} for v, i in inputs.items()}
    assert props["ours"] == props["baseline"], "the two job resources do not have the same inputs"
    state = {"ours": our_state(props["ours"]), "baseline": baseline.BareJobProvider().create(props["baseline"]).outs}
    providers = {"ours": SpotTrainingJobProvider, "baseline": baseline.BareJobProvider}

    loop = asyncio.new_event_loop()
    struct = {v: loop.run_until_complete(rpc.serialize_properties(s, {})) for v, s in state.items()}
    blob = {v: i[PROVIDER_KEY] for v, i in inputs.items()}
    for v, cls in providers.items():  # what the render recorded is what the SDK makes of the provider
        assert _serialize(True, serialize_provider, cls())[0] == blob[v]

    times: dict[tuple[str, str], list[float]] = {}
    for r in range(rounds):
        for v in ("ours", "baseline") if r % 2 == 0 else ("baseline", "ours"):
            times.setdefault(("state", v), []).append(serialize_us(loop, state[v], iterations))
            cls = providers[v]
            times.setdefault(("pickle", v), []).append(
                per_call_us(lambda: _serialize(True, serialize_provider, cls()), iterations)
            )
    loop.close()

    def row(label: str, ours: float, base: float, fmt: str = "{:.0f}") -> list[str]:
        return [label, fmt.format(ours), fmt.format(base), f"{ours / base:.2f}"]

    sizes = {
        "blob, base64 chars": {v: len(b) for v, b in blob.items()},
        "blob, pickled bytes": {v: len(base64.b64decode(b)) for v, b in blob.items()},
        "state, JSON bytes": {v: len(json.dumps(s, separators=(",", ":")).encode()) for v, s in state.items()},
        "state, protobuf Struct bytes": {v: struct[v].ByteSize() for v in state},
        "state, top-level keys": {v: len(s) for v, s in state.items()},
    }
    print(f"job resource footprint, per resource (median of {rounds} round(s) of {iterations} calls for times)\n")
    rows = [row(label, s["ours"], s["baseline"]) for label, s in sizes.items()]
    rows.append(row("serialize_properties(state), us", median(times[("state", "ours")]), median(times[("state", "baseline")]), "{:.1f}"))
    rows.append(row("pickle provider (SDK, per resource), us", median(times[("pickle", "ours")]), median(times[("pickle", "baseline")]), "{:.1f}"))
    print(table(["per job resource", "ours", "baseline", "ratio"], rows))
    print()
    for v in ("ours", "baseline"):
        print(f"{v} provider blob: {blob[v]}  ({base64.b64decode(blob[v])[:80]!r})")
    extra = sorted(set(state["ours"]) - set(state["baseline"]))
    print(f"keys only in our state: {', '.join(extra)}")


if __name__ == "__main__":
    main()
