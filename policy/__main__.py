"""The spot-training policy pack: `pulumi preview --policy-pack policy`.

The CLI runs this file from policy/ (`python -u -m pulumi.policy <engine> .`, in
policy/.venv), so the policies are plain sibling modules, one per entity.
PolicyPack serves the Analyzer gRPC interface and prints its port.
"""

import artifact_registry
import buckets
import budget
import iam
import jobs
import residency
from pulumi_policy import EnforcementLevel, PolicyPack

PolicyPack(
    name="spot-training",
    description="Security (CIS GCP, checkov), data residency and cost rules for the spot-training stacks",
    enforcement_level=EnforcementLevel.MANDATORY,  # each policy also says its own
    policies=[*buckets.POLICIES, *iam.POLICIES, *artifact_registry.POLICIES, *jobs.POLICIES, *residency.POLICIES, *budget.POLICIES],
)
