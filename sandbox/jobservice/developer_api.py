"""The controls only an emulator has, served beside the JobService on its port: the developer API.

Vertex has no way to preempt a CustomJob's Spot VMs on purpose (Compute Engine
has `gcloud compute instances simulate-maintenance-event` for a VM; Vertex has
nothing): these calls are the sandbox's own, on the gRPC service
`spot_training.sandbox.v1.Developer`, each a google.protobuf.Struct in and out:

- Preempt {job, replica?: "POOL:INDEX", grace: seconds, forGood: bool} -> {message}
- Chaos {every: seconds (0: off), seed, grace} -> {message}: preempt each running SPOT job
  at random times, exponentially distributed around `every`, from a seeded generator
- Describe {} -> {jobs: [{name, simulated, replicas: [{replica, pid}]}], runFor}

A refused call (a job not running, not on Spot) answers FAILED_PRECONDITION
with the reason; the client functions below raise it as DeveloperError.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import json_format, struct_pb2

from sandbox.jobservice.models import JobStore
from sandbox.jobservice.replicas import Place
from sandbox.jobservice.runner import SPOT_GRACE, PreemptRefused, Runner, simulated

SERVICE = "spot_training.sandbox.v1.Developer"


class DeveloperError(RuntimeError):
    """A developer call the sandbox refused or could not answer: the message says why."""


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(value)
    return message


def _plain(message: struct_pb2.Struct) -> dict[str, Any]:
    plain: dict[str, Any] = json_format.MessageToDict(message)
    return plain


class Chaos:
    """Preempts each running SPOT job at random times (the seed fixes which and when, given the same jobs)."""

    def __init__(self, runner: Runner, store: JobStore) -> None:
        self._runner, self._store = runner, store
        self._random = random.Random(0)
        self.every = 0.0
        self.grace = SPOT_GRACE
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._loop, name="sandbox-chaos", daemon=True).start()

    def set(self, every: float, seed: int, grace: float) -> None:
        with self._lock:
            self.every, self.grace = every, grace
            self._random = random.Random(seed)
            self._next.clear()

    def _loop(self) -> None:
        from google.cloud import aiplatform_v1

        while True:
            time.sleep(0.5)
            with self._lock:
                if self.every <= 0:
                    continue
                now = time.monotonic()
                for job in sorted(self._store.jobs(), key=lambda j: j.name):
                    if job.state != aiplatform_v1.JobState.JOB_STATE_RUNNING or job.job_spec.scheduling.strategy != aiplatform_v1.Scheduling.Strategy.SPOT:
                        self._next.pop(job.name, None)
                        continue
                    due = self._next.setdefault(job.name, now + self._random.expovariate(1 / self.every))
                    if now >= due:
                        del self._next[job.name]
                        try:
                            self._runner.preempt(job.name, grace=self.grace)
                        except PreemptRefused:
                            pass  # between attempts: the next draw comes once it runs again


class DeveloperApi:
    def __init__(self, runner: Runner, store: JobStore) -> None:
        self._runner, self._store = runner, store
        self.chaos = Chaos(runner, store)

    def Preempt(self, request: dict[str, Any]) -> dict[str, Any]:
        replica = request.get("replica")
        place = Place.parse(replica) if replica else None
        grace = float(request.get("grace", SPOT_GRACE))
        return {"message": self._runner.preempt(str(request.get("job", "")), place, grace, bool(request.get("forGood")))}

    def Chaos(self, request: dict[str, Any]) -> dict[str, Any]:
        every = float(request.get("every", 0))
        self.chaos.set(every, int(request.get("seed", 0)), float(request.get("grace", SPOT_GRACE)))
        return {"message": f"chaos: every running SPOT job preempted about every {every:g} s" if every > 0 else "chaos: off"}

    def Describe(self, request: dict[str, Any]) -> dict[str, Any]:
        jobs = []
        for job in self._store.jobs():
            rest = json_format.MessageToDict(type(job).pb(job))
            jobs.append({
                "name": job.name, "simulated": simulated(rest),
                "replicas": [{"replica": r, "pid": p} for r, p in self._runner.replicas(job.name)],
            })
        return {"jobs": jobs, "runFor": self._runner.run_for}

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(SERVICE, {
            name: grpc.unary_unary_rpc_method_handler(
                self._call(getattr(self, name)), request_deserializer=struct_pb2.Struct.FromString,
                response_serializer=struct_pb2.Struct.SerializeToString,
            )
            for name in ("Preempt", "Chaos", "Describe")
        })

    @staticmethod
    def _call(method: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[struct_pb2.Struct, grpc.ServicerContext], struct_pb2.Struct]:
        def call(request: struct_pb2.Struct, context: grpc.ServicerContext) -> struct_pb2.Struct:
            try:
                return _struct(method(_plain(request)))
            except (PreemptRefused, ValueError) as refused:
                context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(refused))
                raise  # abort raises; this line is for the type checker

        return call


def call(address: str, method: str, request: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
    """One developer call to the sandbox at `address`; DeveloperError with the sandbox's reason if refused."""
    with grpc.insecure_channel(address) as channel:
        stub = channel.unary_unary(
            f"/{SERVICE}/{method}", request_serializer=struct_pb2.Struct.SerializeToString, response_deserializer=struct_pb2.Struct.FromString,
        )
        try:
            return _plain(stub(_struct(request), timeout=timeout))
        except grpc.RpcError as error:
            code = error.code() if isinstance(error, grpc.Call) else None
            details = error.details() if isinstance(error, grpc.Call) else str(error)
            if code == grpc.StatusCode.UNAVAILABLE:
                raise DeveloperError(f"the sandbox's JobService at {address} does not answer: is the sandbox up?") from None
            raise DeveloperError(details or str(code)) from None
