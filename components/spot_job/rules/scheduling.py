"""jobSpec.scheduling: the strategy's current names.

googleapis/googleapis google/cloud/aiplatform/v1/custom_job.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f), Scheduling.Strategy: ON_DEMAND and
LOW_COST are `[deprecated = true]`, still valid values. Refusing them is this
project's own choice (docs/rules.md, "The project's own choices"): the
provider's Spot lifecycle (stockout resubmission, the fallback ladder, the
pack's job-spot-strategy) is built on SPOT, STANDARD and FLEX_START, and
LOW_COST ("making potential use of spot resources") mixes Spot and on-demand
capacity in a way no source describes. The error names the current value.
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#scheduling

maxWaitDuration with any strategy but FLEX_START is refused: Google's pipeline
components for Vertex, kubeflow/pipelines
components/google-cloud/google_cloud_pipeline_components/container/v1/custom_job/remote_runner.py
(7b70c7b95f6832772efd6fd0029a4024491a0f44, create_custom_job_with_client),
say "max_wait_duration is acceptable only when strategy is FLEX_START in
CustomJob API" and delete the field before CreateCustomJob for any other
strategy. spot-training submits what the spec says, so it refuses the field
instead of dropping it silently: the user learns it from `validate` or the
preview, not from the API's refusal of a submission. An unset strategy is SPOT here (the default), so
the field alone is refused too. custom_job.proto's Scheduling.max_wait_duration
agrees ("if the scheduling strategy is set to [Strategy.DWS_FLEX_START]").

Not refused, no source saying Vertex refuses it: a timeout of 0s (left to
Google).
"""

from __future__ import annotations

from components.spot_job.rules.known import Fail, Known

DEPRECATED_STRATEGIES = {
    "ON_DEMAND": "is deprecated by Vertex AI (custom_job.proto); use STANDARD, the same on-demand capacity",
    "LOW_COST": "is deprecated by Vertex AI (custom_job.proto); use SPOT: spot-training runs its Spot lifecycle "
    "(resubmission, fallback) on SPOT, STANDARD and FLEX_START only",
}


def scheduling(k: Known, fail: Fail) -> None:
    values = k.get(k.spec(), "scheduling", dict) or {}
    strategy = k.text(values, "strategy")
    if strategy in DEPRECATED_STRATEGIES:
        fail("jobSpec.scheduling.strategy", f"{strategy} {DEPRECATED_STRATEGIES[strategy]}")


def max_wait_duration(k: Known, fail: Fail) -> None:
    values = k.get(k.spec(), "scheduling", dict) or {}
    strategy = k.strategy()
    if k.has(values, "maxWaitDuration") and strategy is not None and strategy != "FLEX_START":
        fail(
            "jobSpec.scheduling.maxWaitDuration",
            f"Vertex AI takes maxWaitDuration only with strategy FLEX_START (Google's pipeline components remove it "
            f"for any other strategy before submitting), and this job's strategy is {strategy}: remove "
            "maxWaitDuration, or use strategy FLEX_START",
        )
