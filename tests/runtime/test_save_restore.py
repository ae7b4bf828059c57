"""Save and restore against a local dir, the FUSE-style mount and the emulated bucket."""

import hashlib
import json
import logging
import re

import pytest
import spot_runtime


def files(step):
    # Content that differs per step, so a test can tell which checkpoint it got back.
    return {"model.npz": f"weights at {step}".encode() * 50, "rng.json": json.dumps({"step": step}).encode()}


def test_nothing_to_restore_starts_at_zero_and_says_so_in_the_progress_record(place):
    ckpt = place.checkpointer(total_steps=1000, environ={"CLOUD_ML_JOB_ID": "42"})
    assert ckpt.restore() is None
    record = json.loads(place.read("progress.json"))
    assert record["jobId"] == "42" and record["step"] == 0 and record["startStep"] == 0
    assert record["totalSteps"] == 1000 and record["checkpoint"] is None and record["version"] == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["time"])


def test_a_saved_checkpoint_comes_back_byte_for_byte_with_its_manifest_and_progress(place):
    ckpt = place.checkpointer(total_steps=1000, environ={"CLOUD_ML_JOB_ID": "42"})
    ckpt.restore()
    ckpt.save(1200, files(1200))

    assert {"step-000000001200/model.npz", "step-000000001200/rng.json", "step-000000001200/MANIFEST.json"} <= place.keys()
    manifest = json.loads(place.read("step-000000001200/MANIFEST.json"))
    assert manifest["version"] == 1 and manifest["step"] == 1200 and manifest["jobId"] == "42"
    assert manifest["files"]["model.npz"] == {
        "size": len(files(1200)["model.npz"]),
        "sha256": hashlib.sha256(files(1200)["model.npz"]).hexdigest(),
    }
    record = json.loads(place.read("progress.json"))
    assert (record["step"], record["startStep"], record["checkpoint"]) == (1200, 0, "step-000000001200")

    restored = place.checkpointer(environ={"CLOUD_ML_JOB_ID": "42"}).restore()
    assert restored is not None
    assert restored.step == 1200 and restored.files == files(1200) and restored.folder == "step-000000001200"


def test_the_newest_complete_checkpoint_wins_and_only_keep_of_them_stay(place):
    ckpt = place.checkpointer(keep=2, interval=100)
    ckpt.restore()
    for step in range(1, 501):
        if ckpt.due(step):
            ckpt.save(step, files(step))
    assert place.folders() == ["step-000000000400", "step-000000000500"]
    restored = place.checkpointer().restore()
    assert restored is not None and restored.step == 500 and restored.files == files(500)


def test_a_folder_without_manifest_is_never_loaded_and_is_pruned_once_older_than_the_newest(place):
    ckpt = place.checkpointer(keep=3)
    ckpt.save(100, files(100))
    # What a save cut off before its manifest leaves: data files only.
    place.write("step-000000000200/model.npz", b"half a model")
    restored = place.checkpointer().restore()
    assert restored is not None and restored.step == 100

    ckpt.save(300, files(300))
    assert place.folders() == ["step-000000000100", "step-000000000300"]


def test_a_corrupt_manifest_is_skipped_with_a_warning_for_the_next_older_checkpoint(place, caplog):
    ckpt = place.checkpointer(keep=3)
    ckpt.save(100, files(100))
    ckpt.save(200, files(200))
    place.write("step-000000000200/MANIFEST.json", b'{"version": 1, "step": 2')

    with caplog.at_level(logging.WARNING, logger="spot_runtime"):
        restored = place.checkpointer().restore()
    assert restored is not None and restored.step == 100 and restored.files == files(100)
    assert "corrupt manifest" in caplog.text and "step-000000000200/MANIFEST.json" in caplog.text

    # Asked for by step, the corrupt one is an error naming its manifest.
    with pytest.raises(spot_runtime.CheckpointError, match=r"corrupt manifest .*step-000000000200/MANIFEST\.json"):
        place.checkpointer().load(200)


def test_a_data_file_changed_after_its_manifest_is_skipped(place, caplog):
    ckpt = place.checkpointer(keep=3)
    ckpt.save(100, files(100))
    ckpt.save(200, files(200))
    tampered = bytearray(files(200)["model.npz"])
    tampered[7] ^= 1  # same size: only the hash can tell
    place.write("step-000000000200/model.npz", bytes(tampered))

    with caplog.at_level(logging.WARNING, logger="spot_runtime"):
        restored = place.checkpointer().restore()
    assert restored is not None and restored.step == 100
    assert "model.npz does not match its sha256" in caplog.text


def test_a_data_file_missing_from_a_manifested_folder_is_skipped(place):
    ckpt = place.checkpointer(keep=3)
    ckpt.save(100, files(100))
    ckpt.save(200, files(200))
    place.delete("step-000000000200/rng.json")
    restored = place.checkpointer().restore()
    assert restored is not None and restored.step == 100


def test_pruning_never_removes_the_newest_complete_checkpoint(place):
    ckpt = place.checkpointer(keep=1)
    for step in (100, 200, 300):
        ckpt.save(step, files(step))
        assert place.folders() == [f"step-{step:012d}"]
        restored = place.checkpointer().restore()
        assert restored is not None and restored.step == step


def test_saving_a_step_again_after_a_cut_off_save_replaces_its_leftovers(place):
    ckpt = place.checkpointer(keep=3)
    ckpt.save(100, files(100))
    place.write("step-000000000200/model.npz", b"stale")
    place.write("step-000000000200/MANIFEST.json", b"not json")
    ckpt.save(200, files(200))
    restored = place.checkpointer().restore()
    assert restored is not None and restored.step == 200 and restored.files == files(200)


def test_other_entries_in_the_checkpoint_dir_are_left_alone(place):
    place.write("notes/readme.txt", b"mine")
    place.write("step-12/model.npz", b"not a checkpoint folder name")
    ckpt = place.checkpointer(keep=1)
    ckpt.save(100, files(100))
    ckpt.save(200, files(200))
    assert {"notes/readme.txt", "step-12/model.npz"} <= place.keys()


def test_when_every_checkpoint_is_corrupt_the_restore_says_training_starts_over(place, caplog):
    ckpt = place.checkpointer()
    ckpt.save(100, files(100))
    place.write("step-000000000100/MANIFEST.json", b"[]")
    with caplog.at_level(logging.WARNING, logger="spot_runtime"):
        assert place.checkpointer().restore() is None
    assert "not a JSON object" in caplog.text and "(1 corrupt): training starts at step 0" in caplog.text
