"""OfflineMocks: what the engine and Google would answer, where it can be known offline.

It records every resource the program registers (type, name, inputs, as the
SDK's MockResourceArgs) and answers with what Google computes deterministically
(a service account's email, a bucket's URL). What only Google Cloud knows (the
digest a tag points to, the digest of an image not built yet) is answered with
a stand-in that says so: a pushed image by its tag, a built one by
UNBUILT_DIGEST.
"""

from __future__ import annotations

import pulumi

# The digest of an image the stack builds at deploy time: unknown until then.
UNBUILT_DIGEST = "sha256:" + "0" * 64
PROJECT_NUMBER = "000000000000"  # the project's number, known only to Google


class OfflineMocks(pulumi.runtime.Mocks):
    project_number = PROJECT_NUMBER

    def __init__(self) -> None:
        self.resources: list[pulumi.runtime.MockResourceArgs] = []
        self.pinned: set[str] = set()  # the stand-ins returned for `${images.*}` tags the deploy pins

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.resources.append(args)
        state = dict(args.inputs)
        if args.typ.endswith("SpotTrainingJob"):
            state.update(state="JOB_STATE_QUEUED", jobId="1234567890123456789")
            return f"projects/{state['project']}/locations/{state['location']}/customJobs/1234567890123456789", state
        if args.typ == "gcp:serviceaccount/account:Account":
            # What Google computes for a new service account.
            email = f"{state['accountId']}@{state['project']}.iam.gserviceaccount.com"
            state.update(email=email, name=f"projects/{state['project']}/serviceAccounts/{email}", member=f"serviceAccount:{email}")
        if args.typ == "docker-build:index:Image":
            state["digest"] = self.built_digest(state)
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs):
        if args.token == "gcp:organizations/getProject:getProject":
            return {"number": self.project_number, "projectId": args.args.get("projectId")}
        if args.token == "gcp:organizations/getClientConfig:getClientConfig":
            return {"accessToken": "offline", "project": args.args.get("project")}
        if args.token == "gcp:artifactregistry/getDockerImage:getDockerImage":
            a = args.args
            name, _, tag = a["imageName"].partition(":")
            path = f"{a['location']}-docker.pkg.dev/{a['project']}/{a['repositoryId']}/{name}"
            return {"selfLink": self.pushed_image(path, tag), "name": name, "tags": [tag]}
        return {}

    def pushed_image(self, path: str, tag: str) -> str:
        """What Artifact Registry resolves `path:tag` to: offline, the tag itself."""
        stand_in = f"{path}:{tag}"
        self.pinned.add(stand_in)
        return stand_in

    def built_digest(self, state: dict) -> str:
        """The digest a build of this image context pushes."""
        return UNBUILT_DIGEST

    def of_type(self, suffix: str) -> list[pulumi.runtime.MockResourceArgs]:
        return [r for r in self.resources if r.typ.endswith(suffix)]
