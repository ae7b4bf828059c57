"""Every job of a stack as the CustomJob request the provider will submit, offline.

    uv run python -m offline.render dev             # a summary table, then each request body
    uv run python -m offline.render dev --out out/  # one <team>-<job>.json per job, and its curl command

No credentials, no Pulumi CLI: the real program runs under OfflineMocks, and
each job's body comes from spec.submission, the function the provider submits
with, so what is printed is what Vertex AI receives. Values only Google Cloud
knows are marked: a team image (`${images.NAME}`) already pushed appears by its
tag (the deploy pins it to the digest that tag points to), one the stack builds
by a zero digest; an image URI written literally is submitted as written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi

from offline.mocks import UNBUILT_DIGEST, OfflineMocks
from offline.program import SECRET_PLACEHOLDER, UnknownStack, engine_view, run, secure_keys, stack_config

JOB_TYPE_SUFFIX = "SpotTrainingJob"
ENDPOINT = "https://{location}-aiplatform.googleapis.com/v1/{parent}/customJobs"
# As Google's "Use Spot VMs for training" submits a request.json.
CURL = (
    'curl -X POST -H "Authorization: Bearer $(gcloud auth print-access-token)" '
    '-H "Content-Type: application/json; charset=utf-8" -d @{path} "{url}"'
)


@dataclass(frozen=True)
class RenderedJob:
    team: str
    job: str
    parent: str
    body: dict[str, Any]  # the CreateCustomJob request body, submission label included
    secret_paths: list[str] = ()  # values shown as SECRET_PLACEHOLDER: set at deploy time from the encrypted config
    # Images shown by their tag that the deploy resolves to a digest: those written `${images.NAME}`.
    pinned_images: frozenset[str] = frozenset()

    @property
    def url(self) -> str:
        return ENDPOINT.format(location=self.parent.split("/")[3], parent=self.parent)


def render(stack: str) -> list[RenderedJob]:
    """The stack's jobs, in the order the program registers them."""
    from components.spot_job import spec  # after the mocks exist: it is the program's own module

    mocks = run(stack_config(stack), stack, OfflineMocks(), secret_keys=secure_keys(stack))
    rendered = []
    for resource in mocks.of_type(JOB_TYPE_SUFFIX):
        inputs = {k: v for k, v in engine_view(resource.inputs).items() if not k.startswith("__")}
        parent, _, body = spec.submission(inputs)
        team = (inputs.get("labels") or {}).get("team", "")
        rendered.append(
            RenderedJob(team, resource.name.removeprefix(f"{team}-"), parent, body, inputs.get("secretPaths") or [], frozenset(mocks.pinned))
        )
    return rendered


def summary(jobs: list[RenderedJob]) -> str:
    header = ("TEAM", "JOB", "MACHINES", "ACCELERATORS", "STRATEGY", "IMAGE")
    rows = [header] + [
        (j.team, j.job, _machines(j.body), _accelerators(j.body), j.body["jobSpec"]["scheduling"]["strategy"], _image(j.body))
        for j in jobs
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def deploy_time_values(jobs: list[RenderedJob]) -> list[str]:
    """What the printed bodies show in place of a value only a deploy can know."""
    notes = []
    for j in jobs:
        for i, pool in enumerate(j.body["jobSpec"]["workerPoolSpecs"]):
            image = (pool.get("containerSpec") or {}).get("imageUri", "")
            if image.endswith("@" + UNBUILT_DIGEST):
                notes.append(f"{j.team}/{j.job} pool {i}: {image.split('@')[0]} is built and pushed by the deploy; its digest is known then")
            elif image in j.pinned_images:
                notes.append(f"{j.team}/{j.job} pool {i}: {image} is pinned by the deploy to the digest its tag points to")
            elif image and "@sha256:" not in image and "/vertex-ai/" not in image:
                notes.append(
                    f"{j.team}/{j.job} pool {i}: {image} is submitted as written, not pinned: only ${{images.NAME}} "
                    "references are resolved to a digest; add the image to the team's images: and write ${images.NAME}"
                )
        notes += [f"{j.team}/{j.job}: {path} is secret, shown as {SECRET_PLACEHOLDER}; the deploy decrypts it" for path in j.secret_paths]
    return notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offline.render", description=__doc__.split("\n")[0])
    parser.add_argument("stack", help="a stack of stacks/, e.g. dev")
    parser.add_argument("--out", type=Path, help="write <team>-<job>.json request bodies into this directory")
    args = parser.parse_args(argv)
    try:
        jobs = render(args.stack)
    except UnknownStack as error:
        parser.error(str(error))
    except pulumi.RunError as error:  # ConfigError, StackFileError: the message lists every failure; a traceback adds nothing
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(summary(jobs))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for j in jobs:
        text = json.dumps(j.body, indent=2, sort_keys=True)
        if args.out:
            path = args.out / f"{j.team}-{j.job}.json"
            path.write_text(text + "\n")
            print(f"\n# {j.team}/{j.job}\n{CURL.format(path=path, url=j.url)}")
        else:
            print(f"\n# {j.team}/{j.job}: POST {j.url}\n{text}")
    for note in deploy_time_values(jobs):
        print(f"note: {note}", file=sys.stderr)
    return 0


def _pools(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in body["jobSpec"]["workerPoolSpecs"] if p]


def _machines(body: dict[str, Any]) -> str:
    return " + ".join(f"{p.get('replicaCount', 0)}x {p['machineSpec']['machineType']}" for p in _pools(body))


def _accelerators(body: dict[str, Any]) -> str:
    total: Counter = Counter()
    for p in _pools(body):
        machine = p["machineSpec"]
        if machine.get("acceleratorType"):
            total[machine["acceleratorType"]] += p.get("replicaCount", 0) * machine.get("acceleratorCount", 0)
    return ", ".join(f"{n}x {kind}" for kind, n in total.items()) or "-"


def _image(body: dict[str, Any]) -> str:
    chief = _pools(body)[0]
    if "containerSpec" in chief:
        return chief["containerSpec"]["imageUri"].rsplit("/", 1)[-1]
    package = chief["pythonPackageSpec"]
    return f"{package['executorImageUri'].rsplit('/', 1)[-1]} ({package['pythonModule']})"


if __name__ == "__main__":
    sys.exit(main())
