"""Typed arguments for building a job's spec in code instead of config.

Each class maps onto the Vertex REST shape the spec layer validates: `to_rest()`
writes the same camelCase dict a config would, so a typed job and a copied
`request.json` reach the provider, and its canonical form, identically. Values
may be Pulumi Inputs (an image URI from another resource, say): they are kept
as they are and resolved by Pulumi before the provider sees them.

A JobSpec is validated when it is made, by the rules the provider's `check`
applies (spec.validate), so a mistake fails at the line that wrote it, naming
the field. A value that is a Pulumi Input is unknown then and skipped: the
provider checks it once Pulumi knows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import Field, dataclass, field, fields
from typing import Any, ClassVar

import pulumi

from components.spot_job.model import spec

# What a value unknown at construction (a pulumi.Output, an awaitable) stands as in spec.validate.
UNKNOWN = "\x00unknown at construction\x00"


class TypedSpecError(spec.SpecError, pulumi.RunError):
    """A typed spec that spec.validate refuses. A RunError: the language host prints it without a traceback."""

    def __init__(self, failures: list[spec.Failure], owner: str = "") -> None:
        super().__init__(failures)
        if owner:
            self.args = (f"{owner}: {self.args[0]}",)


def known_view(value: Any) -> Any:
    """`value` with every value not yet known (anything but plain data) replaced by UNKNOWN."""
    if isinstance(value, Mapping):
        return {key: known_view(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [known_view(item) for item in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return UNKNOWN


def require_valid(inputs: Mapping[str, Any], owner: str = "", only: str = "") -> None:
    """TypedSpecError listing every failure of `inputs` (under `only`, a path prefix, if given)."""
    failures = [f for f in spec.validate(known_view(inputs), unknown=UNKNOWN) if f.path.startswith(only)]
    if failures:
        raise TypedSpecError(failures, owner)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _rest(value: Any) -> Any:
    if isinstance(value, _RestShape):
        return value.to_rest()
    if isinstance(value, (list, tuple)):
        return [_rest(item) for item in value]
    return value


class _RestShape:
    # Every shape is a dataclass; declared so that `fields(self)` type-checks on the base.
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def to_rest(self) -> dict[str, Any]:
        return {_camel(f.name): _rest(_field(self, f.name)) for f in fields(self) if getattr(self, f.name) is not None}


def _field(shape: _RestShape, name: str) -> Any:
    value = getattr(shape, name)
    if name == "env" and isinstance(value, dict):  # a name -> value map, written as REST's EnvVar list
        return [{"name": key, "value": item} for key, item in value.items()]
    return value


@dataclass
class MachineSpec(_RestShape):
    machine_type: Any
    accelerator_type: str | None = None
    accelerator_count: int | None = None
    tpu_topology: str | None = None


@dataclass
class DiskSpec(_RestShape):
    boot_disk_type: str | None = None
    boot_disk_size_gb: int | None = None


@dataclass
class ContainerSpec(_RestShape):
    image_uri: Any
    command: Sequence[Any] | None = None
    args: Sequence[Any] | None = None
    env: dict[str, Any] | None = None  # name -> value, in order


@dataclass
class PythonPackageSpec(_RestShape):
    executor_image_uri: Any
    package_uris: Sequence[Any]
    python_module: Any
    args: Sequence[Any] | None = None
    env: dict[str, Any] | None = None


@dataclass
class WorkerPoolSpec(_RestShape):
    machine_spec: MachineSpec
    container_spec: ContainerSpec | None = None
    python_package_spec: PythonPackageSpec | None = None
    replica_count: int | None = None
    disk_spec: DiskSpec | None = None


@dataclass
class Scheduling(_RestShape):
    strategy: str | None = None  # SPOT when omitted
    timeout: str | None = None
    restart_job_on_worker_restart: bool | None = None
    disable_retries: bool | None = None
    max_wait_duration: str | None = None


@dataclass
class JobSpec(_RestShape):
    worker_pool_specs: Sequence[WorkerPoolSpec | None]  # None holds an empty pool's position
    scheduling: Scheduling | None = None
    service_account: Any = None
    network: Any = None
    base_output_directory: Any = None  # a gs:// prefix
    tensorboard: Any = None
    enable_web_access: bool | None = None
    reserved_ip_ranges: Sequence[str] | None = None
    experiment: Any = None
    experiment_run: Any = None
    extra: dict[str, Any] = field(default_factory=dict)  # any other CustomJobSpec field, REST-shaped

    def to_rest(self) -> dict[str, Any]:
        body = {
            _camel(f.name): _rest(getattr(self, f.name))
            for f in fields(self)
            if f.name not in ("extra", "worker_pool_specs", "base_output_directory") and getattr(self, f.name) is not None
        }
        body["workerPoolSpecs"] = [{} if pool is None else pool.to_rest() for pool in self.worker_pool_specs]
        if self.base_output_directory is not None:
            body["baseOutputDirectory"] = {"outputUriPrefix": self.base_output_directory}
        return {**body, **self.extra}

    def __post_init__(self) -> None:
        # Only the jobSpec's own rules: project, location and the rest belong to the resource.
        if isinstance(self.worker_pool_specs, (list, tuple)):
            require_valid({"project": UNKNOWN, "location": UNKNOWN, "jobSpec": self.to_rest()}, "JobSpec", only="jobSpec")


@dataclass
class FallbackRung(_RestShape):
    after_stockouts: int  # after this many STOCKOUT failures on SPOT ...
    # ... submit with FLEX_START, STANDARD, or auto (FLEX_START where it applies); auto when
    # the rung names no location, else the strategy the rungs before it reached
    strategy: str | None = None
    location: str | None = None  # ... in this region instead of the job's own
    kms_key_name: str | None = None  # the CMEK key in `location`, for a job with encryptionSpec

    def __post_init__(self) -> None:
        if self.strategy is None and self.location is None:
            self.strategy = "auto"


@dataclass
class ResubmissionPolicy(_RestShape):
    """What `pulumi up` does with a job that ended FAILED (decision/resubmission_policy.py)."""

    max_resubmissions: int | None = None  # default 3
    on_other_failures: bool | None = None  # also resubmit failures other than STOCKOUT
    fallback: Sequence[FallbackRung] | None = None  # off unless set: cost safety
