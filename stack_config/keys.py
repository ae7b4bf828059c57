"""The keys of the stack config: the namespace's own, and those of a team's and a job's entries."""

from __future__ import annotations

import difflib
from collections.abc import Collection

NS = "spot-training"
# The keys of this namespace: the program's, and the policy pack's `policy`.
# `quotas`: Vertex AI's request quotas per region, for the provider's pacing (quotas.py).
# `prices`: the stack's own prices per hour (prices.py), over the shipped table (components/pricing/).
STACK_KEYS = ("environment", "deployers", "teams", "extraRegions", "quotas", "policy", "prices")

# Config key -> (dataclass field, type) of the component it overrides.
BUCKET_KEYS = {
    "name": ("name", str),
    "packageRetentionDays": ("package_retention_days", int),
    "outputRetentionDays": ("output_retention_days", int),
    "abortIncompleteUploadDays": ("abort_incomplete_upload_days", int),
    "versioning": ("versioning", bool),
    "kmsKeyName": ("kms_key_name", str),
    "forceDestroy": ("force_destroy", bool),
    "protect": ("protect", bool),
}
SERVICE_ACCOUNT_KEYS = {
    "accountId": ("account_id", str),
}
REPOSITORY_KEYS = {
    "repositoryId": ("repository_id", str),
    "keepRecentVersions": ("keep_recent_versions", int),
    "deleteUntaggedAfterDays": ("delete_untagged_after_days", int),
    "cleanupDryRun": ("cleanup_dry_run", bool),
    "immutableTags": ("immutable_tags", bool),
    # Regions a job's fallback ladder moves it to, each with a remote repository of the team's images.
    "replicaRegions": ("replica_regions", list),
}
# Labels the stack puts on every job itself: a user's would be overwritten.
STACK_LABELS = ("team", "environment")
# Keys of a job entry that belong to the CustomJob, not to its jobSpec.
BODY_KEYS = ("displayName", "labels", "encryptionSpec")
# The key of a job entry that names a CustomJob started outside the stack, to adopt instead of submitting.
IMPORT_KEY = "import"
# Keys of a job entry that steer the provider: config key -> SpotTrainingJobArgs field.
KNOB_KEYS = {
    "rerun": "rerun",
    "resubmission": "resubmission",
    "waitFor": "wait_for",
    "waitTimeout": "wait_timeout",
    "onDelete": "on_delete",
    "deleteTimeout": "delete_timeout",
    "replaceOrder": "replace_order",
}


def hint(key: str, known: Collection[str], what: str) -> str:
    """`did you mean 'waitFor'?` for the known key closest to `key` (case aside), else every known key."""
    by_lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(key.lower(), list(by_lower), n=1)
    return f"did you mean {by_lower[close[0]]!r}?" if close else f"{what} takes {', '.join(known)}"


def unknown_keys(keys: Collection[str]) -> list[str]:
    """A misspelt key is not silently ignored: `spot-training:deployer` would drop every deployer's actAs."""
    failures = []
    for key in sorted(k for k in keys if k.startswith(f"{NS}:")):
        name = key.split(":", 1)[1]
        if name in STACK_KEYS:
            continue
        close = difflib.get_close_matches(name, STACK_KEYS, n=1)
        hint = f"did you mean {NS}:{close[0]}?" if close else f"the keys are {', '.join(f'{NS}:{k}' for k in STACK_KEYS)}"
        failures.append(f"{key}: unknown key; {hint}")
    return failures


def set_instead(key: str, keys: Collection[str]) -> str:
    """`; gcp:regoin is set: did you mean gcp:region?` when a key of the same namespace close to the
    missing `key` is set (another namespace's keys are not ours to refuse, but a typo is worth naming)."""
    namespace = key.split(":", 1)[0] + ":"
    close = difflib.get_close_matches(key, [k for k in keys if k.startswith(namespace) and k != key], n=1)
    return f"; {close[0]} is set: did you mean {key}?" if close else ""
