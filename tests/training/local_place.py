"""A job's output directory on the local disk: checkpoints and model as a laptop run keeps them."""

from __future__ import annotations

from pathlib import Path


class LocalPlace:
    name = "local"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.checkpoint_dir = str(root / "checkpoints")
        self.model_dir = str(root / "model")

    def listing(self) -> dict[str, set[str]]:
        """Each folder of the checkpoint dir and the files in it."""
        base = Path(self.checkpoint_dir)
        if not base.is_dir():
            return {}
        return {d.name: {f.name for f in d.iterdir()} for d in base.iterdir() if d.is_dir()}

    def read_checkpoint_file(self, key: str) -> bytes | None:
        path = Path(self.checkpoint_dir) / key
        return path.read_bytes() if path.exists() else None

    def model_files(self) -> dict[str, bytes]:
        base = Path(self.model_dir)
        return {f.name: f.read_bytes() for f in base.iterdir()} if base.is_dir() else {}

    def env(self, job_id: str) -> dict[str, str]:
        """What Vertex would set for a job writing here."""
        return {"AIP_CHECKPOINT_DIR": self.checkpoint_dir, "AIP_MODEL_DIR": self.model_dir, "CLOUD_ML_JOB_ID": job_id}
