"""StandInGcpProvider: the sandbox's stand-in for the `gcp` provider plugin (pulumi-gcp).

The real plugin cannot be had here, and would call Google. This one keeps no
cloud but Cloud Storage: started by the engine as `pulumi-resource-gcp`
(sandbox/bin/), it answers Create with the inputs plus the outputs Google
computes for the resource types the program registers (a service account's
email, a repository's name, ...), Read echoes the state, Diff names the changed
input keys (a change Google cannot apply in place replaces the resource), and
the invokes the program calls answer with outputs shaped like the real
provider's.

What it simulates, and what it does not:
- Cloud Storage is real, when STORAGE_EMULATOR_HOST names fake-gcs-server (the
  sandbox's): a Bucket's Create makes the bucket there, a BucketObject's
  Create and Update upload its `source` (a file asset) or `content`, and their
  Delete removes them (a bucket holding objects only with `forceDestroy`, as
  terraform-provider-google refuses otherwise). Without it, they are state only.
- Everything else is state only: no IAM grant is enforced, no service account
  or repository exists anywhere, and an image looked up by tag
  (`getDockerImage`) is answered with a digest made from its name, as if pushed.
- As strict as a bridged provider (pulumi-gcp is terraform-provider-google
  under Pulumi's bridge), or the checks on top of it cannot fail: at preview,
  Create answers every output Google computes (an account's `email`, `member`,
  `name`, `uniqueId`; a repository's `name`; a bucket's `url`, `selfLink`; a
  binding's `etag`) as unknown, as the bridge answers Terraform's "known after
  apply": only the inputs are known.

With STAND_IN_GCP_LOG naming a file, every call is recorded there (plugin.py).
The engine tests' faults (a 409, IAM propagation, a bucket not empty, a
resource gone or drifted) are theirs: tests/engine/gcp_faults.py.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from typing import Any

import grpc
from google.protobuf import empty_pb2
from pulumi.runtime.proto import plugin_pb2, provider_pb2, provider_pb2_grpc

from sandbox.gcp.plugin import UNKNOWN, CallLog, as_dict, as_struct, asset_bytes, plain, resource_type, secret, serve
from sandbox.gcp.storage import Storage

PROJECT_NUMBER = "123456789012"  # what Google would number the project

BUCKET = "gcp:storage/bucket:Bucket"
OBJECT = "gcp:storage/bucketObject:BucketObject"
# Inputs whose change Google cannot apply in place: the real provider replaces the resource.
REPLACE_ON_CHANGE = {
    "project", "location", "accountId", "repositoryId", "format", "bucket", "name", "member", "role",
    "serviceAccountId", "secretId", "source", "contentType", "repository",
}












def computed(type_: str, inputs: dict[str, Any], name: str) -> tuple[str, dict[str, Any]]:
    """The id and outputs Google gives a new resource of this type, from its inputs."""
    i = {k: plain(v) for k, v in inputs.items()}
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


def computed_keys(type_: str, inputs: dict[str, Any]) -> set[str]:
    """The outputs Google computes for a resource of this type: those a preview leaves unknown."""
    placeholder = {k: (v if v != UNKNOWN else "x") for k, v in inputs.items()}
    for key in ("accountId", "name", "bucket", "repositoryId", "location", "project"):
        placeholder.setdefault(key, "x")
    _, outs = computed(type_, placeholder, "x")
    return {k for k in outs if k not in inputs}


def previewed(type_: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """What a bridged provider's Create answers at preview: the inputs, and each computed output unknown."""
    return {**inputs, **{key: UNKNOWN for key in computed_keys(type_, inputs)}}


def invoke(token: str, args: dict[str, Any]) -> dict[str, Any]:
    a = {k: plain(v) for k, v in args.items()}
    if token == "gcp:organizations/getProject:getProject":
        project = a.get("projectId", "")
        return {"id": f"projects/{project}", "projectId": project, "number": PROJECT_NUMBER, "name": project}
    if token == "gcp:organizations/getClientConfig:getClientConfig":
        # pulumi-gcp marks the token sensitive: it arrives as a secret.
        return {"id": "stand-in", "accessToken": secret("stand-in-access-token"), "project": a.get("project", ""), "region": "", "zone": ""}
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


class StandInGcpProvider(provider_pb2_grpc.ResourceProviderServicer):
    def __init__(self, log_path: str | None, storage: Storage | None = None) -> None:
        self._log = CallLog(log_path)
        self._storage = storage

    def _record(self, method: str, **fields: Any) -> None:
        self._log.record(method, **fields)

    def GetPluginInfo(self, request: empty_pb2.Empty, context: grpc.ServicerContext) -> plugin_pb2.PluginInfo:
        return plugin_pb2.PluginInfo(version=importlib.metadata.version("pulumi_gcp"))

    def CheckConfig(self, request: provider_pb2.CheckRequest, context: grpc.ServicerContext) -> provider_pb2.CheckResponse:
        self._record("CheckConfig", urn=request.urn)
        return provider_pb2.CheckResponse(inputs=request.news)

    def DiffConfig(self, request: provider_pb2.DiffRequest, context: grpc.ServicerContext) -> provider_pb2.DiffResponse:
        return provider_pb2.DiffResponse(changes=provider_pb2.DiffResponse.DIFF_NONE)

    def Configure(self, request: provider_pb2.ConfigureRequest, context: grpc.ServicerContext) -> provider_pb2.ConfigureResponse:
        self._record("Configure", variables=dict(request.variables), args=as_dict(request.args))
        return provider_pb2.ConfigureResponse(acceptSecrets=True, supportsPreview=True, acceptResources=True)

    def Invoke(self, request: provider_pb2.InvokeRequest, context: grpc.ServicerContext) -> provider_pb2.InvokeResponse:
        args = as_dict(request.args)
        self._record("Invoke", token=request.tok, args=args)
        try:
            result = invoke(request.tok, args)
        except KeyError:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, f"the stand-in gcp provider has no invoke {request.tok}")
        return provider_pb2.InvokeResponse(**{"return": as_struct(result)})

    def Check(self, request: provider_pb2.CheckRequest, context: grpc.ServicerContext) -> provider_pb2.CheckResponse:
        news = as_dict(request.news)
        self._record("Check", urn=request.urn, inputs=news)
        return provider_pb2.CheckResponse(inputs=request.news)

    def Diff(self, request: provider_pb2.DiffRequest, context: grpc.ServicerContext) -> provider_pb2.DiffResponse:
        olds = as_dict(request.old_inputs) or as_dict(request.olds)
        news = as_dict(request.news)
        changed = sorted(k for k in set(olds) | set(news) if olds.get(k) != news.get(k))
        replaces = [k for k in changed if k in REPLACE_ON_CHANGE]
        self._record("Diff", urn=request.urn, id=request.id, changed=changed)
        return provider_pb2.DiffResponse(
            changes=provider_pb2.DiffResponse.DIFF_SOME if changed else provider_pb2.DiffResponse.DIFF_NONE,
            diffs=changed, replaces=replaces,
        )

    def Create(self, request: provider_pb2.CreateRequest, context: grpc.ServicerContext) -> provider_pb2.CreateResponse:
        inputs = as_dict(request.properties)
        name, type_ = request.urn.split("::")[-1], resource_type(request.urn)
        if request.preview:
            outs = previewed(type_, inputs)
            self._record("Create", urn=request.urn, preview=True, inputs=inputs, outputs=outs)
            return provider_pb2.CreateResponse(id="", properties=as_struct(outs))
        id_, outs = computed(type_, inputs, name)
        self._apply(type_, inputs)
        self._record("Create", urn=request.urn, preview=False, inputs=inputs, outputs=outs)
        return provider_pb2.CreateResponse(id=id_, properties=as_struct(outs))

    def Read(self, request: provider_pb2.ReadRequest, context: grpc.ServicerContext) -> provider_pb2.ReadResponse:
        self._record("Read", urn=request.urn, id=request.id, fault=None)
        return provider_pb2.ReadResponse(id=request.id, properties=request.properties, inputs=request.inputs)

    def Update(self, request: provider_pb2.UpdateRequest, context: grpc.ServicerContext) -> provider_pb2.UpdateResponse:
        news = as_dict(request.news)
        self._record("Update", urn=request.urn, id=request.id, preview=request.preview, inputs=news)
        _, outs = computed(resource_type(request.urn), news, request.urn.split("::")[-1])
        if not request.preview:
            self._apply(resource_type(request.urn), news)
        return provider_pb2.UpdateResponse(properties=as_struct(outs))

    def Delete(self, request: provider_pb2.DeleteRequest, context: grpc.ServicerContext) -> empty_pb2.Empty:
        self._record("Delete", urn=request.urn, id=request.id, fault=None)
        state = {k: plain(v) for k, v in as_dict(request.properties).items()}
        type_ = resource_type(request.urn)
        if self._storage is not None and type_ == BUCKET and not self._storage.delete_bucket(state["name"], bool(state.get("forceDestroy"))):
            context.abort(grpc.StatusCode.UNKNOWN, not_empty_error(state))
        if self._storage is not None and type_ == OBJECT:
            self._storage.delete_object(state["bucket"], state["name"])
        return empty_pb2.Empty()

    def Cancel(self, request: empty_pb2.Empty, context: grpc.ServicerContext) -> empty_pb2.Empty:
        return empty_pb2.Empty()

    def _apply(self, type_: str, inputs: dict[str, Any]) -> None:
        """What Cloud Storage holds after a Create or Update (nothing without the storage emulator)."""
        if self._storage is None:
            return
        i = {k: plain(v) for k, v in inputs.items()}
        if type_ == BUCKET:
            self._storage.make_bucket(i["name"])
        elif type_ == OBJECT:
            data = asset_bytes(inputs.get("source"))
            if data is None and i.get("content") is not None:
                data = str(i["content"]).encode()
            self._storage.put_object(i["bucket"], i["name"], data or b"")


def not_empty_error(state: dict[str, Any]) -> str:
    """terraform-provider-google's refusal to delete a bucket that holds objects, as the bridge passes it on."""
    return f"Error trying to delete bucket {state.get('name')} containing objects without `force_destroy` set to true"


def main() -> None:
    serve(StandInGcpProvider(os.environ.get("STAND_IN_GCP_LOG"), Storage.from_environment()))


if __name__ == "__main__":
    main()
