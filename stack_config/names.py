"""Names the stack derives from the config's team, environment and job names, and their rules."""

from __future__ import annotations

import hashlib
import re

from components.team_definition import TeamConfig, member_key  # the component's own naming of grants, not a copy of it

from .keys import NS

# Cloud Storage's bucket naming rules (https://cloud.google.com/storage/docs/buckets#naming):
# 3-63 characters (up to 222 with dots, each dot-separated part at most 63) of
# lowercase letters, digits, '-', '_' and '.', starting and ending with a letter
# or digit; not an IP address; no "goog" prefix and no "google" in it.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._-]*[a-z0-9]$")
_IP = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


def bucket_name_ok(name: str) -> bool:
    limit = 222 if "." in name else 63
    return (
        3 <= len(name) <= limit
        and bool(_BUCKET.match(name))
        and all(0 < len(part) <= 63 for part in name.split("."))
        and not _IP.match(name)
        and not name.startswith("goog")
        and "google" not in name
    )


# IAM's service account id (https://cloud.google.com/iam/docs/service-accounts-create):
# 6-30 lowercase letters, digits and '-', starting with a letter, ending with a letter or digit.
ACCOUNT_ID = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")
# Artifact Registry's repository id (https://cloud.google.com/artifact-registry/docs/repositories/create-repos):
# lowercase letters, digits and '-', starting with a letter, ending with a letter or digit, at most 63.
REPOSITORY_ID = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$")
_HASH = 6  # hex characters of the full name's hash a shortened id ends with


def account_id(team: str, environment: str) -> str:
    """The team's service account id: `{team}-train-{environment}` whenever IAM takes it.

    That is every id a stack has today, so no account is replaced. A longer one
    (team recommendation, environment production: 32 characters) is cut and
    ends with a hash of the whole name, so two teams never derive one id and
    the same config always derives the same. Team names start with a letter and
    the shortest derived id, `a-train-x`, has 9 characters: none needs padding.
    """
    full = f"{team}-train-{environment}"
    if ACCOUNT_ID.match(full):
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()[:_HASH]
    return f"{full[: 30 - _HASH - 1].rstrip('-')}-{digest}"


def clashing_resource_names(teams: dict[str, TeamConfig]) -> list[str]:
    """Resources named from the team's name and a key of its config: two entries that
    derive one name (team nlp's job bert-finetune, team nlp-bert's finetune) would be
    one resource, a URN clash only `pulumi up` would find."""
    first: dict[tuple[str, str], str] = {}
    failures = []
    for team in teams.values():
        path = f"{NS}:teams.{team.name}"
        named = [("job", f"{team.name}-{key}", f"{path}.jobs.{key}") for key in team.jobs]
        named += [("package", f"{team.name}-package-{key}", f"{path}.packages.{key}") for key in team.packages]
        named += [("secret", f"{team.name}-secrets-{key}", f"{path}.secrets.{key}") for key in team.secrets]
        named += [
            ("image", f"{team.name}-images-{image.name or key}", f"{path}.images.{key}")
            for key, image in team.images.items()
            if image.context is not None
        ]
        for kind, resource, where in named:
            if (kind, resource) in first:
                failures.append(f"{where}: its resource name {resource!r} is also {first[kind, resource]}'s; rename one of the {kind}s")
            else:
                first[kind, resource] = where
    return failures


def clashing_ids(teams: dict[str, TeamConfig]) -> list[str]:
    """Two teams with one service account, bucket or repository would share it, or fail at Google."""
    failures = []
    for key, attr, what in (
        ("serviceAccount.accountId", "service_account", "account_id"),
        ("bucket.name", "bucket", "name"),
        ("repository.repositoryId", "repository", "repository_id"),
    ):
        first: dict[str, str] = {}
        for team in teams.values():
            value = getattr(team, attr).get(what)
            if not isinstance(value, str):
                continue
            where = f"{NS}:teams.{team.name}.{key}"
            if value in first:
                failures.append(f"{where}: {value!r} is also {first[value]}'s; two teams cannot share it, set one")
            else:
                first[value] = where
    return failures


def clashing_members(deployers: list[str], teams: dict[str, TeamConfig]) -> list[str]:
    """A team's actAs grants are named by member (group:a.b@x -> group-a-b-x): two members that derive
    one name would be one grant, and one of them silently without it."""
    failures = []
    for team in teams.values():
        first: dict[str, tuple[str, str]] = {}
        listed = [(f"{NS}:deployers[{i}]", m) for i, m in enumerate(deployers)]
        listed += [(f"{NS}:teams.{team.name}.members[{i}]", m) for i, m in enumerate(team.members)]
        for where, member in listed:
            key = member_key(member)
            if key in first and first[key][1] != member:
                failures.append(
                    f"{where}: {member!r} and {first[key][0]} ({first[key][1]!r}) derive one grant name {key!r}; "
                    "list only one of them"
                )
            first.setdefault(key, (where, member))
    return failures
