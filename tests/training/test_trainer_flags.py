"""What a user of the example trainer sees when a flag is wrong or a checkpoint is not this run's."""

from __future__ import annotations

import numpy as np
from tabular_trainer import data

from tests.training.local_place import LocalPlace
from tests.training.trainer import ARGS, Trainer, run


def test_the_shipped_digits_file_is_what_load_digits_returns():
    from sklearn.datasets import load_digits

    assert data.shipped_file() is not None  # the fast path is the one taken, not the fallback
    pixels, labels = data.raw()
    bunch = load_digits()
    assert np.array_equal(pixels, bunch.data) and np.array_equal(labels, bunch.target)


def test_a_bad_flag_is_named_and_nothing_runs(tmp_path):
    local = LocalPlace(tmp_path)
    refused = Trainer(local.env(job_id="1"), ["--batch-size", "0"])
    assert refused.finish() == 2
    assert "argument --batch-size: must be at least 1, got 0" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert local.listing() == {} and local.model_files() == {}


def test_resuming_with_other_settings_is_refused_naming_the_flags(tmp_path):
    local = LocalPlace(tmp_path)
    run(local.env(job_id="1"), [*ARGS, "--steps", "200"])
    refused = Trainer(local.env(job_id="2"), [*ARGS, "--learning-rate", "0.1", "--seed", "7"])
    assert refused.finish() == 1
    assert (
        "tabular_trainer: checkpoint step-000000000200 cannot be resumed: it was written by a run with other settings: "
        "--learning-rate 0.05 (this run: 0.1), --seed 0 (this run: 7); resume with the same flags"
    ) in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_laptop_run_resumed_says_where_and_warns_of_nothing(tmp_path):
    """No CLOUD_ML_JOB_ID (a run outside Vertex): running it again is how it resumes, not a surprise."""
    laptop = {"AIP_CHECKPOINT_DIR": str(tmp_path / "checkpoints"), "AIP_MODEL_DIR": str(tmp_path / "model")}
    run(laptop, [*ARGS, "--steps", "200"])
    again = run(laptop, [*ARGS, "--steps", "300"])
    assert again.start_step() == 200
    assert again.stderr == ""


def test_a_model_dir_that_cannot_be_written_is_named_and_a_rerun_only_writes_the_model(tmp_path):
    local = LocalPlace(tmp_path)
    (tmp_path / "model").write_text("a file where the model dir should be")
    failed = Trainer(local.env(job_id="1"), [*ARGS, "--steps", "200"])
    assert failed.finish() == 1
    assert (
        f"tabular_trainer: cannot write the model to AIP_MODEL_DIR={local.model_dir}: {local.model_dir} exists and is not a directory"
    ) in failed.stderr
    assert "Traceback" not in failed.stderr
    assert failed.checkpointed() == [100, 200]

    (tmp_path / "model").unlink()
    rerun = run(local.env(job_id="2"), [*ARGS, "--steps", "200"])
    assert rerun.start_step() == 200 and rerun.checkpointed() == []
    assert set(local.model_files()) == {"model.npz", "metrics.json"}
