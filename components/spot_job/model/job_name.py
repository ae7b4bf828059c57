"""A CustomJob's resource name, parsed once: `projects/{project}/locations/{location}/customJobs/{id}`.

Everything the project says about one job (its region, its console page, the
gcloud line that deletes its record) is derived here, so no caller splits a
name by hand. Pure: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

_SHAPE = "projects/{project}/locations/{location}/customJobs/{id}"


@dataclass(frozen=True, order=True)
class JobName:
    project: str
    location: str
    id: str

    @classmethod
    def parse(cls, name: str) -> JobName:
        """ValueError naming the expected shape if `name` is not a full CustomJob name."""
        parts = name.split("/")
        if len(parts) != 6 or parts[0] != "projects" or parts[2] != "locations" or parts[4] != "customJobs" or not all(parts[1::2]):
            raise ValueError(f"{name!r} is not a CustomJob name ({_SHAPE})")
        return cls(parts[1], parts[3], parts[5])

    @classmethod
    def of(cls, id_or_name: str, project: str, location: str) -> JobName:
        """From a state that holds the full name, or (older entries) only the id in the job's own region."""
        if "/" in id_or_name:
            return cls.parse(id_or_name)
        return cls(project, location, id_or_name)

    @property
    def parent(self) -> str:
        return parent_of(self.project, self.location)

    def __str__(self) -> str:
        return f"{self.parent}/customJobs/{self.id}"

    @property
    def console_url(self) -> str:
        """The Cloud console page of the job, linked as the Vertex AI SDK (2.x) links it."""
        return (
            f"https://console.cloud.google.com/agent-platform/locations/{self.location}/training/{self.id}"
            f"?project={self.project}"
        )

    def gcloud(self, verb: str) -> str:
        """The gcloud command that applies `verb` (describe, cancel, delete, stream-logs) to this job."""
        return f"gcloud ai custom-jobs {verb} {self.id} --region={self.location} --project={self.project}"


def parent_of(project: str, location: str) -> str:
    """The parent a job is created in and listed under: `projects/{project}/locations/{location}`."""
    return f"projects/{project}/locations/{location}"


def project_of(name_or_parent: str) -> str | None:
    """The project of a job's name or of a parent (`projects/{project}/locations/{location}`); None for anything else."""
    try:
        return JobName.parse(name_or_parent).project
    except ValueError:
        pass
    try:
        return split_parent(name_or_parent)[0]
    except ValueError:
        return None


def split_parent(parent: str) -> tuple[str, str]:
    """(project, location) of `projects/{project}/locations/{location}`; ValueError for anything else."""
    parts = parent.split("/")
    if len(parts) != 4 or parts[0] != "projects" or parts[2] != "locations" or not parts[1] or not parts[3]:
        raise ValueError(f"{parent!r} is not a parent (projects/{{project}}/locations/{{location}})")
    return parts[1], parts[3]
