"""Workspace: where a stack's sandbox keeps everything, under the project's `.sandbox/<stack>/` (ignored by git).

    .sandbox/dev/
      services.json     the running services: each one's pid and address (services.py)
      passphrase        the sandbox stack's secrets passphrase, made by the sandbox (0600)
      project/          the project as the engine runs it: Pulumi.yaml, the program's files
                        (symlinks) and stacks/Pulumi.dev.yaml, a copy of the user's stack file
                        with the sandbox's own encryption salt (the user's file is never written)
      state/            the stack's Pulumi state: a file backend
      pulumi-home/      PULUMI_HOME: no plugin, credential or setting of the machine's is used
      gcloud/           CLOUDSDK_CONFIG: empty, so no Google credential can be read
      jobs.json         the JobService's jobs, kept across restarts of the sandbox
      storage/          fake-gcs-server's buckets (its filesystem backend)
      runs/<job id>/attempt-<n>/<pool>-<index>.log   each replica's stdout and stderr
      service.log       what the services printed (errors first)

One directory per stack: two stacks' sandboxes share nothing and run side by side.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where the sandboxes live; a test moves it to a directory of its own.
HOME_ENV = "SPOT_TRAINING_SANDBOX_HOME"


@dataclass(frozen=True)
class Workspace:
    stack: str
    root: Path

    @classmethod
    def of(cls, stack: str) -> Workspace:
        base = Path(os.environ[HOME_ENV]) if os.environ.get(HOME_ENV) else ROOT / ".sandbox"
        return cls(stack, base / stack)

    @property
    def services_file(self) -> Path:
        return self.root / "services.json"

    @property
    def passphrase_file(self) -> Path:
        return self.root / "passphrase"

    @property
    def project_dir(self) -> Path:
        return self.root / "project"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def pulumi_home(self) -> Path:
        return self.root / "pulumi-home"

    @property
    def gcloud_dir(self) -> Path:
        return self.root / "gcloud"

    @property
    def jobs_file(self) -> Path:
        return self.root / "jobs.json"

    @property
    def storage_dir(self) -> Path:
        return self.root / "storage"

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    @property
    def service_log(self) -> Path:
        return self.root / "service.log"

    def run_dir(self, job_id: str, attempt: int) -> Path:
        """The logs of one run of a job: its first start is attempt 1, each Vertex restart the next."""
        return self.runs_dir / job_id / f"attempt-{attempt}"

    def replica_log(self, job_id: str, attempt: int, pool: int, index: int) -> Path:
        return self.run_dir(job_id, attempt) / f"workerpool{pool}-{index}.log"

    def exists(self) -> bool:
        return self.root.is_dir()

    def stack_file_made(self) -> bool:
        """Whether an `up` prepared the stack here (so there may be something to destroy)."""
        return (self.project_dir / "stacks" / f"Pulumi.{self.stack}.yaml").is_file()
