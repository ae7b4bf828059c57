"""Two replicas sharing one checkpoint dir, as Vertex runs a job with two worker pools: the chief
(workerpool0, index 0) writes the checkpoints, the progress record and the model; the other
replica (workerpool1, index 0) resumes from the chief's checkpoint and writes nothing.
"""

from __future__ import annotations

import json
import signal

from tests.training.trainer import ARGS, Trainer, interrupted

CLUSTER = {"workerpool0": ["cmle-training-workerpool0-0:2222"], "workerpool1": ["cmle-training-workerpool1-0:2222"]}


def cluster_spec(pool: str) -> str:
    return json.dumps({"cluster": CLUSTER, "environment": "cloud", "task": {"type": pool, "index": 0}})


def snapshot(place) -> tuple[dict[str, set[str]], dict[str, bytes | None]]:
    """The checkpoint dir's folders and files, and the content of every file in it."""
    listing = place.listing()
    contents = {f"{folder}/{name}": place.read_checkpoint_file(f"{folder}/{name}") for folder, names in listing.items() for name in names}
    contents["progress.json"] = place.read_checkpoint_file("progress.json")
    return listing, contents


def test_the_chief_writes_and_the_worker_reads_the_chiefs_checkpoint(place, reference):
    chief = {**place.env(job_id="400"), "CLUSTER_SPEC": cluster_spec("workerpool0")}
    worker = {**place.env(job_id="400"), "CLUSTER_SPEC": cluster_spec("workerpool1")}

    first = interrupted(chief, ARGS, after=250, signum=signal.SIGTERM)
    assert first.process.returncode == 0, first.transcript()
    saved = first.checkpointed()[-1]
    before = snapshot(place)
    assert before[1]["progress.json"] is not None

    replica = Trainer(worker, ARGS)
    assert replica.finish() == 0, replica.transcript()
    assert replica.start_step() == saved  # the chief's checkpoint
    assert replica.checkpointed() == []
    assert replica.lines[-1] == "trained to step 1400/1400; the chief writes the model"
    assert snapshot(place) == before, "the worker wrote to the checkpoint dir"
    assert place.model_files() == {}, "the worker wrote a model"

    last = Trainer(chief, ARGS)
    assert last.finish() == 0, last.transcript()
    assert last.start_step() == saved
    assert place.model_files()["model.npz"] == reference["model.npz"]
