"""JobServiceEmulator: the server lifecycle plus the test-control surface over the store."""

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import grpc
from google.cloud import aiplatform_v1

from tests.emulator.servicer import JobServiceServicer
from tests.emulator.store import JobStore


class JobServiceEmulator:
    """A local google.cloud.aiplatform.v1.JobService; point a JobServiceClient's channel at `address`."""

    def __init__(self):
        self._store = JobStore()
        self._server: Optional[grpc.Server] = None
        self._executor: Optional[ThreadPoolExecutor] = None
        self.address: Optional[str] = None

    def start(self) -> str:
        if self._server is not None:
            raise RuntimeError(f"emulator already serving on {self.address}")
        self._executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="job-service-emulator")
        self._server = grpc.server(self._executor, handlers=JobServiceServicer(self._store).handlers())
        port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()
        self.address = f"127.0.0.1:{port}"
        return self.address

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.stop(grace=0).wait()
        self._executor.shutdown(wait=False)  # grpc does not own the executor it was given
        self._server = self._executor = None

    def __enter__(self) -> "JobServiceEmulator":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def calls(self) -> Counter:
        return self._store.calls

    def reset_calls(self) -> None:
        self._store.reset_calls()

    @property
    def hold_cancelling(self) -> bool:
        """While True a cancelled job stays CANCELLING however often it is polled."""
        return self._store.hold_cancelling

    @hold_cancelling.setter
    def hold_cancelling(self, value: bool) -> None:
        self._store.hold_cancelling = value

    @property
    def cancel_polls(self) -> int:
        """GetCustomJob calls that still see CANCELLING; the next Get flips the job to CANCELLED."""
        return self._store.cancel_polls

    @cancel_polls.setter
    def cancel_polls(self, value: int) -> None:
        self._store.cancel_polls = value

    def jobs(self) -> list[aiplatform_v1.CustomJob]:
        return self._store.jobs()

    def job(self, name: str) -> aiplatform_v1.CustomJob:
        return self._store.job(name)

    def set_state(self, name: str, state: str, error: Optional[tuple[int, str]] = None) -> None:
        """Force a state; `error` is (code, message) and is cleared when omitted."""
        self._store.set_state(name, state, error)

    def advance(self, name: str) -> None:
        """One step along QUEUED -> PENDING -> RUNNING -> SUCCEEDED."""
        self._store.advance(name)

    def remove(self, name: str) -> None:
        """Delete out of band, as if from the console."""
        self._store.remove(name)
