"""Storage: the buckets and objects the stand-in gcp plugin makes, in the sandbox's Cloud Storage.

The google-cloud-storage client pointed at fake-gcs-server (STORAGE_EMULATOR_HOST),
with anonymous credentials: no credential is read and nothing reaches Google.
"""

from __future__ import annotations

import os

from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage  # type: ignore[attr-defined]  # google-cloud-storage ships no stubs for this re-export


class Storage:
    def __init__(self, endpoint: str) -> None:
        anonymous = AnonymousCredentials()  # type: ignore[no-untyped-call]  # google-auth leaves its __init__ unannotated
        self._client = storage.Client(project="sandbox", credentials=anonymous, client_options={"api_endpoint": endpoint})

    @classmethod
    def from_environment(cls) -> Storage | None:
        endpoint = os.environ.get("STORAGE_EMULATOR_HOST")
        return cls(endpoint) if endpoint else None

    def make_bucket(self, name: str) -> None:
        try:
            self._client.create_bucket(name)
        except exceptions.Conflict:
            pass  # there already: a second create of the same bucket is no change

    def put_object(self, bucket: str, name: str, data: bytes) -> None:
        self.make_bucket(bucket)  # the engine creates the bucket first; a replaced one may be gone meanwhile
        self._client.bucket(bucket).blob(name).upload_from_string(data)

    def read(self, bucket: str, name: str) -> bytes | None:
        """The object's bytes, None if there is no such object (or bucket)."""
        try:
            data: bytes = self._client.bucket(bucket).blob(name).download_as_bytes()
            return data
        except exceptions.NotFound:
            return None

    def delete_object(self, bucket: str, name: str) -> None:
        try:
            self._client.bucket(bucket).blob(name).delete()
        except exceptions.NotFound:
            pass

    def objects(self, bucket: str, prefix: str) -> dict[str, bytes]:
        """Every object under `prefix`, by its name after the prefix: what a drill compares."""
        return {blob.name[len(prefix):]: blob.download_as_bytes() for blob in self._client.list_blobs(bucket, prefix=prefix)}

    def buckets(self) -> list[str]:
        return [b.name for b in self._client.list_buckets()]

    def empty(self, bucket: str) -> None:
        for blob in self._client.list_blobs(bucket):
            blob.delete()

    def delete_bucket(self, name: str, force: bool) -> bool:
        """Delete the bucket; False (and kept) if it holds objects and `force` is not set."""
        bucket = self._client.bucket(name)
        try:
            blobs = list(self._client.list_blobs(name))
            if blobs and not force:
                return False
            for blob in blobs:
                blob.delete()
            bucket.delete()
        except exceptions.NotFound:
            pass
        return True
