"""What a job's Outputs cost the program, and that nothing of them is lost.

A Pulumi program does not end until every Output the SDK tracks is resolved, and the SDK
waits for them with one `asyncio.wait(FIRST_COMPLETED)` over all those pending each time
one completes: a cost of pending Outputs times completions, quadratic in a stack's jobs,
on the event loop that also sends the registrations. A job's own property Outputs (an input
or a declared output each) are taken off that list (resource._untrack), so a job costs it
no more than a bare dynamic resource does. These tests run the program under the SDK's
mocks: a job's outputs still resolve, export and feed other resources, and a failed
registration still fails the program.
"""

from __future__ import annotations

import pulumi
import pytest
from pulumi.runtime.settings import SETTINGS

from bench.baseline import BareJob
from bench.engine import job_inputs
from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs


class Mocks(pulumi.runtime.Mocks):
    def __init__(self, fail: str = "") -> None:
        self.fail = fail  # a resource whose registration the engine refuses
        self.registered: dict[str, dict] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        if args.name == self.fail:
            raise RuntimeError(f"the engine refused {args.name}")
        self.registered[args.name] = args.inputs
        outputs = dict(args.inputs)
        if args.typ.endswith("SpotTrainingJob"):
            outputs.update(state="JOB_STATE_QUEUED", jobName=f"projects/p/locations/us-central1/customJobs/{args.name}")
        return f"{args.name}-id", outputs

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


@pytest.fixture
def mocks():
    found = Mocks()
    pulumi.runtime.set_mocks(found, project="spot-training", stack="dev", preview=False)
    return found


def job(i: int) -> SpotTrainingJob:
    inputs = job_inputs(i)
    return SpotTrainingJob(
        inputs["displayName"],
        SpotTrainingJobArgs(job_spec=inputs["jobSpec"], project=inputs["project"], location=inputs["location"]),
    )


def tracked_by(make) -> int:
    before = len(SETTINGS.outputs)
    make()
    return len(SETTINGS.outputs) - before


def test_a_job_adds_no_more_outputs_to_wait_for_than_a_bare_dynamic_resource(mocks):
    ours = tracked_by(lambda: job(0))
    bare = tracked_by(lambda: BareJob("bare", job_inputs(1)))
    assert ours <= bare, f"a job adds {ours} Outputs the program waits for, a bare dynamic resource {bare}"


@pulumi.runtime.test
def test_a_jobs_outputs_still_resolve_and_feed_what_uses_them(mocks):
    made = job(0)
    # Another resource's input made from a job's output: registered with the resolved value.
    follower = BareJob("follower", {"upstream": made.jobName, "project": made.project})

    def check(values):
        state, name, project, _ = values
        assert state == "JOB_STATE_QUEUED"
        assert name == "projects/p/locations/us-central1/customJobs/bench-job-0"
        assert project == job_inputs(0)["project"]
        assert mocks.registered["follower"]["upstream"] == name

    return pulumi.Output.all(made.state, made.jobName, made.project, follower.urn).apply(check)


def test_a_refused_registration_still_fails_the_program():
    pulumi.runtime.set_mocks(Mocks(fail="bench-job-0"), project="spot-training", stack="dev", preview=False)

    @pulumi.runtime.test
    def program():
        job(0)  # nothing of the program uses its outputs: the registration's own failure must surface

    with pytest.raises(Exception, match="the engine refused bench-job-0"):
        program()
