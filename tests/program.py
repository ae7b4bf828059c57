"""Runs the real `__main__.py` under Pulumi's mocks, with the real SDK classes.

What the program registers is recorded as Pulumi's MockResourceArgs (type,
name, inputs, including a dynamic resource's `__provider` blob), the way a
test would read a `pulumi preview`.
"""

from __future__ import annotations

import hashlib
import json
import runpy
from pathlib import Path

import pulumi
import yaml
from pulumi.runtime.mocks import MockMonitor

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"


class Recorder(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.resources: list[pulumi.runtime.MockResourceArgs] = []
        self.protected: set[str] = set()  # names registered with protect=True
        self.image_digests: dict[str, str] = {}  # "name:tag" -> the digest it points to (a push changes it)

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.resources.append(args)
        state = dict(args.inputs)
        if args.typ.endswith("SpotTrainingJob"):
            state.update(state="JOB_STATE_QUEUED", jobId="1234567890123456789")
            state["consoleUrl"] = "https://console.cloud.google.com/agent-platform/..."
            return f"projects/{state['project']}/locations/{state['location']}/customJobs/1234567890123456789", state
        if args.typ == "gcp:serviceaccount/account:Account":
            # What Google computes for a new service account.
            email = f"{state['accountId']}@{state['project']}.iam.gserviceaccount.com"
            state.update(email=email, name=f"projects/{state['project']}/serviceAccounts/{email}", member=f"serviceAccount:{email}")
        if args.typ == "docker-build:index:Image":
            # The real provider rebuilds when the context's content changes; a new build, a new digest.
            state["digest"] = "sha256:" + _tree_hash(Path(state["context"]["location"]))
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs):
        if args.token == "gcp:organizations/getProject:getProject":
            return {"number": "123456789012", "projectId": args.args.get("projectId")}
        if args.token == "gcp:organizations/getClientConfig:getClientConfig":
            return {"accessToken": "ya29.mock-token", "project": "acme-ml-dev"}
        if args.token == "gcp:artifactregistry/getDockerImage:getDockerImage":
            # Artifact Registry answers a name:tag with the digest it points to now.
            a = args.args
            name, _, tag = a["imageName"].partition(":")
            digest = self.image_digests.get(a["imageName"]) or hashlib.sha256(a["imageName"].encode()).hexdigest()
            path = f"{a['location']}-docker.pkg.dev/{a['project']}/{a['repositoryId']}/{name}"
            return {"selfLink": f"{path}@sha256:{digest}", "name": name, "tags": [tag]}
        return {}

    def protects(self, resource: pulumi.runtime.MockResourceArgs) -> bool:
        return resource.name in self.protected

    def of_type(self, suffix: str) -> list[pulumi.runtime.MockResourceArgs]:
        return [r for r in self.resources if r.typ.endswith(suffix)]


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class RecordingMonitor(MockMonitor):
    """The SDK's mock monitor, also noting the resource options MockResourceArgs leaves out."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(recorder)
        self.recorder = recorder

    def RegisterResource(self, request):
        if request.protect:
            self.recorder.protected.add(request.name)
        return super().RegisterResource(request)


def _set_mocks(recorder: Recorder, stack: str) -> None:
    pulumi.runtime.set_mocks(
        recorder, project="spot-training", stack=stack, preview=False, monitor=RecordingMonitor(recorder)
    )


def stack_config(env: str) -> dict:
    """The `config:` map of stacks/Pulumi.<env>.yaml, as the CLI hands it to a program."""
    document = yaml.safe_load((STACKS / f"Pulumi.{env}.yaml").read_text())
    return document.get("config") or {}


def render(config: dict, stack: str = "dev", recorder: Recorder | None = None) -> Recorder:
    """Runs the program once with `config`; raises what the program raises."""
    recorder = recorder or Recorder()
    _set_mocks(recorder, stack)
    pulumi.runtime.set_all_config(
        {key: value if isinstance(value, str) else json.dumps(value) for key, value in config.items()}
    )

    @pulumi.runtime.test
    def program():
        runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")

    program()
    return recorder


def render_components(build, stack: str = "dev", recorder: Recorder | None = None) -> Recorder:
    """Runs `build()` (which creates components) under the mocks; `build` may return an Output to await."""
    recorder = recorder or Recorder()
    _set_mocks(recorder, stack)
    pulumi.runtime.test(build)()
    return recorder
