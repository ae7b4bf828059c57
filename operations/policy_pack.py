"""The policy pack (policy/), started and driven as the Pulumi CLI does, and a
stack's rendered resources checked by it offline (`spot-training policy`).

`pulumi preview --policy-pack policy` runs `python -u -m pulumi.policy <engine> .`
in policy/ with the pack's own virtualenv (policy/.venv: pulumi-policy pins
protobuf 5, this project's Google libraries need 6). The pack prints its port,
then serves the Analyzer gRPC interface; the engine sends it each resource's
inputs (unknowns as the SDK's sentinel strings) with Analyze, then the whole
stack with AnalyzeStack, and reads back diagnostics. The protocol is the
SDK's, so this side uses the main project's stubs.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

if TYPE_CHECKING:  # for annotations only: _engine_monitor imports the mocks when it runs
    from pulumi.runtime.mocks import MockMonitor, Mocks

ROOT = Path(__file__).resolve().parent.parent
POLICY_DIR = ROOT / "policy"
POLICY_DIR_ENV = "SPOT_TRAINING_POLICY_DIR"  # a pack elsewhere than policy/ (its .venv beside it)
PYTHON = POLICY_DIR / ".venv" / "bin" / "python"
STACKS_DIR_ENV = "SPOT_TRAINING_STACKS_DIR"  # where the pack reads stack settings; default ../stacks
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # how the engine sends a string not known during preview
SYNC = "uv sync --locked --directory policy"

_LEVELS = {value: name.lower() for name, value in analyzer_pb2.EnforcementLevel.items()}
_LEVEL_VALUES = {name: value for value, name in _LEVELS.items()}


class PackMissing(RuntimeError):
    """The pack's own environment (policy/.venv) is not there."""


def serialize(props: dict[str, Any]) -> struct_pb2.Struct:
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(rpc.serialize_properties(props, {}))
    finally:
        loop.close()


def urn(type_: str, name: str, stack: str = "dev") -> str:
    return f"urn:pulumi:{stack}::spot-training::{type_}::{name}"


def policy_dir() -> Path:
    return Path(os.environ[POLICY_DIR_ENV]) if os.environ.get(POLICY_DIR_ENV) else POLICY_DIR


class PolicyPackHost:
    def __init__(self, env: dict[str, str] | None = None, directory: Path | None = None) -> None:
        self._env = env or {}
        self.directory = directory or policy_dir()
        self.process: subprocess.Popen[bytes] | None = None
        self.stub: analyzer_pb2_grpc.AnalyzerStub | None = None

    def require(self) -> Path:
        """The pack's Python; PackMissing, saying what to run, when its environment is not there."""
        python = self.directory / ".venv" / "bin" / "python"
        if not python.exists():
            raise PackMissing(f"{python} is missing: the policy pack has its own environment; run `{SYNC}` (as .ci/run does)")
        return python

    def __enter__(self) -> PolicyPackHost:
        python = self.require()
        self.process = process = subprocess.Popen(
            [str(python), "-u", "-m", "pulumi.policy", "127.0.0.1:0", "."],
            cwd=self.directory,
            # Only what the caller says: not a SPOT_TRAINING_STACKS_DIR of the caller's shell.
            env={**{k: v for k, v in os.environ.items() if k != STACKS_DIR_ENV}, **self._env},
            stdout=subprocess.PIPE,
        )
        assert process.stdout is not None  # stdout=PIPE
        line = process.stdout.readline()
        if not line.strip().isdigit():
            process.kill()
            process.wait()
            raise RuntimeError(f"the policy pack did not start (its stderr is above); it printed {line!r}")
        self._channel = grpc.insecure_channel(f"127.0.0.1:{int(line)}")
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self._channel)
        return self

    def __exit__(self, *_: object) -> None:
        self._channel.close()
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    def _analyzer(self) -> analyzer_pb2_grpc.AnalyzerStub:
        if self.stub is None:
            raise RuntimeError("the policy pack is not running: use it as `with PolicyPackHost() as pack:`")
        return self.stub

    def analyze(self, type_: str, name: str, props: dict[str, Any], stack: str = "dev", urn_: str | None = None) -> list[tuple[str, str, str]]:
        """(policyName, message, enforcement level) of each diagnostic the pack reports for one resource."""
        response = self._analyzer().Analyze(
            analyzer_pb2.AnalyzeRequest(type=type_, name=name, urn=urn_ or urn(type_, name, stack), properties=serialize(props))
        )
        return [(d.policyName, d.message, _LEVELS[d.enforcementLevel]) for d in response.diagnostics]

    def analyze_stack(self, resources: list[tuple[str, str, str, dict[str, Any]]]) -> list[tuple[str, str, str, str]]:
        """(policyName, message, enforcement level, urn) of each diagnostic of the pack's stack policies,
        given every resource as (type, name, urn, props)."""
        response = self._analyzer().AnalyzeStack(
            analyzer_pb2.AnalyzeStackRequest(
                resources=[
                    analyzer_pb2.AnalyzerResource(type=t, name=n, urn=u, properties=serialize(p)) for t, n, u, p in resources
                ]
            )
        )
        return [(d.policyName, d.message, _LEVELS[d.enforcementLevel], d.urn) for d in response.diagnostics]

    def info(self) -> analyzer_pb2.AnalyzerInfo:
        # The generated gRPC stub's methods are untyped; GetAnalyzerInfo's reply is an AnalyzerInfo.
        info: analyzer_pb2.AnalyzerInfo = self._analyzer().GetAnalyzerInfo(empty_pb2.Empty())
        return info

    def levels(self) -> dict[str, str]:
        """Each policy's default enforcement level, as GetAnalyzerInfo reports it."""
        return {p.name: _LEVELS[p.enforcementLevel] for p in self.info().policies}

    def configure(self, policy_config: dict[str, str]) -> None:
        """What `--policy-pack-config` sends: policy name -> enforcement level. Replaces any earlier config."""
        self._analyzer().Configure(
            analyzer_pb2.ConfigureAnalyzerRequest(
                policyConfig={
                    name: analyzer_pb2.PolicyConfig(enforcementLevel=_LEVEL_VALUES[level])
                    for name, level in policy_config.items()
                }
            )
        )


def _engine_monitor(mocks: Mocks) -> MockMonitor:
    """The SDK's mock monitor, naming resources as the engine does: the URN's
    type is the chain of every parent's type below the stack (the mock keeps
    only the nearest parent's, and counts the stack as one)."""
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.settings import get_project, get_stack

    class EngineUrns(MockMonitor):
        def make_urn(self, parent: str, type_: str, name: str) -> str:
            if parent and parent.split("::")[2] != "pulumi:pulumi:Stack":
                type_ = parent.split("::")[2] + "$" + type_
            return "urn:pulumi:" + "::".join([get_stack(), get_project(), type_, name])

    return EngineUrns(mocks)


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str  # mandatory, advisory (the pack's default, or its config's)
    urn: str
    message: str

    @property
    def name(self) -> str:
        return self.urn.rsplit("::", 1)[-1]


@dataclass(frozen=True)
class Report:
    stack: str
    resources: int
    violations: list[Violation]
    unknown: list[str]  # values sent as unknown, as a preview sends them: only a deploy knows them

    @property
    def mandatory(self) -> list[Violation]:
        return [v for v in self.violations if v.level == "mandatory"]


def check(stack: str) -> Report:
    """Every resource the program registers for `stack` under the offline mocks,
    sent to the pack as the engine sends them; raises what the program raises,
    and PackMissing without policy/.venv."""
    from offline.mocks import UNBUILT_DIGEST, OfflineMocks
    from offline.program import run, secure_keys, stack_config
    from stack_config import stack_file

    config = stack_config(stack)  # UnknownStack first, then a missing pack environment: before the program runs
    host = PolicyPackHost({STACKS_DIR_ENV: str(stack_file.stacks_dir())})
    host.require()
    mocks = OfflineMocks()
    monitor = _engine_monitor(mocks)
    run(config, stack, mocks, monitor, secret_keys=secure_keys(stack))
    urns = {(u.split("::")[2].split("$")[-1], u.split("::")[3]): u for u in monitor.resources}

    unknown: list[str] = []

    def as_preview(value: Any, where: str) -> Any:
        # A stand-in for a value only Google Cloud knows (an image's digest) goes as preview sends it: unknown.
        if isinstance(value, str) and (value in mocks.pinned or value.endswith("@" + UNBUILT_DIGEST)):
            unknown.append(f"{where}: {value}")
            return UNKNOWN
        if isinstance(value, dict):
            return {k: as_preview(v, where) for k, v in value.items()}
        if isinstance(value, list):
            return [as_preview(v, where) for v in value]
        return value

    resources = [
        (r.typ, r.name, urns.get((r.typ, r.name)) or urn(r.typ, r.name, stack), as_preview(dict(r.inputs), r.name))
        for r in mocks.resources
    ]
    resources.sort(key=lambda r: r[2])
    violations = []
    with host as pack:
        for type_, name, urn_, props in resources:
            violations += [Violation(p, level, urn_, m) for p, m, level in pack.analyze(type_, name, props, stack, urn_)]
        violations += [Violation(p, level, u, m) for p, m, level, u in pack.analyze_stack(resources)]
    violations.sort(key=lambda v: (v.level != "mandatory", v.urn, v.policy))
    return Report(stack, len(resources), violations, sorted(set(unknown)))
