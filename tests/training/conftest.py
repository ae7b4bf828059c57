from __future__ import annotations

import pytest

from tests.training import trainer
from tests.training.bucket_place import BucketPlace
from tests.training.local_place import LocalPlace
from tests.training.trainer import ARGS, INTERVAL, STEPS


@pytest.fixture(params=["local", "bucket"])
def place(request, tmp_path):
    """Where the job's checkpoints and model go: a local directory, or the emulated bucket (gs://)."""
    if request.param == "local":
        return LocalPlace(tmp_path)
    emulator = request.getfixturevalue("gcs")
    return BucketPlace(emulator.client())


@pytest.fixture(scope="session")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """The model files of one uninterrupted run with ARGS, in a local directory."""
    local = LocalPlace(tmp_path_factory.mktemp("uninterrupted"))
    done = trainer.run(local.env(job_id="1"), ARGS)
    assert done.checkpointed() == list(range(INTERVAL, STEPS + 1, INTERVAL)), done.transcript()
    return local.model_files()
