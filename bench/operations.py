"""The provider's cost per operation, against the local JobService emulator,
beside Google's high-level Vertex AI SDK doing the same, in one run.

Measured:

- Cold start to the first create. Ours: from starting `python -m pulumi.dynamic`
  (the dynamic provider host, from the repo root, as the engine starts it)
  through Configure, Check and Create of one job with the `__provider` blob the
  program really produced (a one-job stack rendered under mocks), to the Create
  response. Baseline: from starting a fresh Python process that imports
  `google.cloud.aiplatform`, inits it and runs `CustomJob(...).submit()` of the
  same job, to submit() returning (the child prints the job's name; the parent
  stops the clock on reading it). Both against the same emulator, interleaved,
  after one unrecorded run of each (file cache); median of the runs.
- Warm latency, median and p90 over N operations each, interleaved ours/SDK:
  ours is one gRPC call to the running host (requests serialized before the
  clock starts), the SDK's is the call in this warm process.
    create: host Create                | CustomJob(...).submit()
    read:   host Read                  | CustomJob.get(resource_name)
    delete: host Delete, finished job  | job.delete() (Delete and its LRO)
    delete of a running job: host Delete (cancel, poll until terminal, delete);
    the SDK has no such operation (its delete() of a running job is refused
    FAILED_PRECONDITION, as by Vertex), so no baseline.
  Each row also shows the RPCs one operation made, from the emulator's counters.
- Breakdown of a warm create and read: the same provider method called in this
  process (its JobService client warm, as the host's is), with the time in each
  JobService call (job_service.JobService._call, client side: request building, the
  gRPC round trip to the emulator and the emulator's own work, proto to dict);
  the provider's own Python is the method's time less its calls (validation,
  canonical form and submission key, labels, redaction, outputs); the host hop
  is the host call's median less the in-process method's median (gRPC to the
  host, its (de)serializing of properties, the pickled provider's look-up).

How the SDK reaches the emulator: see bench/sdk.py (only the gRPC channel
factory is patched, to a plaintext channel; the SDK's logic runs unchanged).
The script checks that the SDK's jobs landed in the emulator and are the same
CustomJob as ours, apart from name, times and the two labels that hash the
resource's scope (submission key, resource).

Run: .venv/bin/python -m bench.operations [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter

from pulumi.runtime.proto import provider_pb2

from bench import sdk
from bench.emulated import URN, Host, checked, median, p90, program_inputs, scoped, serialize, table
from components.spot_job.client import job_service
from components.spot_job.model import request, spec, submission_labels
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.provider import SpotTrainingJobProvider
from tests.emulator import JobServiceEmulator
from tests.program import ROOT
from tests.provider_host import deserialize

# The cold baseline's whole program, in a fresh interpreter.
SDK_COLD = (
    "import json, sys\n"
    "import bench.sdk as sdk\n"
    "sdk.point_at(sys.argv[1])\n"
    "job = sdk.submit(*sdk.job_args(json.loads(sys.argv[2])))\n"
    "print('SUBMITTED', job.resource_name, flush=True)\n"
)


def body_of(inputs: dict) -> dict:
    """The request body ours submits for these inputs (request.create_request), label included."""
    return request.create_request(JobInputs.of(inputs))[2]


def cold_ours(emu: JobServiceEmulator, inputs: dict, scope: str) -> tuple[float, float]:
    """(seconds to the Create response, of which until the host was up and Configured)."""
    props = scoped(inputs, scope)
    check = provider_pb2.CheckRequest(urn=URN, olds=serialize({}), news=serialize(props))
    create = provider_pb2.CreateRequest(urn=URN, properties=serialize(props))  # Check returns the news as they are
    start = time.perf_counter()
    with Host({"AIPLATFORM_EMULATOR_HOST": emu.address}) as host:  # spawn, read the port, Configure
        ready = time.perf_counter() - start
        host.stub.Check(check)
        created = host.stub.Create(create)
        elapsed = time.perf_counter() - start
    assert created.id in {j.name for j in emu.jobs()}, "ours: the job is not in the emulator"
    return elapsed, ready


def cold_sdk(emu: JobServiceEmulator, inputs: dict, scope: str) -> float:
    body = json.dumps(body_of(scoped(inputs, scope)))
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", SDK_COLD, emu.address, body], cwd=ROOT, stdout=subprocess.PIPE)
    name = ""
    for line in child.stdout:
        if line.startswith(b"SUBMITTED "):
            name = line.split()[1].decode()
            break
    elapsed = time.perf_counter() - start
    child.stdout.close()
    if child.wait() != 0 or not name:
        raise RuntimeError("the SDK's cold submit failed")
    assert name in {j.name for j in emu.jobs()}, "SDK: the job is not in the emulator"
    return elapsed


def rpcs(before: Counter, after: Counter) -> Counter:
    return Counter({k: after[k] - before[k] for k in after if after[k] - before[k]})


def measured(emu: JobServiceEmulator, fn):
    """(result, seconds, RPCs) of fn(); fn returns (result, seconds) or times itself as a whole."""
    before = Counter(emu.calls)
    start = time.perf_counter()
    out = fn()
    elapsed = time.perf_counter() - start
    if isinstance(out, tuple):
        out, elapsed = out
    return out, elapsed, rpcs(before, Counter(emu.calls))


def rpc_text(samples: list[Counter]) -> str:
    total = sum(samples, Counter())
    return " + ".join(f"{v / len(samples):g} {k}" for k, v in sorted(total.items())) or "none"


def same_job(emu: JobServiceEmulator, ours: str, theirs: str) -> bool:
    def comparable(name: str):
        job = type(emu.job(name)).pb(emu.job(name))
        for field in ("name", "state", "create_time", "update_time", "start_time", "end_time"):
            job.ClearField(field)
        for label in (spec.SUBMISSION_LABEL, submission_labels.RESOURCE_LABEL):  # both hash the resource's scope
            del job.labels[label]
        return job

    return comparable(ours) == comparable(theirs)


def breakdown(emu: JobServiceEmulator, inputs: dict, ops: int) -> dict[str, dict[str, list[float]]]:
    """Per operation (create, read): samples of the provider method's total seconds in this
    process and of the seconds in each JobService call it made, by RPC."""
    os.environ[job_service.EMULATOR_HOST_ENV] = emu.address
    provider = SpotTrainingJobProvider()
    spent: list[tuple[str, float]] = []
    original = job_service.JobService._call

    def timed(self, action, method, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, action, method, **kwargs)
        finally:
            spent.append((method.__name__, time.perf_counter() - start))

    job_service.JobService._call = timed
    out = {op: {"total": []} for op in ("create", "read")}
    try:
        warm = provider.create(provider.check({}, scoped(inputs, "spot-training/dev/inproc-warm")).inputs)
        provider.read(warm.id, warm.outs)
        for i in range(ops):
            props = provider.check({}, scoped(inputs, f"spot-training/dev/inproc-{i}")).inputs
            for op, call in (("create", lambda: provider.create(props)), ("read", lambda: provider.read(made.id, made.outs))):
                spent.clear()
                start = time.perf_counter()
                result = call()
                out[op]["total"].append(time.perf_counter() - start)
                if op == "create":
                    made = result
                for name, seconds in spent:
                    out[op].setdefault(name, []).append(seconds)
    finally:
        job_service.JobService._call = original
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced smoke run")
    args = parser.parse_args()
    cold_runs, warm_ops, running_deletes = (2, 5, 2) if args.quick else (5, 30, 10)

    inputs = program_inputs()
    with JobServiceEmulator() as emu:
        sdk.point_at(emu.address)
        env = {"AIPLATFORM_EMULATOR_HOST": emu.address}

        # --- cold start -------------------------------------------------------------------
        cold_ours(emu, inputs, "spot-training/dev/warmup-ours")
        cold_sdk(emu, inputs, "spot-training/dev/warmup-sdk")
        cold = {"ours": [], "sdk": []}
        ready = []
        for i in range(cold_runs):
            elapsed, up = cold_ours(emu, inputs, f"spot-training/dev/cold-ours-{i}")
            cold["ours"].append(elapsed), ready.append(up)
            cold["sdk"].append(cold_sdk(emu, inputs, f"spot-training/dev/cold-sdk-{i}"))

        # --- warm operations --------------------------------------------------------------
        times = {op: {"ours": [], "sdk": []} for op in ("create", "read", "delete", "delete running")}
        calls = {op: {"ours": [], "sdk": []} for op in times}
        with Host(env) as host:
            # One unrecorded create, read and delete each first: the host imports the Google client on
            # its first Create (that is in the cold start above), the SDK its resource classes.
            props = checked(host, scoped(inputs, "spot-training/dev/warm-up"))
            response, _ = host.create(URN, props)
            host.read(URN, response.id, deserialize(response.properties))
            emu.set_state(response.id, "JOB_STATE_SUCCEEDED")
            host.delete(URN, response.id, deserialize(response.properties))
            job = sdk.submit(*sdk.job_args(body_of(scoped(inputs, "spot-training/dev/warm-up-sdk"))))
            sdk.aiplatform.CustomJob.get(job.resource_name)
            emu.set_state(job.resource_name, "JOB_STATE_SUCCEEDED")
            job.delete()

            ours_inputs = [checked(host, scoped(inputs, f"spot-training/dev/warm-ours-{i}")) for i in range(warm_ops)]
            sdk_args = [sdk.job_args(body_of(scoped(inputs, f"spot-training/dev/warm-sdk-{i}"))) for i in range(warm_ops)]
            created, sdk_jobs = [], []
            for props, (constructor, submit_args) in zip(ours_inputs, sdk_args):
                request = provider_pb2.CreateRequest(urn=URN, properties=serialize(props))
                response, t, c = measured(emu, lambda: host.call("Create", request))
                created.append((response.id, deserialize(response.properties)))
                times["create"]["ours"].append(t), calls["create"]["ours"].append(c)
                job, t, c = measured(emu, lambda: sdk.submit(constructor, submit_args))
                sdk_jobs.append(job)
                times["create"]["sdk"].append(t), calls["create"]["sdk"].append(c)

            landed = {j.name for j in emu.jobs()}
            sdk_landed = all(job.resource_name in landed for job in sdk_jobs)
            identical = same_job(emu, created[0][0], sdk_jobs[0].resource_name)

            for (id_, state), job in zip(created, sdk_jobs):
                request = provider_pb2.ReadRequest(urn=URN, id=id_, properties=serialize(state))
                _, t, c = measured(emu, lambda: host.call("Read", request))
                times["read"]["ours"].append(t), calls["read"]["ours"].append(c)
                _, t, c = measured(emu, lambda: sdk.aiplatform.CustomJob.get(job.resource_name))
                times["read"]["sdk"].append(t), calls["read"]["sdk"].append(c)

            for (id_, state), job in zip(created, sdk_jobs):
                emu.set_state(id_, "JOB_STATE_SUCCEEDED")
                emu.set_state(job.resource_name, "JOB_STATE_SUCCEEDED")
                request = provider_pb2.DeleteRequest(urn=URN, id=id_, properties=serialize(state))
                _, t, c = measured(emu, lambda: host.call("Delete", request))
                times["delete"]["ours"].append(t), calls["delete"]["ours"].append(c)
                _, t, c = measured(emu, job.delete)
                times["delete"]["sdk"].append(t), calls["delete"]["sdk"].append(c)

            for i in range(running_deletes):
                props = checked(host, scoped(inputs, f"spot-training/dev/running-{i}"))
                response, _ = host.create(URN, props)
                emu.set_state(response.id, "JOB_STATE_RUNNING")
                request = provider_pb2.DeleteRequest(urn=URN, id=response.id, properties=response.properties)
                _, t, c = measured(emu, lambda: host.call("Delete", request))
                times["delete running"]["ours"].append(t), calls["delete running"]["ours"].append(c)
        left = len(emu.jobs())
        parts = breakdown(emu, inputs, warm_ops)

    ms = lambda s: f"{s * 1000:.1f}"  # noqa: E731
    print(f"Cold start to the first create: median of {cold_runs} runs each, interleaved (seconds)")
    print(table(
        ["path", "median s", "min s", "max s"],
        [
            ["ours: host start + Configure + Check + Create", f"{median(cold['ours']):.2f}", f"{min(cold['ours']):.2f}", f"{max(cold['ours']):.2f}"],
            ["SDK: python -c import aiplatform; CustomJob.submit()", f"{median(cold['sdk']):.2f}", f"{min(cold['sdk']):.2f}", f"{max(cold['sdk']):.2f}"],
        ],
    ))
    print(f"ratio ours/SDK (medians): {median(cold['ours']) / median(cold['sdk']):.2f}; of ours, the host was up and "
          f"Configured after {median(ready):.2f} s (median), the rest is Check + Create (its first Create imports "
          "the aiplatform_v1 client)")
    print()
    print(f"Warm latency through the running host vs the SDK in one warm process ({warm_ops} ops each, "
          f"{running_deletes} for a running job; ms)")
    rows = []
    for op in times:
        o, s = times[op]["ours"], times[op]["sdk"]
        sdk_cells = [ms(median(s)), ms(p90(s)), f"{median(o) / median(s):.2f}"] if s else ["n/a", "n/a", "n/a"]
        rows.append([op, ms(median(o)), ms(p90(o)), *sdk_cells, rpc_text(calls[op]["ours"]),
                     rpc_text(calls[op]["sdk"]) if s else "n/a (SDK refuses: FAILED_PRECONDITION)"])
    print(table(["operation", "ours med", "ours p90", "SDK med", "SDK p90", "ratio (med)", "RPCs ours/op", "RPCs SDK/op"], rows))
    print()
    print(f"Where a warm create and read spend their time (medians over {warm_ops} ops; ms)")
    rows = []
    for op in ("create", "read"):
        total = median(parts[op]["total"])
        rpc_names = sorted(k for k in parts[op] if k != "total")
        rpc_total = sum(median(parts[op][k]) for k in rpc_names)
        hop = median(times[op]["ours"]) - total
        rows.append([op, ms(median(times[op]["ours"])), ms(hop), ms(total),
                     ", ".join(f"{k} {ms(median(parts[op][k]))}" for k in rpc_names), ms(total - rpc_total),
                     ms(median(times[op]["sdk"]))])
    print(table(["operation", "through host", "host hop", "provider in-process", "JobService calls (client side)",
                 "provider's own Python", "SDK"], rows))
    print("host hop = through host - provider in-process: gRPC to the host and back, its (de)serializing of the "
          "properties, its cached provider's look-up; the provider's own Python = in-process - its calls.")
    print()
    print(f"SDK's jobs landed in the emulator: {'yes' if sdk_landed else 'NO'}; same CustomJob as ours "
          f"(apart from name, times, the submission and resource labels): {'yes' if identical else 'NO'}; jobs left after the deletes "
          f"(cold-start jobs only): {left}")
    print("Ours does more per create: a ListCustomJobs look-up of the submission label before CreateCustomJob "
          "and one after it (exactly-once, submission.py); per delete: one GetCustomJob state check (cancel only if "
          "active), a ListCustomJobs per region for copies no state names, the DeleteCustomJob LRO awaited; for a "
          "running job also CancelCustomJob and polling (job_service.POLL: first sleep up to 1 s, jittered) until it "
          "is terminal.")


if __name__ == "__main__":
    main()
