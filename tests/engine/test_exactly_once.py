"""Exactly once under the real CLI, against a distributed JobService, with the settle time the docs promise.

tests/test_exactly_once.py drives the provider host alone; here `pulumi up` runs
both jobs of the engine tests' stack through the dynamic provider host the
engine starts, while the emulator answers the first create of each job as
Google's front end may (create_lands_late, list_lag, a lost answer). The
settle time is the default (docs/lifecycle.md: 20 s, covering a late landing
and a late list of up to 10 s each, 12 s together), not the suite's 1 s.
"""

from __future__ import annotations

import grpc
import pytest

from components.spot_job.model import states, submission_labels
from components.spot_job.protocol import submission

pytestmark = pytest.mark.engine

FAULTS = {
    "each create lands 10 s after a DEADLINE_EXCEEDED": lambda emu: emu.create_lands_late(10, calls=[1, 2]),
    "the list shows each job 10 s after it landed 2 s late": lambda emu: (
        emu.list_lag(10),
        emu.create_lands_late(2, calls=[1, 2]),
    ),
    "each create's answer is lost (UNAVAILABLE after it took effect)": lambda emu: emu.inject(
        "CreateCustomJob", grpc.StatusCode.UNAVAILABLE, calls=[1, 2], after_apply=True
    ),
}


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_an_up_through_an_uncertain_create_submits_each_job_once(engine_project, monkeypatch, fault):
    project, emulator = engine_project, engine_project.emulator
    monkeypatch.delenv(submission.SETTLE_ENV, raising=False)  # the default the docs promise, not the suite's
    project.stack()
    fault(emulator)

    lines: list[str] = []
    result = project.stack().up(color="never", on_output=lines.append, on_error=lines.append)
    output = "\n".join(lines)

    assert result.summary.result == "succeeded", output
    assert emulator.calls["CreateCustomJob"] == 2, output  # no second create for either job
    active = [j for j in emulator.jobs() if states.is_active(j.state.name)]
    keys = [j.labels[submission_labels.SUBMISSION_LABEL] for j in active]
    assert len(active) == 2 and len(set(keys)) == 2, [(j.display_name, j.state.name) for j in emulator.jobs()]
    assert {r["outputs"]["jobName"] for r in project.job_resources()} == {j.name for j in active}
    # What the user reads: the uncertain answer, and the job the look found, adopted.
    assert "the submission may still land, so it is looked for (up to 20s)" in output, output
    assert all(f"adopted {j.name}" in output for j in active), output

    assert project.stack().destroy(color="never").summary.result == "succeeded"
    assert [j for j in emulator.jobs() if states.is_active(j.state.name)] == []
