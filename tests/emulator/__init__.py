"""An in-process Vertex AI JobService that the real aiplatform_v1 client talks to over gRPC."""

from tests.emulator.emulator import JobServiceEmulator
from tests.emulator.lifecycle import STOCKOUT_ERROR

__all__ = ["JobServiceEmulator", "STOCKOUT_ERROR"]
