"""Reads an ended attempt's progress record from Cloud Storage, for the provider's refresh.

One object read with the `google-cloud-storage` client (its default retry, from
google-api-core, bounded here in time), only for an attempt that ended FAILED
and only once: the result is kept in the job's `progress` output. Whatever goes
wrong (no record, no permission, a record that is not one, a network that does
not answer) makes the progress unknown with a note saying why; it never fails
the refresh, so a stack whose trainers keep no record works as before.

The client honours STORAGE_EMULATOR_HOST (fake-gcs-server in the tests). With
the Vertex AI emulator in use and no Cloud Storage emulator, nothing is read:
an emulated job wrote nothing to a real bucket, and a test must never reach
Google. Imported only inside the provider's methods, like client/job_service.py.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

from google.api_core import exceptions

from components.spot_job.client.job_service import EMULATOR_HOST_ENV
from components.spot_job.model import progress
from components.spot_job.model.progress import Progress

log = logging.getLogger("spot-training")

STORAGE_EMULATOR_HOST_ENV = "STORAGE_EMULATOR_HOST"
READ_TIMEOUT = 30.0  # one read, across the client's retries: a refresh never waits longer on a record
RECORD_BYTES_MAX = 1 << 20  # a progress record is a few hundred bytes; anything larger is not one


def read(uri: str | None, project: str, job_id: str, earlier: Sequence[str]) -> Progress:
    """The progress of the ended attempt `job_id`, from the record at `uri` (progress.record_uri)."""
    if uri is None:
        return Progress(job_id, None, note="the job has no baseOutputDirectory, so no progress record")
    record, why = fetch(uri, project)
    if why:
        log.warning("%s; the attempt's progress is unknown", why)
    return progress.assess(record, job_id, earlier, uri, why_none=why)


def fetch(uri: str, project: str) -> tuple[dict[str, Any] | None, str]:
    """The record at `uri`, or None and why not ("" when there is simply none)."""
    if not readable():
        return None, f"not read: {EMULATOR_HOST_ENV} is set and {STORAGE_EMULATOR_HOST_ENV} is not"
    try:
        data = _download(uri, project)
    except exceptions.NotFound:
        return None, ""
    except Exception as error:  # noqa: BLE001 - unknown, never a failed refresh (see the module's docstring)
        why = " ".join(str(getattr(error, "message", None) or error).split())[:300]
        return None, f"{uri} could not be read: {why}"
    try:
        return progress.parse(data, uri), ""
    except ValueError as error:
        return None, str(error)


def readable() -> bool:
    """False with the Vertex AI emulator and no Cloud Storage emulator: nothing an emulated job wrote is in a real bucket."""
    return not (os.environ.get(EMULATOR_HOST_ENV) and not os.environ.get(STORAGE_EMULATOR_HOST_ENV))


def _download(uri: str, project: str) -> bytes:
    from google.cloud import storage  # type: ignore[attr-defined]  # google-cloud-storage ships no stubs for this re-export
    from google.cloud.storage.retry import DEFAULT_RETRY

    bucket, _, name = uri.removeprefix("gs://").partition("/")
    client = storage.Client(project=project or None)
    blob = client.bucket(bucket).blob(name)
    data: bytes = blob.download_as_bytes(
        end=RECORD_BYTES_MAX, retry=DEFAULT_RETRY.with_timeout(READ_TIMEOUT), timeout=READ_TIMEOUT
    )
    return data
