"""A gs:// checkpoint dir through the google-cloud-storage client (no /gcs mount, e.g. a laptop)."""

from __future__ import annotations

import importlib
from typing import Any

from spot_runtime.errors import CheckpointError


def _client() -> Any:
    try:
        # Optional (the [gcs] extra), and typed as Any here: the runtime's types do not depend on it.
        storage = importlib.import_module("google.cloud.storage")
    except ImportError:
        raise CheckpointError(
            "a gs:// checkpoint dir without the /gcs mount needs google-cloud-storage: "
            "install spot-training-runtime[gcs]"
        ) from None
    # The client reads STORAGE_EMULATOR_HOST itself (anonymous credentials, the emulator's
    # endpoint), so the tests' fake-gcs-server and a real bucket take the same path here.
    return storage.Client()


class GcsStore:
    """``gs://BUCKET/PREFIX`` through the client. One object upload is atomic (an object
    exists whole once its upload is finalized), which is all the checkpointer asks of a write."""

    def __init__(self, uri: str, *, client: Any = None) -> None:
        if not uri.startswith("gs://") or not uri[5:].split("/", 1)[0]:
            raise CheckpointError(f"checkpoint dir {uri} is not a gs://BUCKET/PATH URI")
        bucket, _, prefix = uri[5:].partition("/")
        self.location = uri
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        self._uri = f"gs://{bucket}/{self.prefix}"
        self._client = client if client is not None else _client()
        self._bucket = self._client.bucket(bucket)
        self._folders_made: set[str] = set()

    def describe(self, key: str) -> str:
        return self._uri + key

    def _fail(self, what: str, key: str, error: Exception) -> CheckpointError:
        return CheckpointError(f"cannot {what} {self.describe(key)}: {error}")

    def read(self, key: str) -> bytes | None:
        from google.api_core import exceptions

        try:
            data: bytes = self._bucket.blob(self.prefix + key).download_as_bytes()
            return data
        except exceptions.NotFound:
            return None
        except exceptions.GoogleAPIError as error:
            raise self._fail("read", key, error) from None

    def write(self, key: str, data: bytes) -> None:
        from google.api_core import exceptions

        try:
            self._make_folders(key)
            self._bucket.blob(self.prefix + key).upload_from_string(data, content_type="application/octet-stream")
        except exceptions.GoogleAPIError as error:
            raise self._fail("write", key, error) from None

    def _make_folders(self, key: str) -> None:
        """The zero-byte ``name/`` objects Cloud Storage FUSE takes for directories. A FUSE mount
        without implicit directories shows a folder only when its object exists, so checkpoints
        written here (a laptop, a job without the mount) stay visible to a later run on /gcs."""
        parts = (self.prefix + key).split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth]) + "/"
            if folder not in self._folders_made:
                self._bucket.blob(folder).upload_from_string(b"", content_type="application/x-directory")
                self._folders_made.add(folder)

    def _list(self, prefix: str, delimiter: str | None) -> Any:
        from google.api_core import exceptions

        try:
            iterator = self._client.list_blobs(self._bucket, prefix=prefix, delimiter=delimiter)
            blobs = list(iterator)  # the prefixes are known only once every page was read
            return blobs, set(iterator.prefixes)
        except exceptions.NotFound:
            raise CheckpointError(f"cannot read checkpoint dir {self.location}: no such bucket") from None
        except exceptions.GoogleAPIError as error:
            raise CheckpointError(f"cannot read checkpoint dir {self.location}: {error}") from None

    def folders(self) -> list[str]:
        _, prefixes = self._list(self.prefix, "/")
        return sorted(p[len(self.prefix) :].rstrip("/") for p in prefixes)

    def files(self, folder: str) -> dict[str, int]:
        base = f"{self.prefix}{folder}/"
        blobs, _ = self._list(base, "/")
        # The folder's own ``folder/`` object (see _make_folders) is not a file in it.
        return {blob.name[len(base) :]: int(blob.size or 0) for blob in blobs if blob.name != base}

    def delete(self, key: str) -> None:
        from google.api_core import exceptions

        try:
            self._bucket.blob(self.prefix + key).delete()
        except exceptions.NotFound:
            pass
        except exceptions.GoogleAPIError as error:
            raise self._fail("delete", key, error) from None

    def delete_folder(self, folder: str) -> None:
        blobs, _ = self._list(f"{self.prefix}{folder}/", None)
        # Deepest first: the folder's own object goes last, so a FUSE reader never sees files
        # in a folder that is not there.
        for blob in sorted(blobs, key=lambda b: b.name, reverse=True):
            self.delete(blob.name[len(self.prefix) :])
        self._folders_made.discard(f"{self.prefix}{folder}/")
