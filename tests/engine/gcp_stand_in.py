"""A stand-in for the `gcp` resource provider plugin (pulumi-gcp), for the engine tests.

The real plugin cannot be had here, and would call Google. This one is a gRPC
ResourceProvider server built on the stubs the Python SDK ships
(`pulumi.runtime.proto`), started by the engine as `pulumi-resource-gcp` the
way it starts pulumi-gcp: it prints its port and serves until killed. It keeps
no cloud: Create answers with the inputs plus the outputs Google computes for
the resource types the program registers (a service account's email, a
repository's name, ...), Read echoes the state (nothing changes out of band),
Diff names the changed input keys, and the invokes the program calls answer with
outputs shaped like the real provider's.

It records every call it was asked (method, type or token, URN, inputs) as one
JSON line in the file named by STAND_IN_GCP_LOG, so a test can check what the
engine asked of the Google provider.

Properties travel as the engine's JSON-shaped Struct: a secret or an unknown
arrives as the engine's own signature object and is answered back unchanged,
so the engine keeps it secret (acceptSecrets) or unknown.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
import threading
from concurrent import futures

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import plugin_pb2, provider_pb2, provider_pb2_grpc

SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
SIG_KEY = "4dabf18193072939515e22adb298388d"
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


class StandInGcpProvider(provider_pb2_grpc.ResourceProviderServicer):
    def __init__(self, log_path: str | None) -> None:
        self._log_path = log_path
        self._lock = threading.Lock()

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
        name = request.urn.split("::")[-1]
        id_, outs = computed(_type(request.urn), inputs, name)
        self._record("Create", urn=request.urn, preview=request.preview, inputs=inputs)
        return provider_pb2.CreateResponse(id="" if request.preview else id_, properties=_struct(outs))

    def Read(self, request, context):
        self._record("Read", urn=request.urn, id=request.id)
        return provider_pb2.ReadResponse(id=request.id, properties=request.properties, inputs=request.inputs)

    def Update(self, request, context):
        news = _dict(request.news)
        self._record("Update", urn=request.urn, id=request.id, preview=request.preview, inputs=news)
        _, outs = computed(_type(request.urn), news, request.urn.split("::")[-1])
        return provider_pb2.UpdateResponse(properties=_struct(outs))

    def Delete(self, request, context):
        self._record("Delete", urn=request.urn, id=request.id)
        return empty_pb2.Empty()

    def Cancel(self, request, context):
        return empty_pb2.Empty()


def main() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(StandInGcpProvider(os.environ.get("STAND_IN_GCP_LOG")), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    server.wait_for_termination()


if __name__ == "__main__":
    main()
