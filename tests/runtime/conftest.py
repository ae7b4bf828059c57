import pytest

from tests.runtime import places


@pytest.fixture(params=["local", "mount", "bucket"])
def place(request, tmp_path):
    """Each test that takes `place` runs against a local dir, the FUSE-style mount and the emulated bucket."""
    if request.param == "bucket":
        return places.bucket(tmp_path, request.getfixturevalue("gcs"))
    return getattr(places, request.param)(tmp_path)
