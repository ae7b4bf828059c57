"""The example trainer interrupted again and again, as Spot preemptions interrupt it, on a local
directory and on the emulated bucket: each time it resumes from the newest complete checkpoint,
never from a partial one, and in the end its model is byte for byte the uninterrupted run's.
"""

from __future__ import annotations

import json
import random
import signal

from tests.training.trainer import ARGS, INTERVAL, STEPS, Trainer, interrupted, run

MANIFEST = "MANIFEST.json"


def complete_steps(listing: dict[str, set[str]]) -> list[int]:
    """The steps of the folders that hold a manifest, as the trainer's runtime counts them complete."""
    return sorted(int(folder.removeprefix("step-")) for folder, files in listing.items() if MANIFEST in files)


def test_sigterm_and_sigkill_at_random_steps_resume_and_end_with_the_uninterrupted_model(place, reference):
    rng = random.Random(26)
    # Alternating, so one run exercises both: the notice (SIGTERM, what Vertex sends) and a hard kill.
    kinds = [signal.SIGTERM, signal.SIGKILL, signal.SIGTERM, signal.SIGKILL]
    expected_start = 0
    for attempt, kind in enumerate(kinds, start=1):
        env = place.env(job_id=str(100 + attempt))
        cut = interrupted(env, ARGS, after=rng.randint(1, 150), signum=kind)
        assert cut.start_step() == expected_start, cut.transcript()
        stopped = cut.last_step()
        assert stopped < STEPS, f"the {kind.name} landed after the run's end:\n{cut.transcript()}"
        complete = complete_steps(place.listing())
        newest = complete[-1] if complete else 0
        if kind == signal.SIGTERM:
            assert cut.process.returncode == 0, cut.transcript()
            # Zero steps lost: the notice was acted on at the next step boundary, with a checkpoint of that step.
            assert cut.lines[-1] == f"preemption notice: stopped at step {stopped}/{STEPS} after its checkpoint"
            assert cut.checkpointed()[-1] == stopped
            assert newest == stopped
            record = json.loads(place.read_checkpoint_file("progress.json") or b"{}")
            assert (record["jobId"], record["step"], record["checkpoint"]) == (str(100 + attempt), stopped, f"step-{stopped:012d}")
        else:
            assert cut.process.returncode == -signal.SIGKILL, cut.transcript()
            # At most one interval lost: the newest complete checkpoint is within one interval of the last step done.
            assert stopped - newest <= INTERVAL, (stopped, newest)
            assert newest >= max(cut.checkpointed(), default=expected_start)
        # No partial folder survives as a candidate: every folder present has its manifest, or is newer than `newest`.
        assert all(MANIFEST in files or int(f.removeprefix("step-")) > newest for f, files in place.listing().items())
        assert place.model_files() == {}, "an interrupted run wrote a model"
        expected_start = newest

    last = run(place.env(job_id="200"), ARGS)
    assert last.start_step() == expected_start
    assert last.checkpointed()[0] == (expected_start // INTERVAL + 1) * INTERVAL
    assert place.model_files()["model.npz"] == reference["model.npz"]
    assert place.model_files()["metrics.json"] == reference["metrics.json"]


def test_sigkill_in_the_middle_of_a_save_leaves_a_partial_folder_that_is_never_loaded(place, reference):
    env = place.env(job_id="300")
    killed = Trainer(env, ARGS, module="tests.training.kill_mid_save", before=["300"])
    assert killed.finish() == -signal.SIGKILL, killed.transcript()
    assert killed.checkpointed() == [100, 200]
    assert killed.last_step() == 300
    listing = place.listing()
    # Cut off after one data file of step 300: the folder is there, with one file and no manifest.
    assert len(listing["step-000000000300"]) == 1 and MANIFEST not in listing["step-000000000300"]
    assert complete_steps(listing) == [100, 200]

    resumed = run(place.env(job_id="301"), ARGS)
    assert resumed.start_step() == 200, resumed.transcript()
    # Its own save of step 300 replaced the partial folder, and pruning kept the newest three.
    assert {folder: MANIFEST in files for folder, files in place.listing().items()} == {
        f"step-{step:012d}": True for step in (1200, 1300, 1400)
    }
    assert place.model_files()["model.npz"] == reference["model.npz"]
