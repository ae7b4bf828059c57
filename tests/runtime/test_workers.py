"""Several workers: the chief (first replica of the first pool) writes, every replica reads."""

import json

import pytest
import spot_runtime
from spot_runtime.cluster import is_chief


def cluster_spec(pool, index):
    return json.dumps(
        {
            "cluster": {"workerpool0": ["cmle-training-workerpool0-0:2222"], "workerpool1": ["w1-0:2222", "w1-1:2222"]},
            "environment": "cloud",
            "task": {"type": pool, "index": index},
            "job": "{}",
        }
    )


def tf_config(kind, index, cluster):
    return json.dumps({"cluster": {name: ["h:1"] for name in cluster}, "task": {"type": kind, "index": index}})


@pytest.mark.parametrize(
    ("environ", "chief"),
    [
        ({}, True),
        ({"CLUSTER_SPEC": cluster_spec("workerpool0", 0)}, True),
        ({"CLUSTER_SPEC": cluster_spec("workerpool1", 0)}, False),
        ({"CLUSTER_SPEC": cluster_spec("workerpool1", 1)}, False),
        ({"TF_CONFIG": tf_config("chief", 0, ["chief", "worker"])}, True),
        ({"TF_CONFIG": tf_config("master", 0, ["master", "worker"])}, True),
        ({"TF_CONFIG": tf_config("worker", 0, ["chief", "worker"])}, False),
        ({"TF_CONFIG": tf_config("worker", 0, ["worker"])}, True),
        ({"TF_CONFIG": tf_config("worker", 1, ["worker"])}, False),
        ({"TF_CONFIG": tf_config("ps", 0, ["chief", "worker", "ps"])}, False),
        ({"TF_CONFIG": tf_config("evaluator", 0, ["chief", "evaluator"])}, False),
        # Vertex sets both for TensorFlow; CLUSTER_SPEC decides.
        ({"CLUSTER_SPEC": cluster_spec("workerpool1", 0), "TF_CONFIG": tf_config("chief", 0, ["chief"])}, False),
    ],
)
def test_the_chief_is_the_first_replica_of_the_first_pool(environ, chief):
    assert is_chief(environ) is chief


def test_a_cluster_spec_that_is_not_json_is_named():
    with pytest.raises(spot_runtime.CheckpointError, match="environment variable CLUSTER_SPEC is not the JSON object"):
        spot_runtime.Checkpointer.from_environment(environ={"CLUSTER_SPEC": "{workerpool0"})


def test_a_worker_writes_nothing_and_reads_what_the_chief_wrote(place):
    worker = place.checkpointer(environ={"CLUSTER_SPEC": cluster_spec("workerpool1", 0), "CLOUD_ML_JOB_ID": "9"})
    assert worker.is_chief is False
    assert worker.restore() is None
    worker.save(100, {"w.bin": b"from a worker"})
    assert {key for key in place.keys() if not key.endswith("/")} == set()  # no checkpoint, no progress record

    chief = place.checkpointer(environ={"CLUSTER_SPEC": cluster_spec("workerpool0", 0), "CLOUD_ML_JOB_ID": "9"})
    assert chief.is_chief is True
    chief.restore()
    chief.save(100, {"w.bin": b"from the chief"})
    before = {key: place.read(key) for key in place.keys()}

    restored = worker.restore()
    assert restored is not None and restored.step == 100 and restored.files == {"w.bin": b"from the chief"}
    worker.save(200, {"w.bin": b"from a worker"})
    assert {key: place.read(key) for key in place.keys()} == before  # not even the progress record changed
