"""An attempt's training on Vertex, as far as the progress record goes: spot_runtime's own writer.

Run as a job's chief would be: CLOUD_ML_JOB_ID is the attempt's id and
AIP_CHECKPOINT_DIR is `<baseOutputDirectory>/checkpoints/` (Vertex's
convention), in whatever bucket STORAGE_EMULATOR_HOST serves. So a test of the
provider reads the record the runtime writes, not a copy of its format.
"""

from __future__ import annotations

from components.spot_job.model.job_name import JobName


def train(output_uri_prefix: str, job_name: str, steps: int, *, interval: int = 100, total: int = 1000) -> int:
    """Restore the newest whole checkpoint, train `steps` steps, checkpoint every `interval`; the step it
    stopped at (then the process ends, as a reclaimed VM's does, with no checkpoint of its own)."""
    import spot_runtime

    environ = {
        "AIP_CHECKPOINT_DIR": f"{output_uri_prefix.rstrip('/')}/checkpoints/",
        "CLOUD_ML_JOB_ID": JobName.parse(job_name).id,
    }
    ckpt = spot_runtime.Checkpointer.from_environment(keep=2, total_steps=total, interval=interval, environ=environ)
    restored = ckpt.restore()
    step = restored.step if restored else 0
    for _ in range(steps):
        step += 1
        if ckpt.due(step):
            ckpt.save(step, {"weights.bin": step.to_bytes(8, "big")})
    return step
