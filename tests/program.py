"""Runs the real `__main__.py` under Pulumi's mocks, with the real SDK classes.

What the program registers is recorded as Pulumi's MockResourceArgs (type,
name, inputs, including a dynamic resource's `__provider` blob), the way a
test would read a `pulumi preview`. The Recorder is the offline render's mocks
(offline/mocks.py) answering as Google would after a deploy: every image
pinned to a digest.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pulumi
from google.protobuf import json_format
from pulumi.runtime.mocks import MockMonitor

from offline import program as offline_program
from offline.mocks import OfflineMocks
from offline.program import ROOT, STACKS, stack_config  # noqa: F401 (the tests' names for them)


class Recorder(OfflineMocks):
    project_number = "123456789012"

    def __init__(self) -> None:
        super().__init__()
        self.protected: set[str] = set()  # names registered with protect=True
        self.image_digests: dict[str, str] = {}  # "name:tag" -> the digest it points to (a push changes it)
        self.wire: dict[str, object] = {}  # name -> its inputs as sent to the engine, secrets still marked
        # ("resource", urn, parent urn) and ("outputs", urn) in the order the engine received them.
        self.events: list[tuple[str, ...]] = []
        # urn -> (type, name, parent urn, the former types its aliases name): what the engine matches state by.
        self.registrations: dict[str, tuple[str, str, str, list[str]]] = {}
        self.import_ids: dict[str, str] = {}  # name -> the id the engine was asked to import it as ("" for none)

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        id_, state = super().new_resource(args)
        if args.typ.endswith("SpotTrainingJob"):
            state["consoleUrl"] = "https://console.cloud.google.com/agent-platform/..."
        return id_, state

    def pushed_image(self, path: str, tag: str) -> str:
        # Artifact Registry answers a name:tag with the digest it points to now.
        name = path.rsplit("/", 1)[-1]
        digest = self.image_digests.get(f"{name}:{tag}") or hashlib.sha256(f"{name}:{tag}".encode()).hexdigest()
        return f"{path}@sha256:{digest}"

    def built_digest(self, state: dict) -> str:
        # The real provider rebuilds when the context's content changes; a new build, a new digest.
        return "sha256:" + _tree_hash(Path(state["context"]["location"]))

    def protects(self, resource: pulumi.runtime.MockResourceArgs) -> bool:
        return resource.name in self.protected


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
        self.recorder.wire[request.name] = json_format.MessageToDict(request.object)
        self.recorder.import_ids[request.name] = request.importId
        response = super().RegisterResource(request)
        self.recorder.events.append(("resource", response.urn, request.parent))
        former = [alias.spec.type for alias in request.aliases if alias.HasField("spec") and alias.spec.type]
        self.recorder.registrations[response.urn] = (request.type, request.name, request.parent, former)
        return response

    def RegisterResourceOutputs(self, request):
        self.recorder.events.append(("outputs", request.urn))
        return super().RegisterResourceOutputs(request)


def render(config: dict, stack: str = "dev", recorder: Recorder | None = None, secret_keys: tuple[str, ...] = ()) -> Recorder:
    """Runs the program once with `config` (`secret_keys` as the CLI marks them); raises what the program raises."""
    recorder = recorder or Recorder()
    offline_program.run(config, stack, recorder, RecordingMonitor(recorder), secret_keys)
    return recorder


def render_components(build, stack: str = "dev", recorder: Recorder | None = None) -> Recorder:
    """Runs `build()` (which creates components) under the mocks; `build` may return an Output to await."""
    recorder = recorder or Recorder()
    offline_program.set_mocks(recorder, stack, RecordingMonitor(recorder))
    pulumi.runtime.test(build)()
    return recorder


def one_job_inputs() -> dict:
    """What the program registers for one job (team vision, job resnet, stack dev):
    the docs' Spot request body with the team's defaults, `__provider` blob included."""
    from tests.fixtures import docs_request_body

    config = {
        "gcp:project": "acme-ml-dev",
        "gcp:region": "us-central1",
        "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {"jobs": {"resnet": docs_request_body()["jobSpec"]}}},
    }
    [job] = render(config).of_type("SpotTrainingJob")
    # The team's defaults are Outputs resolved by the engine; the mocks resolve them alike.
    return dict(job.inputs)


def modules_imported_by(statement: str, modules: tuple[str, ...]) -> list[str]:
    """Which of `modules` a fresh interpreter has imported after running `statement` from the project root."""
    import subprocess
    import sys

    probe = f"import sys\n{statement}\nprint('\\n'.join(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return sorted(out.split())
