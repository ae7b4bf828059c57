"""The JobService client of `google.cloud.aiplatform_v1` without importing the rest of it.

`import google.cloud.aiplatform_v1` runs the package's `__init__`, which
imports every one of its ~40 service clients (about 0.85 s of the ~1 s the
provider host spends importing vertex); the provider uses one, JobService, and
every `pulumi up` waits for that import before its first job is submitted
(and a no-change `up`'s refresh, before its first read). Its `types`
sub-package's `__init__` likewise imports all ~120 types modules, where the
JobService client uses 27: leaving it uninitialised too took the client's
import from 0.44 s to 0.27 s of CPU (BENCHMARKS §9).
So, if nothing in the process imported the package yet, it and its `types`
are registered uninitialised (their `__path__` set, their `__init__` not
run), the submodules the client imports are imported as usual, and each
`__init__` runs in full the first time anything reads a name from it that is
not a submodule (PEP 562 `__getattr__`), so the rest of the process (the
high-level SDK, a test) sees the package as it always is, with the very same
classes. Any surprise falls back to the plain import.

No Pulumi; imported by vertex only.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import SimpleNamespace
from typing import Any

PACKAGE = "google.cloud.aiplatform_v1"
TYPES = f"{PACKAGE}.types"


def job_service() -> SimpleNamespace:
    """(JobServiceClient, JobServiceGrpcTransport, CustomJob), as `aiplatform_v1.<name>`."""
    if PACKAGE not in sys.modules:
        try:
            _register_uninitialised(PACKAGE)
            _register_uninitialised(TYPES)
            return _names()
        except Exception:  # noqa: BLE001 - the plain import below is always right, only slower
            for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
                del sys.modules[name]
    importlib.import_module(PACKAGE)
    return _names()


def _names() -> SimpleNamespace:
    # The transport from the module that defines it: transports/__init__ re-exports it in an
    # __all__ built at run time, which mypy cannot read. The same class either way.
    from google.cloud.aiplatform_v1.services.job_service import JobServiceClient
    from google.cloud.aiplatform_v1.services.job_service.transports.grpc import JobServiceGrpcTransport
    from google.cloud.aiplatform_v1.types.custom_job import CustomJob

    return SimpleNamespace(JobServiceClient=JobServiceClient, JobServiceGrpcTransport=JobServiceGrpcTransport, CustomJob=CustomJob)


def _register_uninitialised(name: str) -> None:
    """`name`, a package whose parent is imported (or registered), in sys.modules without its
    `__init__` run: a submodule imports as usual; any other name runs the `__init__` in full, once."""
    parent, _, leaf = name.rpartition(".")
    importlib.import_module(parent)
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = spec.loader
    package = importlib.util.module_from_spec(spec)
    lock = threading.RLock()

    def __getattr__(attr: str) -> Any:  # noqa: N807 - PEP 562
        if not attr.startswith("__"):
            try:  # `from google.cloud.aiplatform_v1 import gapic_version`: a submodule, no full run
                return importlib.import_module(f"{name}.{attr}")
            except ModuleNotFoundError:
                pass
        with lock:  # anything else: run the package's __init__ once, in full
            if package.__dict__.get("__getattr__") is __getattr__:
                del package.__dict__["__getattr__"]
                loader.exec_module(package)
        try:
            return package.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    package.__dict__["__getattr__"] = __getattr__  # PEP 562: the module's __getattr__ lives in its namespace
    sys.modules[name] = package
    setattr(sys.modules[parent], leaf, package)
