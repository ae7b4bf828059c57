"""API economy: exact JobService calls per provider operation, from the
emulator's call counters (counts, not timings), beside the high-level Vertex AI
SDK's calls for the operations it has, through the same emulator, in one run.

Ours: every operation goes through the running dynamic provider host
(`python -m pulumi.dynamic`, the real path, with the program's `__provider`
blob), the emulator's counters zeroed before each. Operations: check, create,
read (refresh), diff with no change, an in-place update (a knob: deleteTimeout),
a replacement as the engine drives it (Diff says replace with
deleteBeforeReplace, then Delete of the old job and Create of the new one) of a
running and of a finished job, delete of a running job, of a finished one, of
one already deleted out of band. The emulator's cancellation ends on the second
GetCustomJob after CancelCustomJob (its default); on Vertex a cancel takes
longer and the provider polls more (vertex.POLL: every 1 s growing to 15 s).

Then a stack of 100 unchanged jobs (created first, through the host; the calls
of that first `up` are shown too), and the calls of one `pulumi up` with
`options.refresh: always`: a Read per job, then Check and Diff per job, which
find no change (no Update, no Create), all through the host. Compared with
Vertex AI's per-region quota of 600 JobService (CRUD) requests per minute
(components/spot_job/client/job_service.py), as a fraction of one minute's quota.

SDK: `CustomJob(...).submit()`, `CustomJob.get(name)`, `job._sync_gca_resource()`
(its refresh), `job.delete()` (Delete and its LRO) of a finished and of a
running job, and 100 `CustomJob.get` for the refresh; transport patched as in
bench/sdk.py (plaintext channel only).

Run: .venv/bin/python -m bench.api_calls [--quick]
"""

from __future__ import annotations

import argparse
import copy

from google.api_core import exceptions
from pulumi.runtime.proto import provider_pb2

from bench import sdk
from bench.emulated import (
    CRUD_PER_MINUTE,
    RPCS,
    SUBMISSIONS_PER_MINUTE,
    URN,
    Host,
    calls_of,
    checked,
    program_inputs,
    scoped,
    serialize,
    table,
)
from components.spot_job.model import spec
from components.spot_job.model.job_inputs import JobInputs
from tests.emulator import JobServiceEmulator
from tests.provider_host import deserialize

HEADERS = ["operation", *RPCS, "total"]


def row(name: str, counter) -> list:
    counts = calls_of(counter)
    extra = sorted(set(counts) - set(RPCS))
    return [name + (f" (also {', '.join(extra)})" if extra else ""), *(counts[r] for r in RPCS), sum(counts.values())]


class Counted:
    """Zeroes the emulator's counters on entry and keeps a copy of them on exit."""

    def __init__(self, emu: JobServiceEmulator) -> None:
        self.emu = emu

    def __enter__(self) -> Counted:
        self.emu.reset_calls()
        return self

    def __exit__(self, *_: object) -> None:
        self.counts = dict(self.emu.calls)


def created(host: Host, props: dict) -> tuple[str, dict]:
    response, _ = host.create(URN, props)
    return response.id, deserialize(response.properties)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced smoke run (10 jobs in the stack)")
    args = parser.parse_args()
    stack_size = 10 if args.quick else 100

    inputs = program_inputs()
    ours, theirs = [], []
    with JobServiceEmulator() as emu:
        count = lambda: Counted(emu)  # noqa: E731
        sdk.point_at(emu.address)
        with Host({"AIPLATFORM_EMULATOR_HOST": emu.address}) as host:
            props = checked(host, scoped(inputs, "spot-training/dev/economy"))
            with count() as c:
                host.check(URN, {}, props)
            ours.append(row("check", c.counts))
            with count() as c:
                id_, state = created(host, props)
            ours.append(row("create", c.counts))
            with count() as c:
                response, _ = host.read(URN, id_, state)
                state = deserialize(response.properties)
            ours.append(row("read (refresh)", c.counts))
            with count() as c:
                response, _ = host.diff(URN, id_, state, props)
            assert response.changes == provider_pb2.DiffResponse.DIFF_NONE
            ours.append(row("diff, no change", c.counts))
            knob = {**props, "deleteTimeout": "120s"}
            with count() as c:
                response, _ = host.diff(URN, id_, state, knob)
                host.call("Update", provider_pb2.UpdateRequest(
                    urn=URN, id=id_, olds=serialize(state), news=serialize(knob)))
            assert not list(response.replaces)
            ours.append(row("diff + update of a knob (deleteTimeout)", c.counts))

            for old_state in ("JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"):
                old_props = checked(host, scoped(inputs, f"spot-training/dev/replaced-{old_state}"))
                old_id, old = created(host, old_props)
                emu.set_state(old_id, old_state)
                new_props = copy.deepcopy(old_props)
                new_props["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = "n1-highmem-8"
                label = "running" if old_state.endswith("RUNNING") else "finished"
                with count() as c:
                    diff, _ = host.diff(URN, old_id, old, new_props)
                assert list(diff.replaces) and diff.deleteBeforeReplace
                with count() as d:
                    host.delete(URN, old_id, old)
                with count() as n:
                    created(host, new_props)
                total = {k: c.counts.get(k, 0) + d.counts.get(k, 0) + n.counts.get(k, 0) for k in {*c.counts, *d.counts, *n.counts}}
                ours.append(row(f"replacement, old job {label}: diff", c.counts))
                ours.append(row(f"  delete of the old ({label})", d.counts))
                ours.append(row("  create of the new", n.counts))
                ours.append(row(f"  replacement, old job {label}: all", total))

            for label, setup in (
                ("delete, running job", lambda name: emu.set_state(name, "JOB_STATE_RUNNING")),
                ("delete, finished job", lambda name: emu.set_state(name, "JOB_STATE_SUCCEEDED")),
                ("delete, job gone out of band", emu.remove),
            ):
                job_id, job_state = created(host, checked(host, scoped(inputs, f"spot-training/dev/{label}")))
                setup(job_id)
                with count() as c:
                    host.delete(URN, job_id, job_state)
                ours.append(row(label, c.counts))

            # --- a stack of unchanged jobs ------------------------------------------------
            stack = [checked(host, scoped(inputs, f"spot-training/dev/job-{i}")) for i in range(stack_size)]
            with count() as first_up:
                states = [created(host, props) for props in stack]
            with count() as refresh:
                states = [(id_, deserialize(host.read(URN, id_, state)[0].properties)) for id_, state in states]
            with count() as plan:
                changes = []
                for props, (id_, state) in zip(stack, states):
                    news = deserialize(host.check(URN, state, props)[0].inputs)
                    changes.append(host.diff(URN, id_, state, news)[0].changes)
            assert all(change == provider_pb2.DiffResponse.DIFF_NONE for change in changes)
            refresh_up = {k: refresh.counts.get(k, 0) + plan.counts.get(k, 0) for k in {*refresh.counts, *plan.counts}}
            ours.append(row(f"first up of {stack_size} jobs (create each)", first_up.counts))
            ours.append(row(f"up of {stack_size} unchanged jobs: refresh (Read each)", refresh.counts))
            ours.append(row("  then Check + Diff each: no change", plan.counts))
            ours.append(row(f"  up of {stack_size} unchanged jobs: all", refresh_up))

        # --- the SDK ----------------------------------------------------------------------
        body = spec.submission(JobInputs.of(scoped(inputs, "spot-training/dev/economy-sdk")))[2]
        job_args = sdk.job_args(body)
        with count() as c:
            job = sdk.submit(*job_args)
        theirs.append(row("CustomJob(...).submit()", c.counts))
        with count() as c:
            sdk.aiplatform.CustomJob.get(job.resource_name)
        theirs.append(row("CustomJob.get(name)", c.counts))
        with count() as c:
            job._sync_gca_resource()
        theirs.append(row("job._sync_gca_resource() (refresh)", c.counts))
        emu.set_state(job.resource_name, "JOB_STATE_SUCCEEDED")
        with count() as c:
            job.delete()
        theirs.append(row("job.delete(), finished job", c.counts))
        running = sdk.submit(*job_args)
        emu.set_state(running.resource_name, "JOB_STATE_RUNNING")
        with count() as c:
            try:
                running.delete()
                outcome = "deleted"
            except exceptions.FailedPrecondition:
                outcome = "refused FAILED_PRECONDITION"
        theirs.append(row(f"job.delete(), running job: {outcome}", c.counts))
        jobs = [sdk.submit(*job_args) for _ in range(stack_size)]
        with count() as c:
            for j in jobs:
                sdk.aiplatform.CustomJob.get(j.resource_name)
        theirs.append(row(f"refresh of {stack_size} jobs (CustomJob.get each)", c.counts))

    print("JobService calls per operation, ours: through the dynamic provider host")
    print(table(HEADERS, ours))
    print()
    print("JobService calls per operation, the high-level SDK (google.cloud.aiplatform), same emulator")
    print(table(HEADERS, theirs))
    print()
    up_calls = sum(refresh_up.values())
    sdk_refresh = sum(c.counts.values())
    print(f"An up of {stack_size} unchanged jobs makes {up_calls} calls (SDK refresh of the same jobs: {sdk_refresh}; "
          f"ratio {up_calls / sdk_refresh:.2f}): {up_calls / CRUD_PER_MINUTE:.1%} of one minute's quota of "
          f"{CRUD_PER_MINUTE} JobService requests per region.")
    first = sum(first_up.counts.values())
    creates = first_up.counts.get("CreateCustomJob", 0)
    print(f"The first up of the {stack_size} jobs makes {first} calls ({first / CRUD_PER_MINUTE:.1%} of the minute's "
          f"request quota), of which {creates} CreateCustomJob against the {SUBMISSIONS_PER_MINUTE}/min submission "
          f"quota ({creates / SUBMISSIONS_PER_MINUTE:.0%} of a minute's; see bench.burst).")


if __name__ == "__main__":
    main()
