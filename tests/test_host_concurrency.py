"""Issue 21 (4): the dynamic provider host serves several calls at once on threads of
one process, and no call's outcome depends on what the others do. The tests drive
the SDK's host over gRPC, as the engine does, with calls in flight together; two run
in-process what a host cannot be made to show on demand (a race inside one function)
or what needs no host (reading the environment).

Ordering, not timing: where a call must not wait behind another, it is asserted to
answer while the other is still seen waiting (in the emulator, or on a socket).
"""

from __future__ import annotations

import importlib.util
import logging
import socket
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from pulumi.runtime.proto import provider_pb2

from components.spot_job import reporting
from components.spot_job.client import quota_pacing
from tests.program import one_job_inputs
from tests.provider_host import BUSY, JOB_TYPE, ProviderHost, deserialize, serialize
from tests.test_host_threads import GUARD, until

ENGINE_STEPS = 8  # calls the test keeps in flight at once: more than the host's 4 threads


def urn(name: str) -> str:
    return f"urn:pulumi:dev::spot-training::{JOB_TYPE}::{name}"


@pytest.fixture(scope="module")
def program_inputs():
    return one_job_inputs()


def job(program_inputs: dict, name: str, **changes) -> dict:
    return {**program_inputs, "submissionScope": f"spot-training/dev/{name}", "displayName": name, **changes}


def failure(call) -> str:
    """What the CLI prints for a call that fails: the host's gRPC error details."""
    with pytest.raises(grpc.RpcError) as failed:
        call()
    return failed.value.details()


# --- a user error is one clean line, a bug keeps its traceback ---------------------------


def test_user_errors_stay_one_line_and_bugs_keep_their_traceback_whatever_runs_beside_them(emulator, program_inputs):
    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address, **BUSY}) as host:
        inputs = deserialize(host.check(urn("denied"), {}, job(program_inputs, "denied")).inputs)
        state = deserialize(host.create(urn("denied"), inputs).properties)
        emulator.deny_project("acme-ml-dev")  # every read of that job is now refused: a user error

        def user_error(_: int) -> str:
            return failure(lambda: host.read(urn("denied"), state["jobName"], state))

        def provider_bug(_: int) -> str:
            # A state no version writes (an attempt whose name is not a job name), of a job in a
            # project not denied: the provider fails on it after its calls to Vertex, as a bug does.
            other = {**state, "project": "acme-ml-other", "onDelete": "delete", "history": [{"jobName": "projects/x"}],
                     "jobName": state["jobName"].replace("acme-ml-dev", "acme-ml-other")}
            return failure(lambda: host.delete(urn("bug"), other["jobName"], other))

        def host_bug(_: int) -> str:
            # Not the provider's code at all: the SDK's host fails on a request without a provider.
            return failure(lambda: host.stub.Create(provider_pb2.CreateRequest(urn=urn("x"), properties=serialize({}))))

        rounds = 6
        with ThreadPoolExecutor(ENGINE_STEPS) as steps:  # in flight together, in the engine's mixed order
            calls = [(kind, steps.submit(call, i)) for i in range(rounds)
                     for kind, call in (("clean", user_error), ("bug", provider_bug), ("clean", user_error), ("bug", host_bug))]
            clean = [c.result() for kind, c in calls if kind == "clean"]
            bugs = [b.result() for kind, b in calls if kind == "bug"]
        user_error(0)
        afterwards = host_bug(0)  # nothing a clean error did stays behind for the next failure

    for message in clean:
        assert "Traceback" not in message and message.count("\n") <= 1, message
        assert "roles/aiplatform.viewer" in message
    for message in [*bugs, afterwards]:
        assert "Traceback (most recent call last)" in message, message
    assert sum("is not a CustomJob name" in m for m in bugs) == rounds and sum("KeyError" in m for m in bugs) == rounds


# --- every line the provider writes, written once ----------------------------------------


def test_the_first_calls_racing_each_other_print_every_line_once(emulator, program_inputs):
    names = [f"job-{i}" for i in range(ENGINE_STEPS)]
    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address, **BUSY}) as host:
        def replaced(name: str) -> None:  # the host's first calls: each diff says its job is replaced
            olds = job(program_inputs, name)
            assert host.diff(urn(name), name, olds, {**olds, "rerun": "2"}).replaces

        with ThreadPoolExecutor(ENGINE_STEPS) as steps:
            list(steps.map(replaced, names))
        said = host.log
    for name in names:
        assert said.count(f"{name}: will be submitted again") == 1, said


@pytest.fixture
def first_report():
    """`reporting` as a host process has it before its first call (a copy of the module of its own,
    so this process's stays as it is): no handler attached yet, and threads that switch at nearly
    every bytecode, as in tests/busy_host."""
    log = logging.getLogger(reporting.LOGGER)
    kept = list(log.handlers)
    switch = sys.getswitchinterval()

    def fresh():
        for handler in list(log.handlers):
            log.removeHandler(handler)
        spec = importlib.util.spec_from_file_location("first_report", reporting.__file__)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    sys.setswitchinterval(1e-6)
    try:
        yield fresh, log
    finally:
        sys.setswitchinterval(switch)
        for handler in list(log.handlers):
            log.removeHandler(handler)
        for handler in kept:
            log.addHandler(handler)


def test_the_stderr_handler_is_attached_once_however_many_first_calls_race(first_report):
    """The host test above cannot make its first calls meet in the attach (they reach it a few ms
    apart); here the host's 4 threads are released into it together, round after round."""
    fresh, log = first_report
    attached = []
    for _ in range(20):
        first, start = fresh(), threading.Barrier(4)

        def first_call(module, barrier: threading.Barrier) -> None:
            barrier.wait()
            module.to_stderr()

        threads = [threading.Thread(target=first_call, args=(first, start)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        attached.append(len(log.handlers))
    assert attached == [1] * 20


# --- a diff or a read never waits behind calls that wait ---------------------------------


def test_a_diff_and_a_read_answer_while_creates_wait_for_the_submission_quota(emulator, program_inputs):
    # One submission a minute, and a quota minute of 30 real seconds: after the first create, every
    # other one waits in the host for the quota.
    scale = 2
    quotas = {"submissionsPerMinute": 1}
    creates = 4  # as many as the host has threads
    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address, quota_pacing.TIME_SCALE_ENV: str(scale)}) as host:
        inputs = deserialize(host.check(urn("known"), {}, job(program_inputs, "known", quotas=quotas)).inputs)
        known = deserialize(host.create(urn("known"), inputs).properties)  # the quota's one slot of this minute
        emulator.reset_calls()

        def create(i: int) -> None:
            name = f"burst-{i}"
            host.create(urn(name), deserialize(host.check(urn(name), {}, job(program_inputs, name, quotas=quotas)).inputs))

        steps = ThreadPoolExecutor(creates)
        try:
            for i in range(creates):
                steps.submit(create, i)
            # Each create looked for an earlier submission of its job, and now waits for a submission slot.
            assert until(lambda: emulator.calls["ListCustomJobs"] == creates)
            diff = host.diff(urn("known"), known["jobName"], known, inputs)
            read = host.read(urn("known"), known["jobName"], known)
            assert emulator.calls["CreateCustomJob"] == 0  # answered while every create still waited
        finally:
            host.__exit__()  # the waiting creates fail with the host gone
            steps.shutdown(wait=True)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_NONE and read.id == known["jobName"]


# --- one region's endpoint that does not answer holds up no other region -----------------


def test_a_region_whose_endpoint_does_not_answer_holds_up_no_other_regions_first_connect(emulator, program_inputs):
    with socket.socket() as silent:  # accepts connections and never speaks gRPC: the connect hangs
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        silent.settimeout(GUARD)  # a host that never connects fails the test instead of hanging it
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        env = {
            "AIPLATFORM_EMULATOR_HOST": emulator.address,
            "SPOT_TRAINING_EMULATOR_REGION_HOSTS": f"us-east1={address}",
            "SPOT_TRAINING_CONNECT_TIMEOUT": "10",
        }
        with ProviderHost(env) as host, ThreadPoolExecutor(2) as steps:
            east = job(program_inputs, "east", location="us-east1")
            east_inputs = deserialize(host.check(urn("east"), {}, east).inputs)
            central_inputs = deserialize(host.check(urn("central"), {}, job(program_inputs, "central")).inputs)
            stuck = steps.submit(failure, lambda: host.create(urn("east"), east_inputs))
            connection, _ = silent.accept()  # the host is connecting to us-east1's endpoint now
            with connection:
                created = host.create(urn("central"), central_inputs)
                assert not stuck.done()  # us-central1 connected and submitted while us-east1 still hung
                assert created.id.startswith("projects/acme-ml-dev/locations/us-central1/customJobs/")
            message = stuck.result()
    assert f"no connection to {address}" in message and "Traceback" not in message



def test_a_regions_own_emulator_address_is_read_only_against_the_emulator(monkeypatch):
    from components.spot_job.client import job_service  # the Google client: imported by the tests that use it

    monkeypatch.setenv(job_service.EMULATOR_REGION_HOSTS_ENV, "us-east1=127.0.0.1:1")
    monkeypatch.delenv(job_service.EMULATOR_HOST_ENV, raising=False)
    assert job_service.endpoint("us-east1") == "us-east1-aiplatform.googleapis.com"  # a real stack goes to Google
    monkeypatch.setenv(job_service.EMULATOR_HOST_ENV, "127.0.0.1:2")
    assert (job_service.endpoint("us-east1"), job_service.endpoint("us-central1")) == ("127.0.0.1:1", "127.0.0.1:2")
    monkeypatch.setenv(job_service.EMULATOR_REGION_HOSTS_ENV, "us-east1")
    with pytest.raises(job_service.VertexError, match="SPOT_TRAINING_EMULATOR_REGION_HOSTS='us-east1': 'us-east1' is not region=host:port"):
        job_service.endpoint("us-east1")
