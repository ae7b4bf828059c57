"""JobServiceServer: google.cloud.aiplatform.v1.JobService served over gRPC from a JobStore.

Plaintext on a loopback address, no credentials checked: what a client reaches
with AIPLATFORM_EMULATOR_HOST=host:port. Every region is served on the one
address (a job's region is the location in its name). Extra handlers (the
sandbox's developer API) may be served beside the JobService on the same port.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import grpc

from sandbox.jobservice.models import JobStore
from sandbox.jobservice.provider import JobServiceServicer


class PortTaken(OSError):
    """The port asked for is in use: the message names it."""


class JobServiceServer:
    def __init__(self, store: JobStore | None = None, extra_handlers: tuple[grpc.GenericRpcHandler, ...] = ()) -> None:
        self._store = store or JobStore()
        self._extra = extra_handlers
        self._server: grpc.Server | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._stopped: threading.Event | None = None
        self.address: str | None = None

    @property
    def store(self) -> JobStore:
        return self._store

    def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on host:port (0: any free port); the address it serves on. PortTaken if the port is in use."""
        if self._server is not None:
            raise RuntimeError(f"already serving on {self.address}")
        self._executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="job-service")
        self._stopped = threading.Event()  # one per run, so a restart cannot put back to sleep calls a stop woke
        servicer = JobServiceServicer(self._store, self._stopped)
        # so_reuseport off: a second server on a taken port must fail, not share it.
        server = grpc.server(self._executor, handlers=[*servicer.handlers(), *self._extra], options=[("grpc.so_reuseport", 0)])
        try:
            bound = server.add_insecure_port(f"{host}:{port}")
        except RuntimeError:
            bound = 0
        if bound == 0:
            self._executor.shutdown(wait=False)
            self._executor = None
            raise PortTaken(f"port {port} on {host} is in use: pick another (--port) or stop what holds it")
        server.start()
        self._server = server
        self.address = f"{host}:{bound}"
        return self.address

    def stop(self) -> None:
        if self._server is None:
            return
        assert self._stopped is not None and self._executor is not None
        self._stopped.set()  # first, so delayed calls end now instead of holding executor threads
        self._server.stop(grace=0).wait()
        self._executor.shutdown(wait=False)  # grpc does not own the executor it was given
        self._server = self._executor = None

    def wait(self) -> None:
        """Until stop() (from another thread or a signal handler)."""
        if self._server is not None:
            self._server.wait_for_termination()
