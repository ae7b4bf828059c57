"""An in-process Vertex AI JobService that the real aiplatform_v1 client talks to over gRPC."""

from tests.emulator.emulator import JobServiceEmulator

__all__ = ["JobServiceEmulator"]
