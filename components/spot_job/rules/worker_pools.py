"""The worker pools: one to four (chief, workers, parameter servers,
evaluators), the chief one replica, every set pool one task and a machine.

CustomJobSpec.workerPoolSpecs: "All worker pools except the first one are
optional and can be skipped by providing an empty value." (googleapis/googleapis
google/cloud/aiplatform/v1/custom_job.proto, f8291d2b89f0017ab078a4c7378069bae5686f6f).
The four pools in order (chief, worker, server, evaluator), "Chief spec replica
count cannot be greater than 1", a pool without replicas sent as {}:
googleapis/python-aiplatform google/cloud/aiplatform/utils/worker_spec_utils.py
(91cc8ce4f015771b5d8c43c8764ea9dc9abdb216).
https://cloud.google.com/vertex-ai/docs/training/distributed-training#cluster-spec-format
https://docs.cloud.google.com/gemini-enterprise-agent-platform/reference/rest/Shared.Types/CustomJobSpec
"""

from __future__ import annotations

from components.spot_job.rules.known import Fail, Known

MAX_WORKER_POOLS = 4  # chief, workers, parameter servers, evaluators


def worker_pools(k: Known, fail: Fail) -> None:
    if not k.has(k.inputs, "jobSpec"):
        return fail("jobSpec", "is required: the CustomJobSpec with workerPoolSpecs")
    spec = k.spec()
    pools = k.get(spec, "workerPoolSpecs", list)
    if k.is_unknown(spec.get("workerPoolSpecs")):
        return
    if not pools:
        return fail("jobSpec.workerPoolSpecs", "is required: at least one worker pool")
    if len(pools) > MAX_WORKER_POOLS:
        fail("jobSpec.workerPoolSpecs", f"has {len(pools)} pools; Vertex AI takes at most {MAX_WORKER_POOLS}")
    for i, pool in k.pools():
        path = f"jobSpec.workerPoolSpecs[{i}]"
        if not pool:
            if i == 0:
                fail(path, "the first worker pool (the chief) must not be empty")
            continue  # an empty pool only holds the position of a later one
        tasks = [t for t in ("containerSpec", "pythonPackageSpec") if k.has(pool, t)]
        if len(tasks) != 1:
            which = "both" if tasks else "neither"
            fail(path, f"needs exactly one of containerSpec or pythonPackageSpec, has {which}")
        if not k.has(k.get(pool, "machineSpec", dict), "machineType") and not k.is_unknown(pool.get("machineSpec")):
            fail(f"{path}.machineSpec.machineType", "is required")
        replicas = k.number(pool, "replicaCount")
        if replicas is not None and replicas < 0:
            fail(f"{path}.replicaCount", f"must not be negative, got {replicas}")
        elif i == 0 and replicas is not None and replicas != 1:
            fail(f"{path}.replicaCount", f"the first worker pool runs the chief and takes replicaCount 1, got {replicas}")


def zero_replicas(k: Known, fail: Fail) -> None:
    """A pool that is set must run at least one replica: Vertex refuses
    replicaCount 0 there. A pool to skip is written empty ({}), the placeholder
    the API documents."""
    for i, pool in k.pools():
        if i > 0 and pool and k.number(pool, "replicaCount") == 0:
            fail(
                f"jobSpec.workerPoolSpecs[{i}].replicaCount",
                "must be at least 1; to leave this pool out, write the whole pool as {} (an empty placeholder)",
            )
