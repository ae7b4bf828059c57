"""Save, restore and prune checkpoints; keep the progress record beside them."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping

from spot_runtime.cluster import is_chief as _is_chief
from spot_runtime.errors import CheckpointError
from spot_runtime.layout import MANIFEST, PROGRESS, check_file_name, check_step, folder_name, folder_step
from spot_runtime.location import open_store
from spot_runtime.manifest import Manifest
from spot_runtime.progress import EarlierJob, Progress
from spot_runtime.restored import Restored
from spot_runtime.store import Store

log = logging.getLogger("spot_runtime")

DEFAULT_KEEP = 3
DEFAULT_INTERVAL = 100


class Checkpointer:
    """Checkpoints of one training run in one directory (docs/training.md, "The runtime").

    ``directory`` is a local path, a ``gs://`` URI (through ``<mount_root>/BUCKET`` when that is
    mounted, else the Cloud Storage client) or a Store. Only the chief writes; every replica reads.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str] | Store | None = None,
        *,
        keep: int = DEFAULT_KEEP,
        interval: int = DEFAULT_INTERVAL,
        total_steps: int | None = None,
        job_id: str | None = None,
        is_chief: bool = True,
        mount_root: str = "/gcs",
    ) -> None:
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ValueError(f"keep={keep!r}: keep at least 1 checkpoint")
        if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
            raise ValueError(f"interval={interval!r}: the checkpoint interval is a number of steps, at least 1")
        if total_steps is not None and (isinstance(total_steps, bool) or not isinstance(total_steps, int) or total_steps < 0):
            raise ValueError(f"total_steps={total_steps!r}: a number of steps, or None when unknown")
        if directory is None or isinstance(directory, (str, os.PathLike)):
            self.store: Store = open_store(directory, mount_root=mount_root)
        else:
            self.store = directory
        self.keep = keep
        self.interval = interval
        self.total_steps = total_steps
        self.job_id = job_id or None
        self.is_chief = is_chief
        self._start_step: int | None = None  # set by restore(): the step this job began at
        self._earlier: tuple[EarlierJob, ...] = ()  # the jobs before this one, as the record tells them
        # This process's: the step it restored, when it began, the seconds its saves took (the record's timings).
        self._restored_step: int | None = None
        self._began: float | None = None
        self._saving = 0.0

    @classmethod
    def from_environment(
        cls,
        *,
        keep: int = DEFAULT_KEEP,
        interval: int = DEFAULT_INTERVAL,
        total_steps: int | None = None,
        environ: Mapping[str, str] | None = None,
        mount_root: str = "/gcs",
    ) -> Checkpointer:
        """What Vertex sets: AIP_CHECKPOINT_DIR (none: ./checkpoints), CLOUD_ML_JOB_ID, and
        CLUSTER_SPEC / TF_CONFIG for which replica is the chief."""
        env = os.environ if environ is None else environ
        return cls(
            env.get("AIP_CHECKPOINT_DIR") or None,
            keep=keep,
            interval=interval,
            total_steps=total_steps,
            job_id=env.get("CLOUD_ML_JOB_ID") or None,
            is_chief=_is_chief(env),
            mount_root=mount_root,
        )

    @property
    def location(self) -> str:
        return self.store.location

    def due(self, step: int) -> bool:
        """Whether ``step`` (the number of steps done) is a checkpoint step: a multiple of the interval."""
        return step % self.interval == 0

    # Reading ---------------------------------------------------------------------------

    def steps(self) -> list[int]:
        """The steps of the checkpoint folders present, newest first (complete or not)."""
        found = (folder_step(name) for name in self.store.folders())
        return sorted((step for step in found if step is not None), reverse=True)

    def load(self, step: int) -> Restored:
        """The checkpoint of ``step``, verified against its manifest; CheckpointError if it is not complete."""
        folder = folder_name(check_step(step))
        where = self.store.describe(f"{folder}/{MANIFEST}")
        data = self.store.read(f"{folder}/{MANIFEST}")
        if data is None:
            raise CheckpointError(f"checkpoint {self.store.describe(folder)} is incomplete: no {MANIFEST}")
        manifest = Manifest.parse(data, where)
        if manifest.step != step:
            raise CheckpointError(f"corrupt manifest {where}: it says step {manifest.step}, its folder is step {step}")
        sizes = self.store.files(folder)
        files: dict[str, bytes] = {}
        for name, entry in sorted(manifest.files.items()):
            # The listing's sizes first: a cut-off save is found without downloading anything.
            if sizes.get(name) != entry.size:
                state = "is missing" if name not in sizes else f"has {sizes[name]} bytes, the manifest says {entry.size}"
                raise CheckpointError(f"checkpoint {self.store.describe(folder)} is incomplete: {name} {state}")
            content = self.store.read(f"{folder}/{name}")
            problem = "is missing" if content is None else manifest.mismatch(name, content)
            if problem is not None or content is None:
                raise CheckpointError(f"checkpoint {self.store.describe(folder)} is corrupt: {problem}")
            files[name] = content
        return Restored(step, files)

    def latest(self) -> Restored | None:
        """The newest complete checkpoint; incomplete and corrupt ones are skipped (with a warning)."""
        unusable = 0
        for step in self.steps():
            folder = folder_name(step)
            if self.store.read(f"{folder}/{MANIFEST}") is None:
                log.info("skipping checkpoint %s: no %s (a save that did not finish)", self.store.describe(folder), MANIFEST)
                continue
            try:
                return self.load(step)
            except CheckpointError as error:
                unusable += 1
                log.warning("skipping checkpoint: %s; trying the next older one", error)
        if unusable:
            # Not an error (the contract: only load(step) of a bad one raises), but never quiet:
            # training starts over although checkpoints were there.
            log.warning("no usable checkpoint in %s (%d corrupt): training starts at step 0", self.location, unusable)
        return None

    def restore(self) -> Restored | None:
        """Load the newest complete checkpoint (None: start from step 0) and, on the chief, write
        the start progress record."""
        restored = self.latest()
        step = restored.step if restored is not None else 0
        self._restored_step, self._began = step, time.monotonic()
        self._start_step = self._job_start_step(step)
        if self.is_chief:
            self._write_progress(step, restored.folder if restored is not None else None)
        if restored is not None:
            log.info("restored checkpoint %s (step %d)", self.store.describe(restored.folder), restored.step)
        else:
            log.info("no complete checkpoint in %s: starting at step 0", self.location)
        return restored

    def progress(self) -> Progress | None:
        """The progress record as it is now (None when there is none or it is unreadable)."""
        data = self.store.read(PROGRESS)
        return Progress.parse(data) if data is not None else None

    def _job_start_step(self, restored_step: int) -> int:
        """The step this job began at: kept from the record when Vertex restarted this same job,
        else the step it restores now. A record of another job is not trusted for it."""
        data = self.store.read(PROGRESS)
        if data is None:
            return restored_step
        record = Progress.parse(data)
        if record is None:
            log.warning("progress record %s is not one this runtime writes: it is replaced", self.store.describe(PROGRESS))
            return restored_step
        if self.job_id is not None and record.job_id == self.job_id:
            self._earlier = record.attempts
            return record.start_step
        self._earlier = record.earlier_and_this()
        # Outside Vertex (a laptop: no CLOUD_ML_JOB_ID, then or now) a rerun is the usual way to
        # resume, and nothing tells it from a restart: not worth a warning on every resume.
        level = logging.INFO if self.job_id is None and record.job_id is None else logging.WARNING
        log.log(
            level,
            "progress record %s was written by job %s, not this job (%s): its startStep is not carried over",
            self.store.describe(PROGRESS),
            record.job_id,
            self.job_id,
        )
        return restored_step

    # Writing ---------------------------------------------------------------------------

    def save(self, step: int, files: Mapping[str, bytes]) -> None:
        """On the chief: write the data files, then MANIFEST.json, then progress.json, then prune
        to the newest ``keep``. A save cut off anywhere leaves the last complete checkpoint as it
        was. On other replicas: nothing."""
        check_step(step)
        if not isinstance(files, Mapping) or not files:
            raise ValueError("save() needs the checkpoint's files: a non-empty mapping of file name to bytes")
        for name, data in files.items():
            check_file_name(name)
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise ValueError(f"checkpoint file {name!r} must be bytes, not {type(data).__name__}")
        if not self.is_chief:
            return
        began = time.monotonic()
        blobs = {name: bytes(data) for name, data in files.items()}
        folder = folder_name(step)
        manifest = Manifest.of(step, self.job_id, blobs)
        if not self._same_checkpoint(folder, manifest):
            # A folder of this step left by a cut-off save (or a different save of the same
            # step) loses its manifest first: while its files are rewritten it is incomplete.
            self.store.delete(f"{folder}/{MANIFEST}")
            for name, data in sorted(blobs.items()):
                self.store.write(f"{folder}/{name}", data)
            self.store.write(f"{folder}/{MANIFEST}", manifest.to_bytes())
        if self._start_step is None:
            # save() without restore(): this run began at 0 unless Vertex restarted this job.
            self._start_step = self._job_start_step(0)
        if self._began is None:
            self._restored_step, self._began = 0, began
        self._saving += time.monotonic() - began  # the record's own write is counted with the next save
        self._write_progress(step, folder)
        self._prune(step)

    def _same_checkpoint(self, folder: str, manifest: Manifest) -> bool:
        data = self.store.read(f"{folder}/{MANIFEST}")
        if data is None:
            return False
        try:
            existing = Manifest.parse(data, self.store.describe(f"{folder}/{MANIFEST}"))
        except CheckpointError:
            return False
        if existing.files != manifest.files:
            return False
        try:
            self.load(manifest.step)
        except CheckpointError:
            return False
        return True

    def _write_progress(self, step: int, checkpoint: str | None) -> None:
        start = self._start_step if self._start_step is not None else step
        train = save = None
        if self._began is not None:
            train = round(max(time.monotonic() - self._began - self._saving, 0.0), 3)
            save = round(self._saving, 3)
        record = Progress(
            self.job_id, step, start, self.total_steps, checkpoint, attempts=self._earlier, restored_step=self._restored_step,
            train_seconds=train, save_seconds=save,
        )
        self.store.write(PROGRESS, record.to_bytes())

    def _complete_by_listing(self, step: int) -> bool:
        """Complete as far as a listing tells (manifest readable, every file there at its size):
        enough to count toward ``keep``; a restore still checks the hashes."""
        folder = folder_name(step)
        data = self.store.read(f"{folder}/{MANIFEST}")
        if data is None:
            return False
        try:
            manifest = Manifest.parse(data, self.store.describe(f"{folder}/{MANIFEST}"))
        except CheckpointError:
            return False
        sizes = self.store.files(folder)
        return manifest.step == step and all(sizes.get(n) == e.size for n, e in manifest.files.items())

    def _prune(self, newest: int) -> None:
        """Keep the newest ``keep`` complete checkpoints, ``newest`` (just written) first; remove
        older complete ones and incomplete folders older than ``newest``. Folders newer than it
        (left by a run that got further before its checkpoints were lost) are not touched."""
        kept = 1
        for step in self.steps():
            if step >= newest:
                continue
            if kept < self.keep and self._complete_by_listing(step):
                kept += 1
                continue
            folder = folder_name(step)
            log.info("removing checkpoint %s", self.store.describe(folder))
            # The manifest first: a prune cut off halfway leaves an incomplete folder, skipped
            # quietly and removed by the next prune, never a manifest whose files are gone.
            self.store.delete(f"{folder}/{MANIFEST}")
            self.store.delete_folder(folder)
