"""A stand-in for the `gcp` resource provider plugin (pulumi-gcp), for the engine tests.

The real plugin cannot be had here, and would call Google. This one is a gRPC
ResourceProvider server built on the stubs the Python SDK ships
(`pulumi.runtime.proto`), started by the engine as `pulumi-resource-gcp` the
way it starts pulumi-gcp: it prints its port and serves until killed. It keeps
no cloud: Create answers with the inputs plus the outputs Google computes for
the resource types the program registers (a service account's email, a
repository's name, ...), Read echoes the state, Diff names the changed input
keys, and the invokes the program calls answer with outputs shaped like the
real provider's.

As strict as a bridged provider (pulumi-gcp is terraform-provider-google under
Pulumi's bridge), or the checks on top of it cannot fail:

- At preview, Create answers every output Google computes (an account's
  `email`, `member`, `name`, `uniqueId`; a repository's `name`; a bucket's
  `url`, `selfLink`; a binding's `etag`) as unknown, as the bridge answers
  Terraform's "known after apply": only the inputs are known.
- Faults on cue, from the JSON list in the file STAND_IN_GCP_FAULTS names (a
  test writes it; each plugin process the engine starts reads it on every
  call, and counts a rule's `times` down in it, so "once" holds across
  commands). A rule names a `method` (Create, Read, Delete), a resource
  `name` (the last part of its URN) and a `fault`:
  - `exists` (Create): Google's 409, the resource exists already;
  - `sa-propagating` (Create of a binding): Google's 400 for a member that
    is a service account Google does not know yet (IAM takes up to minutes
    to see a new one);
  - `not-empty` (Delete of a bucket): Google's 409 for a bucket holding
    objects, which terraform-provider-google reports unless `forceDestroy`;
  - `gone` (Read): Google's 404: the resource was deleted out of band, Read
    answers an empty id, and the engine drops it from state;
  - `drift` (Read, with `outputs`): the resource was changed out of band,
    Read answers its state and inputs with `outputs` laid over them.
  An error's text is shaped like terraform-provider-google's (its operation,
  then googleapi's `Error <code>: <message>, <reason>`).

It records every call it was asked (method, type or token, URN, inputs) as one
JSON line in the file named by STAND_IN_GCP_LOG, so a test can check what the
engine asked of the Google provider.

Properties travel as the engine's JSON-shaped Struct: a secret or an unknown
arrives as the engine's own signature object and is answered back unchanged,
so the engine keeps it secret (acceptSecrets) or unknown.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import json
import os
import sys
import threading
from concurrent import futures
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import plugin_pb2, provider_pb2, provider_pb2_grpc

SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
SIG_KEY = "4dabf18193072939515e22adb298388d"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # how the engine's Struct carries a value not known yet
PROJECT_NUMBER = "123456789012"  # what Google would number the project

# Inputs whose change Google cannot apply in place: the real provider replaces the resource.
REPLACE_ON_CHANGE = {
    "project", "location", "accountId", "repositoryId", "format", "bucket", "name", "member", "role",
    "serviceAccountId", "secretId", "source", "contentType", "repository",
}


def _dict(struct: struct_pb2.Struct) -> dict:
    return json_format.MessageToDict(struct) if struct is not None else {}


def _struct(value: dict) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(value)
    return s


def _plain(value):
    """A value with the engine's secret wrapper taken off (to compute outputs from it)."""
    if isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG:
        return value.get("value")
    return value


def _secret(value) -> dict:
    return {SIG_KEY: SECRET_SIG, "value": value}


def _type(urn: str) -> str:
    # urn:pulumi:stack::project::parent$type::name
    return urn.split("::")[2].split("$")[-1]


def computed(type_: str, inputs: dict, name: str) -> tuple[str, dict]:
    """The id and outputs Google gives a new resource of this type, from its inputs."""
    i = {k: _plain(v) for k, v in inputs.items()}
    project = i.get("project", "")
    out = dict(inputs)
    if type_ == "gcp:serviceaccount/account:Account":
        email = f"{i['accountId']}@{project}.iam.gserviceaccount.com"
        out.update(
            email=email, member=f"serviceAccount:{email}", name=f"projects/{project}/serviceAccounts/{email}",
            uniqueId=str(int(hashlib.sha256(email.encode()).hexdigest(), 16) % 10**21),
        )
        return out["name"], out
    if type_ == "gcp:storage/bucket:Bucket":
        out.update(url=f"gs://{i['name']}", selfLink=f"https://www.googleapis.com/storage/v1/b/{i['name']}")
        return i["name"], out
    if type_ == "gcp:storage/bucketObject:BucketObject":
        out.update(
            selfLink=f"https://www.googleapis.com/storage/v1/b/{i['bucket']}/o/{i['name']}",
            mediaLink=f"https://storage.googleapis.com/download/storage/v1/b/{i['bucket']}/o/{i['name']}?alt=media",
            outputName=i["name"], md5hash="stand-in",
        )
        return f"{i['bucket']}-{i['name']}", out
    if type_ == "gcp:artifactregistry/repository:Repository":
        location = i.get("location", "")
        out["name"] = f"projects/{project}/locations/{location}/repositories/{i['repositoryId']}"
        return out["name"], out
    if type_.endswith(("IamMember:RepositoryIamMember", "IAMMember", "IamMember")):
        out["etag"] = "BwStandIn="
        target = i.get("repository") or i.get("bucket") or i.get("serviceAccountId") or i.get("secretId") or project
        return f"{target}/{i.get('role')}/{i.get('member')}", out
    return f"{name}-id", out


def computed_keys(type_: str, inputs: dict) -> set[str]:
    """The outputs Google computes for a resource of this type: those a preview leaves unknown."""
    placeholder = {k: (v if v != UNKNOWN else "x") for k, v in inputs.items()}
    for key in ("accountId", "name", "bucket", "repositoryId", "location", "project"):
        placeholder.setdefault(key, "x")
    _, outs = computed(type_, placeholder, "x")
    return {k for k in outs if k not in inputs}


def previewed(type_: str, inputs: dict) -> dict:
    """What a bridged provider's Create answers at preview: the inputs, and each computed output unknown."""
    return {**inputs, **{key: UNKNOWN for key in computed_keys(type_, inputs)}}


def invoke(token: str, args: dict) -> dict:
    a = {k: _plain(v) for k, v in args.items()}
    if token == "gcp:organizations/getProject:getProject":
        project = a.get("projectId", "")
        return {"id": f"projects/{project}", "projectId": project, "number": PROJECT_NUMBER, "name": project}
    if token == "gcp:organizations/getClientConfig:getClientConfig":
        # pulumi-gcp marks the token sensitive: it arrives as a secret.
        return {"id": "stand-in", "accessToken": _secret("stand-in-access-token"), "project": a.get("project", ""), "region": "", "zone": ""}
    if token == "gcp:artifactregistry/getDockerImage:getDockerImage":
        name, _, tag = a["imageName"].partition(":")
        digest = "sha256:" + hashlib.sha256(f"{a['repositoryId']}/{a['imageName']}".encode()).hexdigest()
        path = f"{a['location']}-docker.pkg.dev/{a['project']}/{a['repositoryId']}/{name}"
        full = f"projects/{a['project']}/locations/{a['location']}/repositories/{a['repositoryId']}/dockerImages/{name}@{digest}"
        return {
            "id": full, "name": full, "selfLink": f"{path}@{digest}", "imageName": a["imageName"], "tags": [tag] if tag else [],
            "location": a["location"], "project": a["project"], "repositoryId": a["repositoryId"],
            "mediaType": "application/vnd.docker.distribution.manifest.v2+json", "imageSizeBytes": "1024",
            "uploadTime": "2026-11-30T00:00:00Z", "buildTime": "2026-11-30T00:00:00Z", "updateTime": "2026-11-30T00:00:00Z",
        }
    raise KeyError(token)


def _member_email(member: str) -> str:
    return member.partition(":")[2]


def fault_error(fault: str, type_: str, inputs: dict) -> str:
    """The error terraform-provider-google returns for this fault, as the bridge passes it on."""
    i = {k: _plain(v) for k, v in inputs.items()}
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


class StandInGcpProvider(provider_pb2_grpc.ResourceProviderServicer):
    def __init__(self, log_path: str | None, faults_path: str | None = None) -> None:
        self._log_path = log_path
        self._lock = threading.Lock()
        self._faults = Faults(faults_path)

    def _record(self, method: str, **fields) -> None:
        if not self._log_path:
            return
        with self._lock, open(self._log_path, "a") as f:
            f.write(json.dumps({"method": method, **fields}) + "\n")

    def GetPluginInfo(self, request, context):
        return plugin_pb2.PluginInfo(version=importlib.metadata.version("pulumi_gcp"))

    def CheckConfig(self, request, context):
        self._record("CheckConfig", urn=request.urn)
        return provider_pb2.CheckResponse(inputs=request.news)

    def DiffConfig(self, request, context):
        return provider_pb2.DiffResponse(changes=provider_pb2.DiffResponse.DIFF_NONE)

    def Configure(self, request, context):
        self._record("Configure", variables=dict(request.variables), args=_dict(request.args))
        return provider_pb2.ConfigureResponse(acceptSecrets=True, supportsPreview=True, acceptResources=True)

    def Invoke(self, request, context):
        args = _dict(request.args)
        self._record("Invoke", token=request.tok, args=args)
        try:
            result = invoke(request.tok, args)
        except KeyError:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, f"the stand-in gcp provider has no invoke {request.tok}")
        return provider_pb2.InvokeResponse(**{"return": _struct(result)})

    def Check(self, request, context):
        news = _dict(request.news)
        self._record("Check", urn=request.urn, inputs=news)
        return provider_pb2.CheckResponse(inputs=request.news)

    def Diff(self, request, context):
        olds = _dict(request.old_inputs) or _dict(request.olds)
        news = _dict(request.news)
        changed = sorted(k for k in set(olds) | set(news) if olds.get(k) != news.get(k))
        replaces = [k for k in changed if k in REPLACE_ON_CHANGE]
        self._record("Diff", urn=request.urn, id=request.id, changed=changed)
        return provider_pb2.DiffResponse(
            changes=provider_pb2.DiffResponse.DIFF_SOME if changed else provider_pb2.DiffResponse.DIFF_NONE,
            diffs=changed, replaces=replaces,
        )

    def Create(self, request, context):
        inputs = _dict(request.properties)
        name, type_ = request.urn.split("::")[-1], _type(request.urn)
        if request.preview:
            outs = previewed(type_, inputs)
            self._record("Create", urn=request.urn, preview=True, inputs=inputs, outputs=outs)
            return provider_pb2.CreateResponse(id="", properties=_struct(outs))
        rule = self._faults.take("Create", name)
        if rule:
            self._record("Create", urn=request.urn, preview=False, inputs=inputs, fault=rule["fault"])
            context.abort(grpc.StatusCode.UNKNOWN, fault_error(rule["fault"], type_, inputs))
        id_, outs = computed(type_, inputs, name)
        self._record("Create", urn=request.urn, preview=False, inputs=inputs, outputs=outs)
        return provider_pb2.CreateResponse(id=id_, properties=_struct(outs))

    def Read(self, request, context):
        rule = self._faults.take("Read", request.urn.split("::")[-1])
        self._record("Read", urn=request.urn, id=request.id, fault=rule["fault"] if rule else None)
        if rule and rule["fault"] == "gone":
            return provider_pb2.ReadResponse(id="")  # a 404: the bridge answers an empty id, and the engine drops it
        if rule and rule["fault"] == "drift":
            drifted = rule["outputs"]
            return provider_pb2.ReadResponse(
                id=request.id,
                properties=_struct({**_dict(request.properties), **drifted}),
                inputs=_struct({**_dict(request.inputs), **drifted}),
            )
        return provider_pb2.ReadResponse(id=request.id, properties=request.properties, inputs=request.inputs)

    def Update(self, request, context):
        news = _dict(request.news)
        self._record("Update", urn=request.urn, id=request.id, preview=request.preview, inputs=news)
        _, outs = computed(_type(request.urn), news, request.urn.split("::")[-1])
        return provider_pb2.UpdateResponse(properties=_struct(outs))

    def Delete(self, request, context):
        rule = self._faults.take("Delete", request.urn.split("::")[-1])
        self._record("Delete", urn=request.urn, id=request.id, fault=rule["fault"] if rule else None)
        state = _dict(request.properties)
        if rule and rule["fault"] == "not-empty" and not _plain(state.get("forceDestroy")):
            # With forceDestroy the real provider deletes the objects first, then the bucket.
            context.abort(grpc.StatusCode.UNKNOWN, fault_error("not-empty", _type(request.urn), state))
        return empty_pb2.Empty()

    def Cancel(self, request, context):
        return empty_pb2.Empty()


def main() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    provider = StandInGcpProvider(os.environ.get("STAND_IN_GCP_LOG"), os.environ.get("STAND_IN_GCP_FAULTS"))
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(provider, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    server.wait_for_termination()


if __name__ == "__main__":
    main()
