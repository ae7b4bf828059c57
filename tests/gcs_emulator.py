"""GcsEmulator: fake-gcs-server, the Cloud Storage stand-in, as a subprocess on a free loopback port.

The binary is the sandbox's (sandbox/fake_gcs.py): built from the Go module
proxy by tools/gcs/build.sh into .engine/bin/, by whichever test asks first.

google-cloud-storage takes STORAGE_EMULATOR_HOST as its endpoint verbatim,
scheme included: `http://127.0.0.1:PORT` (`.url`). Without the scheme
(`.host`) the client fails with requests' InvalidSchema before it sends
anything (tests/test_gcs_emulator.py shows both).
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
import urllib.request

from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

from sandbox import fake_gcs

BINARY = fake_gcs.BINARY
START_TIMEOUT = 10.0  # seconds; it answers in about 50 ms
STOP_TIMEOUT = 5.0
# fake-gcs-server could not be built or started: the message says why and what to run.
EmulatorUnavailable = fake_gcs.Unavailable
ensure_binary = fake_gcs.ensure_binary


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class GcsEmulator:
    """fake-gcs-server in memory on 127.0.0.1: `.url` for STORAGE_EMULATOR_HOST, `.client()`, `.bucket(name)`."""

    def __init__(self) -> None:
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        # What it writes (errors only, -log-level error), shown when it fails to start.
        self._stderr = tempfile.TemporaryFile()

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """What STORAGE_EMULATOR_HOST must hold: the client uses it as the endpoint, scheme and all."""
        return f"http://{self.host}"

    def __enter__(self) -> GcsEmulator:
        binary = ensure_binary()
        # Its own FAKE_GCS_* variables would override nothing given as a flag, but
        # FAKE_GCS_DATA (seed objects) would: keep the environment's out.
        env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_GCS_")}
        # The port is free when chosen but not held: another worker may take it
        # before the server binds it, which it reports by exiting. Try a few.
        for _ in range(5):
            self.port = _free_port()
            self.process = subprocess.Popen(
                [
                    str(binary),
                    "-scheme", "http",
                    "-host", "127.0.0.1",
                    "-port", str(self.port),
                    "-backend", "memory",
                    # The base of every object's mediaLink: the client downloads a blob it
                    # got from a listing or get_blob from there, so it must be this server.
                    # (A resumable session's Location follows the request's Host instead.)
                    "-external-url", self.url,
                    "-log-level", "error",
                ],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
            )
            if self._wait_until_it_answers():
                return self
        self._stderr.seek(0)
        raise EmulatorUnavailable(f"fake-gcs-server did not start: {self._stderr.read().decode(errors='replace')}")

    def _wait_until_it_answers(self) -> bool:
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False  # exited: the port was taken, or a flag refused
            try:
                with urllib.request.urlopen(f"{self.url}/storage/v1/b", timeout=1) as answer:
                    if answer.status == 200:
                        return True
            except OSError:
                time.sleep(0.01)
        self._stop()
        return False

    def _stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()  # it stops on SIGTERM at once
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __exit__(self, *_: object) -> None:
        self._stop()
        self._stderr.close()
        # It starts no children: once it has exited, nothing of it is left running.
        assert self.process is not None and self.process.returncode is not None, "fake-gcs-server still running"

    def client(self) -> storage.Client:
        """The real google-cloud-storage client pointed at this server (with or without STORAGE_EMULATOR_HOST)."""
        return storage.Client(
            project="test",
            credentials=AnonymousCredentials(),
            client_options={"api_endpoint": self.url},
        )

    def bucket(self, name: str) -> storage.Bucket:
        """A new, empty bucket on this server."""
        return self.client().create_bucket(name)
