"""The Pulumi SDK's dynamic provider host, started and driven as the engine does.

`python -m pulumi.dynamic` is the process the engine runs for every dynamic
resource: it prints its port, then serves the ResourceProvider gRPC interface,
unpickling the provider from each request's `__provider` property.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from operations.policy_pack import serialize  # noqa: F401 (the engine's property encoding; tests import it from here)
from tests.program import ROOT

JOB_TYPE = "pulumi-python:dynamic/spot-training:SpotTrainingJob"
# Environment for a host whose threads interleave at nearly every bytecode (see tests/busy_host).
BUSY = {"PYTHONPATH": str(Path(__file__).parent / "busy_host")}


def deserialize(struct: struct_pb2.Struct) -> dict[str, Any]:
    return rpc.deserialize_properties(struct)


class ProviderHost:
    def __init__(self, env: dict[str, str], python: str = sys.executable) -> None:
        self._env = env
        self._python = python  # another interpreter: the host of a user on another Python
        self.process: subprocess.Popen | None = None
        self.stub: provider_pb2_grpc.ResourceProviderStub | None = None
        # What the host writes to stderr is what `pulumi preview`/`up` shows.
        self._stderr = tempfile.TemporaryFile(mode="w+")

    def __enter__(self) -> ProviderHost:
        # From the project root, as the engine starts it: the pickled provider
        # is a reference to components.spot_job.provider, imported from there.
        self.process = subprocess.Popen(
            [self._python, "-m", "pulumi.dynamic"],
            cwd=ROOT,
            env={**os.environ, **self._env},
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        port = int(self.process.stdout.readline())
        self._channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = provider_pb2_grpc.ResourceProviderStub(self._channel)
        self.stub.Configure(provider_pb2.ConfigureRequest(args=serialize({})))
        return self

    def __exit__(self, *_: object) -> None:
        self._channel.close()
        self.process.kill()
        self.process.wait()
        self._stderr.close()

    def clear_log(self) -> None:
        """Forget what the host wrote so far (the host shares this file's offset, so it writes from 0 again)."""
        self._stderr.seek(0)
        self._stderr.truncate()

    @property
    def log(self) -> str:
        """Everything the host wrote to stderr so far: the lines a user sees in the CLI."""
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read()

    def check(self, urn: str, olds: dict, news: dict) -> provider_pb2.CheckResponse:
        return self.stub.Check(provider_pb2.CheckRequest(urn=urn, olds=serialize(olds), news=serialize(news)))

    def create(self, urn: str, props: dict) -> provider_pb2.CreateResponse:
        return self.stub.Create(provider_pb2.CreateRequest(urn=urn, properties=serialize(props)))

    def read(self, urn: str, id_: str, props: dict) -> provider_pb2.ReadResponse:
        return self.stub.Read(provider_pb2.ReadRequest(urn=urn, id=id_, properties=serialize(props)))

    def diff(self, urn: str, id_: str, olds: dict, news: dict) -> provider_pb2.DiffResponse:
        return self.stub.Diff(provider_pb2.DiffRequest(urn=urn, id=id_, olds=serialize(olds), news=serialize(news)))

    def update(self, urn: str, id_: str, olds: dict, news: dict) -> provider_pb2.UpdateResponse:
        return self.stub.Update(provider_pb2.UpdateRequest(urn=urn, id=id_, olds=serialize(olds), news=serialize(news)))

    def delete(self, urn: str, id_: str, props: dict) -> None:
        self.stub.Delete(provider_pb2.DeleteRequest(urn=urn, id=id_, properties=serialize(props)))
