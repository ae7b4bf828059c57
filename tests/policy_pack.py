"""The policy pack (policy/), started and driven as the Pulumi CLI does.

`pulumi preview --policy-pack policy` runs `python -u -m pulumi.policy <engine> .`
in policy/ with the pack's own virtualenv (policy/.venv: pulumi-policy pins
protobuf 5, this project's Google libraries need 6). The pack prints its port,
then serves the Analyzer gRPC interface; the engine sends it each resource's
inputs (unknowns as the SDK's sentinel strings) and reads back diagnostics.
The protocol is the SDK's, so this side uses the main project's stubs.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from typing import Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from tests.program import ROOT

POLICY_DIR = ROOT / "policy"
PYTHON = POLICY_DIR / ".venv" / "bin" / "python"
STACKS_DIR_ENV = "SPOT_TRAINING_STACKS_DIR"  # where the pack reads stack settings; default ../stacks
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # how the engine sends a string not known during preview

_LEVELS = {value: name.lower() for name, value in analyzer_pb2.EnforcementLevel.items()}
_LEVEL_VALUES = {name: value for value, name in _LEVELS.items()}


def serialize(props: dict[str, Any]) -> struct_pb2.Struct:
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(rpc.serialize_properties(props, {}))
    finally:
        loop.close()


def urn(type_: str, name: str, stack: str = "dev") -> str:
    return f"urn:pulumi:{stack}::spot-training::{type_}::{name}"


class PolicyPackHost:
    def __init__(self, env: dict[str, str] | None = None) -> None:
        self._env = env or {}
        self.process: subprocess.Popen | None = None
        self.stub: analyzer_pb2_grpc.AnalyzerStub | None = None

    def __enter__(self) -> "PolicyPackHost":
        if not PYTHON.exists():
            raise RuntimeError(
                f"{PYTHON} is missing: the policy pack has its own environment; "
                "run `uv sync --locked --directory policy` (as .ci/run does)"
            )
        self.process = subprocess.Popen(
            [str(PYTHON), "-u", "-m", "pulumi.policy", "127.0.0.1:0", "."],
            cwd=POLICY_DIR,
            # Only what the test says: not a SPOT_TRAINING_STACKS_DIR of the caller's shell.
            env={**{k: v for k, v in os.environ.items() if k != STACKS_DIR_ENV}, **self._env},
            stdout=subprocess.PIPE,
        )
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            self.process.kill()
            raise RuntimeError(f"the policy pack did not start (its stderr is above); it printed {line!r}")
        self._channel = grpc.insecure_channel(f"127.0.0.1:{int(line)}")
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self._channel)
        return self

    def __exit__(self, *_: object) -> None:
        self._channel.close()
        self.process.kill()
        self.process.wait()

    def analyze(self, type_: str, name: str, props: dict[str, Any], stack: str = "dev") -> list[tuple[str, str, str]]:
        """(policyName, message, enforcement level) of each diagnostic the pack reports for one resource."""
        response = self.stub.Analyze(
            analyzer_pb2.AnalyzeRequest(type=type_, name=name, urn=urn(type_, name, stack), properties=serialize(props))
        )
        return [(d.policyName, d.message, _LEVELS[d.enforcementLevel]) for d in response.diagnostics]

    def info(self) -> analyzer_pb2.AnalyzerInfo:
        return self.stub.GetAnalyzerInfo(empty_pb2.Empty())

    def levels(self) -> dict[str, str]:
        """Each policy's default enforcement level, as GetAnalyzerInfo reports it."""
        return {p.name: _LEVELS[p.enforcementLevel] for p in self.info().policies}

    def configure(self, policy_config: dict[str, str]) -> None:
        """What `--policy-pack-config` sends: policy name -> enforcement level. Replaces any earlier config."""
        self.stub.Configure(
            analyzer_pb2.ConfigureAnalyzerRequest(
                policyConfig={
                    name: analyzer_pb2.PolicyConfig(enforcementLevel=_LEVEL_VALUES[level])
                    for name, level in policy_config.items()
                }
            )
        )
