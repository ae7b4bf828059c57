"""A save cut off by SIGKILL anywhere never spoils the last good checkpoint (a real subprocess)."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import spot_runtime

CHILD = Path(__file__).with_name("killed_save.py")


def files(step):
    return {"model.npz": f"weights at {step}".encode() * 50, "rng.json": f'{{"step": {step}}}'.encode()}


def run_killed(place, kill_at):
    result = subprocess.run(
        [sys.executable, str(CHILD), place.directory, place.mount_root, kill_at], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == -signal.SIGKILL, f"the child was not killed ({result.returncode}): {result.stdout}{result.stderr}"


@pytest.mark.parametrize("kill_at", ["data-1", "data-all", "manifest-started"])
def test_a_save_killed_before_its_manifest_leaves_the_previous_checkpoint_to_restore(place, kill_at):
    run_killed(place, kill_at)
    # The kill really was mid-save: step 200 has data files but no manifest.
    leftovers = {key for key in place.keys() if key.startswith("step-000000000200/") and not key.endswith("/")}
    assert leftovers and "step-000000000200/MANIFEST.json" not in leftovers

    restored = place.checkpointer(environ={"CLOUD_ML_JOB_ID": "7"}).restore()
    assert restored is not None and restored.step == 100 and restored.files == files(100)

    # The restarted run saves step 200 over the leftovers, and that is what the next restart gets.
    ckpt = place.checkpointer(environ={"CLOUD_ML_JOB_ID": "7"})
    ckpt.restore()
    ckpt.save(200, files(200))
    again = place.checkpointer(environ={"CLOUD_ML_JOB_ID": "7"}).restore()
    assert again is not None and again.step == 200 and again.files == files(200)


@pytest.mark.parametrize("kind", ["local", "mount"])
def test_a_save_killed_between_a_temp_file_and_its_rename_leaves_the_previous_checkpoint(tmp_path, kind):
    from tests.runtime import places

    place = getattr(places, kind)(tmp_path)
    run_killed(place, "replace")
    assert any(Path(key).name.startswith(".tmp-") for key in place.keys())  # killed with the temp file written
    restored = place.checkpointer().restore()
    assert restored is not None and restored.step == 100 and restored.files == files(100)
    # The next save of that step removes nothing it needs and the temp file is not a checkpoint file.
    ckpt = place.checkpointer()
    ckpt.save(200, files(200))
    assert place.checkpointer().load(200).files == files(200)


def test_a_save_killed_after_its_manifest_is_complete_and_is_restored(place):
    run_killed(place, "progress")
    restored = place.checkpointer(environ={"CLOUD_ML_JOB_ID": "7"}).restore()
    assert restored is not None and restored.step == 200 and restored.files == files(200)
    # The progress record lagged (killed before it was written); the restore brings it up to date.
    record = json.loads(place.read("progress.json"))
    assert record["step"] == 200 and record["checkpoint"] == "step-000000000200"


def test_the_killed_run_left_no_error_for_a_restore_to_trip_on(place):
    run_killed(place, "data-1")
    assert place.checkpointer().steps() == [200, 100]
    with pytest.raises(spot_runtime.CheckpointError, match=r"step-000000000200\b.* is incomplete: no MANIFEST\.json"):
        place.checkpointer().load(200)
