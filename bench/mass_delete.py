"""A mass delete: how long a diff waits for a thread of the dynamic provider
host while a destroy (or a replacement) of 50 running jobs is in flight whose
cancels take long.

The host (`python -m pulumi.dynamic`, the SDK's, as the engine starts it)
serves 4 calls at once and queues the rest. An engine-like client sends the 50
Deletes through a ThreadPoolExecutor(16), the Pulumi CLI's default
`--parallel`, all submitted at once as a destroy's independent deletes are.
For a replacement (`replaceOrder: cancelFirst`, deleteBeforeReplace) each step
is a Delete of the old job then a Create of the new one (`rerun` changed).
Every job is RUNNING in the emulator when the destroy starts, and every
cancelled job stays CANCELLING (`emulator.hold_cancelling`) until HOLD seconds
after the destroy started, standing for the minutes a real cancel takes; after
that the provider's own polling (vertex.POLL, real pace) sees it stop.

Meanwhile a probe sends a Diff of another job of the stack (unchanged, so
DIFF_NONE) every 0.25 s from its own thread, until every delete returned. A
diff's latency is the time it waited for a host thread plus ~2 ms of work;
"wait" below subtracts the idle median. Only probes sent while the cancels
were held are summarized: that is when the host's threads are contested.

Side by side in one run, against fresh emulators:
- idle: the same probe on the same host, nothing else in flight;
- ours: the host as shipped (at most blocking.MAX_BLOCKING_CALLS calls wait on
  a job; the other deletes cancel and return);
- unbounded: the same host with that bound lifted (the behaviour before it:
  every delete waits for its cancelled job on a host thread), started as
  `python -c "<lift the bound>; runpy.run_module('pulumi.dynamic')"`.

Checked, printed: every job got a CancelCustomJob, none is left in an active
(billing) state, and for a replacement every new job was submitted.

Run: .venv/bin/python -m bench.mass_delete [--quick]
"""

from __future__ import annotations

import argparse
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pulumi.runtime.proto import provider_pb2

from bench.emulated import Host, checked, median, p90, program_inputs, scoped, serialize, table
from components.spot_job.model import states as job_states
from components.spot_job.protocol import blocking
from tests.emulator import JobServiceEmulator
from tests.provider_host import JOB_TYPE

ENGINE_PARALLEL = 16  # `pulumi destroy --parallel`'s default
PROBE_EVERY = 0.25  # seconds between diffs sent by the probe
UNBOUNDED = (
    "import runpy, threading\n"
    "from components.spot_job.protocol import blocking\n"
    "blocking._slots = threading.BoundedSemaphore(1_000_000)  # the bound lifted: every delete waits\n"
    "runpy.run_module('pulumi.dynamic', run_name='__main__', alter_sys=True)\n"
)


class UnboundedHost(Host):
    command = ("-c", UNBOUNDED)


def urn(name: str) -> str:
    return f"urn:pulumi:dev::spot-training::{JOB_TYPE}::{name}"


@dataclass
class Run:
    diffs_held: list[float] = field(default_factory=list)  # latency of diffs sent while cancels were held
    diffs_after: list[float] = field(default_factory=list)
    elapsed: float = 0.0  # from the first Delete sent to the last step returned
    returned_held: int = 0  # steps that returned while cancels were held
    calls: Counter = field(default_factory=Counter)
    cancelled_all: bool = False
    active_left: int = 0
    records_left: int = 0
    submitted: int = 0  # new jobs, for a replacement
    stopping_logged: int = 0


def setup(host: Host, emu: JobServiceEmulator, inputs: dict, n: int, tag: str):
    """n running jobs created through the host: (Delete request, the Create of its replacement) each.

    Requests are serialized here, before any clock starts and on this thread (serialization runs
    on one shared event loop, which the engine's threads must not share)."""
    jobs = []
    for i in range(n):
        props = checked(host, scoped(inputs, f"spot-training/dev/{tag}-{i}"))
        response, _ = host.create(urn(f"{tag}-{i}"), props)
        emu.set_state(response.id, "JOB_STATE_RUNNING")
        delete = provider_pb2.DeleteRequest(urn=urn(f"{tag}-{i}"), id=response.id, properties=response.properties)
        news = {**props, "rerun": "2"}  # a trigger change: replaced, the old job deleted first
        jobs.append((delete, provider_pb2.CreateRequest(urn=urn(f"{tag}-{i}"), properties=serialize(news))))
    return jobs


def other_job(host: Host, inputs: dict) -> provider_pb2.DiffRequest:
    """Another job of the stack, and the probe's Diff of it (unchanged)."""
    props = checked(host, scoped(inputs, "spot-training/dev/other"))
    other, _ = host.create(urn("other"), props)
    return provider_pb2.DiffRequest(urn=urn("other"), id=other.id, olds=other.properties, news=serialize(props))


def diff(host: Host, probe: provider_pb2.DiffRequest) -> float:
    response, seconds = host.call("Diff", probe)
    assert response.changes == provider_pb2.DiffResponse.DIFF_NONE
    return seconds


def idle(host: Host, probe: provider_pb2.DiffRequest, samples: int) -> list[float]:
    diff(host, probe)  # first call warms the host's import of the provider
    return [diff(host, probe) for _ in range(samples)]


def mass(host: Host, emu: JobServiceEmulator, jobs: list, probe, hold: float, replace: bool) -> Run:
    run = Run()
    held = threading.Event()
    held.set()
    emu.hold_cancelling = True
    emu.reset_calls()
    done = threading.Event()
    returned = []
    probes: list[tuple[bool, float]] = []

    def step(job) -> None:
        delete, create = job
        host.call("Delete", delete)
        if replace:
            host.call("Create", create)
        returned.append(held.is_set())

    def probe_once(sent_held: bool) -> None:
        probes.append((sent_held, diff(host, probe)))

    with ThreadPoolExecutor(64) as prober:
        def probing() -> None:
            while not done.wait(PROBE_EVERY):
                prober.submit(probe_once, held.is_set())

        start = time.perf_counter()
        release = threading.Timer(hold, lambda: (held.clear(), setattr(emu, "hold_cancelling", False)))
        release.start()
        ticker = threading.Thread(target=probing)
        ticker.start()
        with ThreadPoolExecutor(ENGINE_PARALLEL) as engine:
            list(engine.map(step, jobs))
        run.elapsed = time.perf_counter() - start
        done.set()
        ticker.join()
        release.join()
    run.diffs_held = [s for h, s in probes if h]
    run.diffs_after = [s for h, s in probes if not h]
    run.returned_held = sum(returned)
    run.calls = Counter(emu.calls)
    old = {delete.id for delete, _ in jobs}
    states = {job.name: job.state.name for job in emu.jobs()}
    run.cancelled_all = run.calls["CancelCustomJob"] == len(jobs)
    run.active_left = sum(1 for name in old & states.keys() if states[name] in job_states.ACTIVE)
    run.records_left = len(old & states.keys())
    run.submitted = run.calls["CreateCustomJob"]
    run.stopping_logged = host.log().count("it is stopping")
    return run


def scenario(host_class: type[Host], inputs: dict, n: int, hold: float, idle_samples: int = 0):
    """A destroy, then a replacement, of n running jobs each, on one host: (destroy, replace, idle diffs)."""
    with JobServiceEmulator() as emu:
        with host_class({"AIPLATFORM_EMULATOR_HOST": emu.address}) as host:
            probe = other_job(host, inputs)
            quiet = idle(host, probe, idle_samples) if idle_samples else []
            destroy = mass(host, emu, setup(host, emu, inputs, n, "destroyed"), probe, hold, replace=False)
            logged = host.log().count("it is stopping")
            replace = mass(host, emu, setup(host, emu, inputs, n, "replaced"), probe, hold, replace=True)
            replace.stopping_logged -= logged
            return destroy, replace, quiet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced smoke run: 12 jobs, cancels held 2 s")
    args = parser.parse_args()
    n, hold, idle_samples = (12, 2.0, 20) if args.quick else (50, 15.0, 100)

    inputs = program_inputs()
    runs = {}
    runs["destroy, ours"], runs["replace, ours"], quiet = scenario(Host, inputs, n, hold, idle_samples)
    runs["destroy, unbounded"], runs["replace, unbounded"], _ = scenario(UnboundedHost, inputs, n, hold)
    runs = {name: runs[name] for name in ("destroy, ours", "destroy, unbounded", "replace, ours", "replace, unbounded")}

    base = median(quiet)
    ms = lambda s: f"{s * 1000:.1f}"  # noqa: E731
    print(f"A mass delete of {n} running jobs through the dynamic provider host (4 threads), {ENGINE_PARALLEL} steps "
          f"in flight, every cancel held {hold:g} s; a Diff of another job every {PROBE_EVERY:g} s (ms)")
    print(f"idle host: diff median {ms(base)}, p90 {ms(p90(quiet))}, max {ms(max(quiet))} ({len(quiet)} diffs)")
    print()
    rows = []
    for name, r in runs.items():
        h = r.diffs_held or [float("nan")]
        rows.append([
            name, len(r.diffs_held), ms(median(h)), ms(p90(h)), ms(max(h)), ms(max(h) - base),
            f"{max(h) / base:.0f}x", f"{r.returned_held}/{n}", f"{r.elapsed:.1f}",
        ])
    print(table(
        ["run", "diffs while held", "diff med", "diff p90", "diff max", "max wait (max - idle med)",
         "max/idle", "steps returned while held", "all steps s"],
        rows,
    ))
    print()
    rows = []
    for name, r in runs.items():
        rows.append([
            name, r.calls["CancelCustomJob"], r.active_left, r.records_left, r.calls["DeleteCustomJob"],
            r.stopping_logged, r.submitted if name.startswith("replace") else "n/a",
        ])
    print(table(
        ["run", "CancelCustomJob", "old jobs left active", "old records left", "DeleteCustomJob",
         "\"it is stopping\" logged", "new jobs submitted"],
        rows,
    ))
    print()
    for name, r in runs.items():
        ok = r.cancelled_all and r.active_left == 0 and (not name.startswith("replace") or r.submitted == n)
        print(f"{name}: every job cancelled, none left active{', every new job submitted' if name.startswith('replace') else ''}: "
              f"{'yes' if ok else 'NO'}")
    print(f"ours: at most {blocking.MAX_BLOCKING_CALLS} deletes wait on a job; the others' records are left to delete "
          "by hand (the log line gives the gcloud command)")


if __name__ == "__main__":
    main()
