"""A job's output directory in the emulated Cloud Storage bucket, read back through the real client.

The trainer reaches it as gs:// URIs through the google-cloud-storage client
(STORAGE_EMULATOR_HOST, no /gcs mount), as a trainer on a laptop or in a
container without the FUSE mount does.
"""

from __future__ import annotations

from google.cloud import storage

BUCKET = "acme-ml-dev-tabular"
# Under baseOutputDirectory, as Vertex lays it out: checkpoints/ and model/.
BASE = "jobs/baseline/"


class BucketPlace:
    name = "bucket"

    def __init__(self, client: storage.Client) -> None:
        self.bucket = client.create_bucket(BUCKET)
        self.client = client
        self.checkpoint_dir = f"gs://{BUCKET}/{BASE}checkpoints/"
        self.model_dir = f"gs://{BUCKET}/{BASE}model/"

    def _objects(self, prefix: str) -> dict[str, storage.Blob]:
        return {blob.name[len(prefix):]: blob for blob in self.client.list_blobs(self.bucket, prefix=prefix)}

    def listing(self) -> dict[str, set[str]]:
        """Each folder of the checkpoint dir and the files in it."""
        folders: dict[str, set[str]] = {}
        for name in self._objects(BASE + "checkpoints/"):
            if "/" in name:
                folder, _, file = name.partition("/")
                files = folders.setdefault(folder, set())
                if file:  # not the folder's own `name/` object (the runtime writes them for FUSE)
                    files.add(file)
        return folders

    def read_checkpoint_file(self, key: str) -> bytes | None:
        blob = self.bucket.blob(BASE + "checkpoints/" + key)
        return blob.download_as_bytes() if blob.exists() else None

    def model_files(self) -> dict[str, bytes]:
        return {name: blob.download_as_bytes() for name, blob in self._objects(BASE + "model/").items()}

    def env(self, job_id: str) -> dict[str, str]:
        """What Vertex would set for a job writing here."""
        return {"AIP_CHECKPOINT_DIR": self.checkpoint_dir, "AIP_MODEL_DIR": self.model_dir, "CLOUD_ML_JOB_ID": job_id}
