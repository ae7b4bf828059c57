"""Shared by the emulator benchmarks (operations, api_calls, burst): a job's
real inputs, the dynamic provider host driven over gRPC, and small statistics.

The inputs are what the program registers for a one-job stack (the
`program_inputs` fixture of tests/test_dynamic_host.py: `tests.program.render`
under Pulumi's mocks), `__provider` blob included. `Host` is
tests/provider_host.ProviderHost (`python -m pulumi.dynamic` from the repo
root, as the engine starts it, then Configure) with requests serialized by the
benchmark before the clock starts, so a timing covers the gRPC call only: what
the host and the provider do, as the engine waits for it.
"""

from __future__ import annotations

import asyncio
import copy
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from tests.program import ROOT, one_job_inputs
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::resnet"
RPCS = ("GetCustomJob", "ListCustomJobs", "CreateCustomJob", "CancelCustomJob", "DeleteCustomJob", "GetOperation")
# Vertex AI's per-region quotas (the provider's own notes, components/spot_job/client/job_service.py).
CRUD_PER_MINUTE = 600
SUBMISSIONS_PER_MINUTE = 60

_loop = asyncio.new_event_loop()  # one loop for every request (tests.provider_host makes one per call)


def program_inputs() -> dict[str, Any]:
    """What the program registered for one job (vision/resnet, dev), `__provider` blob included."""
    return one_job_inputs()


def scoped(inputs: dict[str, Any], scope: str) -> dict[str, Any]:
    """The same job as another resource: its own submissionScope, so its own submission key."""
    return {**copy.deepcopy(inputs), "submissionScope": scope}


def serialize(props: dict[str, Any]) -> struct_pb2.Struct:
    return _loop.run_until_complete(rpc.serialize_properties(props, {}))


class Host(ProviderHost):
    """The dynamic provider host; each call returns (response, seconds the gRPC call took).

    Started as ProviderHost starts it, except that its stderr (the provider's log lines, which
    `pulumi up` would show) goes to a temporary file instead of the benchmark's output: `log()`.
    """

    # What the engine runs; a benchmark's baseline may run the same host with a setting changed.
    command: tuple[str, ...] = ("-m", "pulumi.dynamic")

    def __enter__(self) -> Host:
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, *self.command],
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

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.process.stdout.close()
        self._stderr.close()

    def log(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def call(self, method: str, request: Any) -> tuple[Any, float]:
        stub = getattr(self.stub, method)
        start = time.perf_counter()
        response = stub(request)
        return response, time.perf_counter() - start

    def check(self, urn: str, olds: dict, news: dict):
        return self.call("Check", provider_pb2.CheckRequest(urn=urn, olds=serialize(olds), news=serialize(news)))

    def create(self, urn: str, props: dict):
        return self.call("Create", provider_pb2.CreateRequest(urn=urn, properties=serialize(props)))

    def read(self, urn: str, id_: str, props: dict):
        return self.call("Read", provider_pb2.ReadRequest(urn=urn, id=id_, properties=serialize(props)))

    def diff(self, urn: str, id_: str, olds: dict, news: dict):
        return self.call("Diff", provider_pb2.DiffRequest(urn=urn, id=id_, olds=serialize(olds), news=serialize(news)))

    def delete(self, urn: str, id_: str, props: dict):
        return self.call("Delete", provider_pb2.DeleteRequest(urn=urn, id=id_, properties=serialize(props)))


def checked(host: Host, inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs as Check returns them, which is what the engine then creates with."""
    response, _ = host.check(URN, {}, inputs)
    if list(response.failures):
        raise RuntimeError(f"check failed: {list(response.failures)}")
    return deserialize(response.inputs)


def p90(samples: Iterable[float]) -> float:
    ordered = sorted(samples)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]


def median(samples: Iterable[float]) -> float:
    return statistics.median(samples)


def table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def calls_of(counter) -> dict[str, int]:
    """The emulator's call counter as {rpc: n} over RPCS (zeros included), plus any other rpc seen."""
    counts = {rpc_name: counter.get(rpc_name, 0) for rpc_name in RPCS}
    counts.update({k: v for k, v in counter.items() if k not in counts})
    return counts
