"""An in-process Vertex AI JobService that the real aiplatform_v1 client talks to over gRPC."""

from sandbox.jobservice.lifecycle import STOCKOUT_ERROR
from tests.emulator.emulator import JobServiceEmulator

__all__ = ["JobServiceEmulator", "STOCKOUT_ERROR"]
