"""Records what a version of spot-training leaves in a user's state, for the upgrade tests.

    uv run python -m tests.upgrades.record v1    # writes tests/upgrades/v1.json

Run it once per released state format, with that version checked out: it drives
the program (under Pulumi's mocks) and the real dynamic provider host against
the emulator, as `pulumi up` would, and keeps, per scenario, the resource's
inputs (with the `__provider` blob), its id and outputs as the engine stores
them, and each CustomJob the version submitted as Vertex AI holds it (labels
included). tests/test_upgrades.py then replays those states with HEAD.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from google.cloud import aiplatform_v1
from google.protobuf import json_format

from tests.emulator import JobServiceEmulator
from tests.program import ROOT, one_job_inputs
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize

HERE = Path(__file__).resolve().parent
URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"


def _job(emulator: JobServiceEmulator, name: str) -> dict:
    return json_format.MessageToDict(aiplatform_v1.CustomJob.pb(emulator.job(name)))


def record() -> dict:
    inputs = one_job_inputs()
    scenarios = {}
    with JobServiceEmulator() as emulator, ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address}) as host:
        checked = deserialize(host.check(URN, {}, inputs).inputs)
        # A job submitted and refreshed once: the common state.
        created = host.create(URN, checked)
        emulator.set_state(created.id, "JOB_STATE_RUNNING")
        state = deserialize(host.read(URN, created.id, deserialize(created.properties)).properties)
        scenarios["running"] = {"id": created.id, "inputs": checked, "outputs": state, "jobs": [_job(emulator, created.id)]}

        # A job preempted and resubmitted by the policy: attempt 2, with history.
        preempted_inputs = {**checked, "rerun": "preempted"}
        created = host.create(URN, preempted_inputs)
        emulator.preempt(created.id)
        failed = deserialize(host.read(URN, created.id, deserialize(created.properties)).properties)
        state = deserialize(host.update(URN, created.id, failed, preempted_inputs).properties)
        scenarios["resubmitted"] = {
            "id": created.id,
            "inputs": preempted_inputs,
            "outputs": state,
            "jobs": [_job(emulator, created.id), _job(emulator, state["jobName"])],
        }
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return {"recordedAt": commit, "urn": URN, "scenarios": scenarios}


def main(argv: list[str]) -> int:
    [version] = argv
    path = HERE / f"{version}.json"
    path.write_text(json.dumps(record(), indent=2, sort_keys=True) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
