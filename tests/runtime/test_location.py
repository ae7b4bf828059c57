"""Where AIP_CHECKPOINT_DIR leads: the /gcs mount, the Cloud Storage client, a local dir; and the errors."""

import pytest
import spot_runtime
from spot_runtime import GcsStore, LocalStore, MountStore

from tests.runtime import places


def test_a_gs_uri_goes_through_the_mount_when_the_bucket_is_mounted(tmp_path):
    place = places.mount(tmp_path)
    ckpt = place.checkpointer()
    assert isinstance(ckpt.store, MountStore)
    ckpt.save(100, {"w.bin": b"1"})
    # Written as files under <mount_root>/BUCKET/PATH: what Cloud Storage FUSE uploads as gs://BUCKET/PATH/...
    assert (place.root / "step-000000000100" / "w.bin").read_bytes() == b"1"
    assert "gs://acme-ml-dev-vision-output/jobs/train-7/checkpoints/" in ckpt.location


def test_a_gs_uri_goes_through_the_client_when_the_bucket_is_not_mounted(tmp_path, gcs):
    place = places.bucket(tmp_path, gcs)
    (tmp_path / "gcs" / "another-bucket").mkdir(parents=True)  # a mount, but not of this bucket
    ckpt = spot_runtime.Checkpointer.from_environment(
        environ={"AIP_CHECKPOINT_DIR": place.directory}, mount_root=str(tmp_path / "gcs")
    )
    assert isinstance(ckpt.store, GcsStore)
    ckpt.save(100, {"w.bin": b"1"})
    assert place.read("step-000000000100/w.bin") == b"1"
    # The folder objects Cloud Storage FUSE shows as directories when it does not infer them.
    names = {blob.name for blob in place.bucket.list_blobs()}
    assert {"jobs/", "jobs/train-7/", "jobs/train-7/checkpoints/", "jobs/train-7/checkpoints/step-000000000100/"} <= names


def test_no_variable_means_a_local_checkpoints_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ckpt = spot_runtime.Checkpointer.from_environment(environ={})
    assert isinstance(ckpt.store, LocalStore) and ckpt.location == str(tmp_path / "checkpoints")
    assert ckpt.is_chief and ckpt.job_id is None
    ckpt.save(3, {"w.bin": b"3"})
    assert (tmp_path / "checkpoints" / "step-000000000003" / "MANIFEST.json").is_file()


def test_a_checkpoint_dir_that_is_a_file_is_named(tmp_path):
    path = tmp_path / "checkpoints"
    path.write_text("not a dir")
    with pytest.raises(spot_runtime.CheckpointError, match=f"checkpoint dir {path} is not a directory"):
        spot_runtime.Checkpointer(path)


def test_a_checkpoint_dir_under_a_file_is_unreadable_and_named(tmp_path):
    (tmp_path / "file").write_text("x")
    ckpt = spot_runtime.Checkpointer(tmp_path / "file" / "checkpoints")
    # Root reads any directory whatever its mode, so a path through a file is the unreadable dir here.
    with pytest.raises(spot_runtime.CheckpointError, match=r"cannot read checkpoint dir .*/file/checkpoints: Not a directory"):
        ckpt.restore()
    with pytest.raises(spot_runtime.CheckpointError, match=r"cannot \w+ .*/file/checkpoints/step-000000000001/"):
        ckpt.save(1, {"w.bin": b"1"})


@pytest.mark.parametrize(
    ("directory", "message"),
    [
        ("s3://bucket/checkpoints", "only gs:// URIs and local paths are supported"),
        ("gs:///checkpoints", "names no bucket"),
    ],
)
def test_a_checkpoint_dir_of_another_kind_is_named(directory, message, tmp_path):
    with pytest.raises(spot_runtime.CheckpointError, match=message) as raised:
        spot_runtime.Checkpointer.from_environment(environ={"AIP_CHECKPOINT_DIR": directory}, mount_root=str(tmp_path))
    assert directory in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_a_missing_bucket_is_named(tmp_path, gcs):
    ckpt = spot_runtime.Checkpointer("gs://no-such-bucket/ckpt", mount_root=str(tmp_path))
    with pytest.raises(spot_runtime.CheckpointError, match="gs://no-such-bucket/ckpt"):
        ckpt.restore()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"keep": 0}, "keep at least 1"), ({"interval": 0}, "interval=0"), ({"total_steps": -1}, "total_steps=-1")],
)
def test_settings_out_of_range_are_named(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        spot_runtime.Checkpointer(tmp_path, **kwargs)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"../x": b"1"}, "must be a plain file name"),
        ({"MANIFEST.json": b"1"}, "reserved by the runtime"),
        ({"w.bin": "text"}, "must be bytes, not str"),
        ({}, "non-empty mapping"),
    ],
)
def test_files_a_save_cannot_take_are_named(tmp_path, files, message):
    with pytest.raises(ValueError, match=message):
        spot_runtime.Checkpointer(tmp_path).save(1, files)
    assert not any(tmp_path.iterdir())  # nothing half-written
