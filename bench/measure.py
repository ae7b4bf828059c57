"""Helpers the benchmarks share: a generated stack config, counting mocks, this process's memory.

Imports pulumi: a parent process that spawns measured children imports bench.stats instead.
"""

from __future__ import annotations

import collections
import resource
from typing import Any

import pulumi

from offline.mocks import OfflineMocks

PROJECT = "acme-ml-bench"
REGION = "us-central1"
DEPLOYER = f"serviceAccount:ci@{PROJECT}.iam.gserviceaccount.com"
DYNAMIC = "pulumi-python:dynamic/"


def team_name(t: int) -> str:
    return f"team{t:02d}"


def job_entry(j: int) -> dict[str, Any]:
    """A GPU container job like dev's resnet-smoke, on the team's pushed image."""
    return {
        "labels": {"purpose": "smoke"},
        "workerPoolSpecs": [
            {
                "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1},
                "replicaCount": 1,
                "containerSpec": {"imageUri": "${images.trainer}", "args": ["--epochs=1", f"--seed={j}"]},
            }
        ],
        "scheduling": {"strategy": "SPOT", "timeout": "7200s"},
        "waitFor": "running",
        "waitTimeout": "900s",
        "rerun": "1",
    }


def stack_config(jobs: int, teams: int) -> dict[str, Any]:
    """A stack config shaped like stacks/Pulumi.dev.yaml: `jobs` jobs spread evenly over `teams` teams.

    One pushed image per team, no packages, no built images.
    """
    per_team, extra = divmod(jobs, teams)
    return {
        "gcp:project": PROJECT,
        "gcp:region": REGION,
        "spot-training:environment": "dev",
        "spot-training:deployers": [DEPLOYER],
        "spot-training:teams": {
            team_name(t): {
                "members": [f"group:{team_name(t)}-ml@acme.example"],
                "images": {"trainer": {"name": "trainer", "tag": "v1"}},
                "jobs": {f"job{j:03d}": job_entry(j) for j in range(per_team + (t < extra))},
            }
            for t in range(teams)
        },
    }


class CountingMocks(OfflineMocks):
    """OfflineMocks that also count the invokes (data sources) the program calls."""

    def __init__(self) -> None:
        super().__init__()
        self.invokes: collections.Counter[str] = collections.Counter()

    def call(self, args: pulumi.runtime.MockCallArgs):
        self.invokes[args.token] += 1
        return super().call(args)


def kind(typ: str) -> str:
    """A resource type, every dynamic resource counted as one kind (ours and the baseline's differ by name)."""
    return "dynamic resource (job)" if typ.startswith(DYNAMIC) else typ


def is_component(typ: str) -> bool:
    """The project's component resources (its own types); everything else reaches a provider."""
    return typ.startswith("spot-training:")


def custom_counts(mocks: OfflineMocks) -> dict[str, int]:
    """Resources per kind that reach a provider (components left out); invokes as `invoke <token>`."""
    counts = collections.Counter(kind(r.typ) for r in mocks.resources if not is_component(r.typ))
    counts.update({f"invoke {token}": n for token, n in getattr(mocks, "invokes", {}).items()})
    return dict(sorted(counts.items()))


def component_count(mocks: OfflineMocks) -> int:
    return sum(1 for r in mocks.resources if is_component(r.typ))


def peak_rss_kb() -> int:
    """This process's peak resident set size so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def rss_kb() -> int:
    """This process's resident set size now, in KiB (Linux /proc)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024



def preload_gcp() -> None:
    """Imports the pulumi_gcp submodules both programs use (pulumi_gcp loads them lazily)."""
    import pulumi_gcp as gcp

    # Touching a member loads the module; the lazy module object alone does not.
    gcp.storage.Bucket, gcp.serviceaccount.Account, gcp.projects.IAMMember  # noqa: B018 (the touch loads them)
    gcp.artifactregistry.Repository, gcp.organizations.get_project_output  # noqa: B018
