"""The engine tests' faults, laid over the sandbox's stand-in gcp plugin (sandbox/gcp/provider.py).

Started by the engine as `pulumi-resource-gcp` from tests/engine/bin/, so that
what a user's sandbox runs has no fault in its path. The rules come from the
JSON list in the file STAND_IN_GCP_FAULTS names (a test writes it; each plugin
process the engine starts reads it on every call, and counts a rule's `times`
down in it, so "once" holds across commands). A rule names a `method` (Create,
Read, Delete), a resource `name` (the last part of its URN) and a `fault`:

- `exists` (Create): Google's 409, the resource exists already;
- `sa-propagating` (Create of a binding): Google's 400 for a member that is a
  service account Google does not know yet (IAM takes up to minutes to see a
  new one);
- `not-empty` (Delete of a bucket): Google's 409 for a bucket holding objects,
  which terraform-provider-google reports unless `forceDestroy`;
- `gone` (Read): Google's 404: the resource was deleted out of band, Read
  answers an empty id, and the engine drops it from state;
- `drift` (Read, with `outputs`): the resource was changed out of band, Read
  answers its state and inputs with `outputs` laid over them.

An error's text is shaped like terraform-provider-google's (its operation,
then googleapi's `Error <code>: <message>, <reason>`).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script by the engine: the project's packages

import grpc  # noqa: E402
from pulumi.runtime.proto import provider_pb2  # noqa: E402

from sandbox.gcp.plugin import as_dict, as_struct, plain, resource_type, serve  # noqa: E402
from sandbox.gcp.provider import StandInGcpProvider, not_empty_error  # noqa: E402
from sandbox.gcp.storage import Storage  # noqa: E402


def _member_email(member: str) -> str:
    return member.partition(":")[2]


def fault_error(fault: str, type_: str, inputs: dict) -> str:
    """The error terraform-provider-google returns for this fault, as the bridge passes it on."""
    i = {k: plain(v) for k, v in inputs.items()}
    if fault == "exists":
        if type_ == "gcp:serviceaccount/account:Account":
            return (f"Error creating service account: googleapi: Error 409: Service account {i.get('accountId')} "
                    f"already exists within project projects/{i.get('project')}., alreadyExists")
        if type_ == "gcp:storage/bucket:Bucket":
            return ("googleapi: Error 409: Your previous request to create the named bucket succeeded and you "
                    "already own it., conflict")
        return f"Error creating {type_.rsplit(':', 1)[-1]}: googleapi: Error 409: the resource already exists, alreadyExists"
    if fault == "sa-propagating":
        email = _member_email(str(i.get("member", "")))
        target = i.get("bucket") or i.get("repository") or i.get("serviceAccountId") or i.get("secretId") or i.get("project")
        return (f"Error applying IAM policy for {type_.rsplit(':', 1)[-1]} {target!r}: Error setting IAM policy: "
                f"googleapi: Error 400: Service account {email} does not exist., badRequest")
    if fault == "not-empty":
        return f"Error trying to delete bucket {i.get('name')} containing objects without `force_destroy` set to true"
    raise ValueError(f"no such fault {fault!r}")


class Faults:
    """The rules of the STAND_IN_GCP_FAULTS file, shared by every plugin process of a test (a file lock)."""

    def __init__(self, path: str | None) -> None:
        self._path = path

    def take(self, method: str, name: str) -> dict[str, Any] | None:
        """The first rule for this call, its `times` counted down (a rule without `times` holds for good)."""
        if not self._path or not os.path.exists(self._path):
            return None
        with open(self._path, "r+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            rules: list[dict[str, Any]] = json.loads(f.read() or "[]")
            for rule in rules:
                if rule["method"] == method and rule["name"] == name and rule.get("times", 1) != 0:
                    if "times" in rule:
                        rule["times"] -= 1
                        f.seek(0)
                        f.truncate()
                        f.write(json.dumps(rules))
                    return rule
        return None

class FaultyGcpProvider(StandInGcpProvider):
    """The stand-in, failing on cue (the module's docstring)."""

    def __init__(self, log_path: str | None, faults_path: str | None, storage: Storage | None) -> None:
        super().__init__(log_path, storage)
        self._faults = Faults(faults_path)

    def Create(self, request, context):
        if not request.preview:
            rule = self._faults.take("Create", request.urn.split("::")[-1])
            if rule:
                inputs = as_dict(request.properties)
                self._record("Create", urn=request.urn, preview=False, inputs=inputs, fault=rule["fault"])
                context.abort(grpc.StatusCode.UNKNOWN, fault_error(rule["fault"], resource_type(request.urn), inputs))
        return super().Create(request, context)

    def Read(self, request, context):
        rule = self._faults.take("Read", request.urn.split("::")[-1])
        if not rule:
            return super().Read(request, context)
        self._record("Read", urn=request.urn, id=request.id, fault=rule["fault"])
        if rule["fault"] == "gone":
            return provider_pb2.ReadResponse(id="")  # a 404: the bridge answers an empty id, and the engine drops it
        drifted = rule["outputs"]
        return provider_pb2.ReadResponse(
            id=request.id,
            properties=as_struct({**as_dict(request.properties), **drifted}),
            inputs=as_struct({**as_dict(request.inputs), **drifted}),
        )

    def Delete(self, request, context):
        rule = self._faults.take("Delete", request.urn.split("::")[-1])
        state = as_dict(request.properties)
        if rule and rule["fault"] == "not-empty" and not plain(state.get("forceDestroy")):
            # With forceDestroy the real provider deletes the objects first, then the bucket.
            self._record("Delete", urn=request.urn, id=request.id, fault=rule["fault"])
            context.abort(grpc.StatusCode.UNKNOWN, not_empty_error({k: plain(v) for k, v in state.items()}))
        return super().Delete(request, context)


if __name__ == "__main__":
    serve(FaultyGcpProvider(os.environ.get("STAND_IN_GCP_LOG"), os.environ.get("STAND_IN_GCP_FAULTS"), Storage.from_environment()))
