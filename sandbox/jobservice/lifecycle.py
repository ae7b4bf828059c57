"""Scripted job lifecycles, and the error Vertex ends a job with when its Spot VMs are taken back."""

from collections.abc import Iterable

from google.cloud import aiplatform_v1

S = aiplatform_v1.JobState
# A JobState value: proto-plus enums are IntEnums, whose members the type checker sees as ints.
State = int
JobError = tuple[int, str]  # google.rpc.Status (code, message)
Step = tuple[State, JobError | None]
StepSpec = str | tuple[str, JobError]

# Code 8 is RESOURCE_EXHAUSTED. Compute Engine restarts a preempted Spot VM itself; Vertex fails the
# job only once it has given up, so the message carries the restart count and the STOCKOUT reason.
STOCKOUT_ERROR: JobError = (
    8,
    "The replica workerpool0-0 could not be scheduled: Spot VM capacity was reclaimed (STOCKOUT). "
    "The job was restarted 6 times and failed.",
)
PREEMPTION: Step = (S.JOB_STATE_FAILED, STOCKOUT_ERROR)


def parse_steps(specs: Iterable[StepSpec]) -> tuple[Step, ...]:
    """"JOB_STATE_RUNNING", ("JOB_STATE_FAILED", (code, message)) or "STOCKOUT" -> (state, error)."""
    steps = tuple(_parse(spec) for spec in specs)
    if not steps:
        raise ValueError("a script needs at least one step")
    return steps


def _parse(spec: StepSpec) -> Step:
    if spec == "STOCKOUT":
        return PREEMPTION
    name, error = (spec, None) if isinstance(spec, str) else spec
    if name not in S.__members__:
        raise ValueError(f"unknown job state {name!r} in script step {spec!r}")
    state: State = S.__members__[name]
    return state, error


def stockout_error(replica: str, restarts: int) -> JobError:
    """The error of a job whose Spot VMs were taken back for good, after `restarts` restarts."""
    return (
        8,
        f"The replica {replica} could not be scheduled: Spot VM capacity was reclaimed (STOCKOUT). "
        f"The job was restarted {restarts} times and failed.",
    )
