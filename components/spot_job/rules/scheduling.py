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

Not refused here, no source saying Vertex refuses them: a timeout of 0s (left
to Google), and maxWaitDuration with a strategy other than FLEX_START (ignored
by Vertex; the policy pack's advisory job-spec-advice says so).
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
