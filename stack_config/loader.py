"""The stack config: typed, validated, every error naming its config path.

Read before any resource is registered, so a typo never reaches Google or
leaves half a stack behind. Unknown keys are errors, not silently ignored.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi

from components.job_body import job_body
from components.spot_job.model import redaction, schema, spec
from components.spot_job.model.job_name import JobName
from components.spot_job.model.typed_spec import UNKNOWN
from components.spot_job.rules import machine_types
from components.team_definition import IMAGE_REF, PACKAGE_REF, ImageConfig, JobConfig, SecretConfig, TeamConfig

from . import image_names, job_names, names, place, prices
from .keys import (
    BODY_KEYS,
    BUCKET_KEYS,
    IMPORT_KEY,
    KNOB_KEYS,
    NS,
    REPOSITORY_KEYS,
    SERVICE_ACCOUNT_KEYS,
    STACK_LABELS,
    hint,
    set_instead,
    unknown_keys,
)
from .names import bucket_name_ok
from .quotas import quotas as _quotas
from .secrets import Secrets, resolve_secret_refs

_SECRET_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_SECRET = re.compile(r"^projects/[a-z0-9][a-z0-9.:-]*/secrets/[A-Za-z0-9_-]{1,255}$")
_SECRET_VERSION = re.compile(r"^(latest|[1-9][0-9]*)$")
_TEAM_NAME = job_names.TEAM_NAME
_MEMBER = re.compile(r"^(user|group|serviceAccount|domain|principal|principalSet):\S+$")
_ENVIRONMENT = re.compile(r"^[a-z][a-z0-9-]{0,15}$")
# A value's kind as the stack file's YAML writes it.
_KINDS = {int: "a whole number of at least 0", bool: "true or false", str: "a string", list: "a list"}
# What a reference to a team's image or package is validated as: a value of its form.
_IMAGE_STAND_IN = "gcr.io/stand-in/image@sha256:" + "0" * 64
_PACKAGE_STAND_IN = "gs://stand-in/p.tar.gz"


class ConfigError(pulumi.RunError):
    """A stack config that cannot be deployed; the message lists each offending path."""

    def __init__(self, failures: list[str]) -> None:
        self.failures = failures
        super().__init__("invalid stack config:\n  " + "\n  ".join(failures))


@dataclass
class StackConfig:
    project: str
    region: str
    environment: str
    deployers: list[str]
    teams: dict[str, TeamConfig]


def load(
    get: Any, secret_leaves: Collection[str] = (), secret_env_values: bool = False, keys: Collection[str] = ()
) -> StackConfig:
    """`get(key)` returns a config value (objects already parsed) or None; `keys`
    are all the config keys the stack sets (a misspelt one of ours is an error).

    `secret_leaves` are the full config paths of the values set as secrets
    (`spot-training:teams.vision.jobs.resnet.workerPoolSpecs[0].containerSpec.env[0].value`);
    with `secret_env_values`, every env value of every job is taken as one
    (the config says the key is secret but not which of its values).
    """
    failures: list[str] = []
    secrets = Secrets(secret_leaves, secret_env_values)
    failures += unknown_keys(keys)
    project, region = get("gcp:project"), get("gcp:region")
    place.project(project, failures)
    extra_regions = place.extra_regions(get(f"{NS}:extraRegions"), failures)
    place.region(region, extra_regions, failures)
    for key in ("gcp:project", "gcp:region"):
        if f"{key}: is required" in failures:
            failures[failures.index(f"{key}: is required")] += set_instead(key, keys)
    environment = get(f"{NS}:environment")
    if environment is None:
        failures.append(f"{NS}:environment: is required: a short lowercase name such as dev or prod")
    elif not isinstance(environment, str) or not _ENVIRONMENT.match(environment):
        failures.append(
            f"{NS}:environment: {environment!r} is not an environment name: 1-16 lowercase letters, digits and '-', "
            f"starting with a letter, such as dev or prod{_write(environment, _ENVIRONMENT)}"
        )
    deployers = _members(get(f"{NS}:deployers") or [], f"{NS}:deployers", failures)
    raw_teams = get(f"{NS}:teams")
    teams: dict[str, TeamConfig] = {}
    if not isinstance(raw_teams, dict) or not raw_teams:
        failures.append(f"{NS}:teams: is required: a map of team name to team")
    else:
        for name, raw in raw_teams.items():
            teams[name] = _team(name, raw, f"{NS}:teams.{name}", project, region, environment, secrets, failures, set(raw_teams))
        failures += _ladder_regions(raw_teams, extra_regions)
        for name, team in teams.items():
            failures += _replica_regions(team.repository.get("replica_regions"), f"{NS}:teams.{name}.repository.replicaRegions", region, extra_regions)
        failures += names.clashing_resource_names(teams)
        failures += names.clashing_ids(teams)
        failures += names.clashing_members(deployers, teams)
    failures += secrets.misplaced()
    prices.parse(get(f"{NS}:prices"), failures)
    # Every job carries them to the provider host, which runs apart from this program.
    if (quotas := _quotas(get(f"{NS}:quotas"), failures)) is not None:
        for team in teams.values():
            for job in team.jobs.values():
                job.knobs["quotas"] = quotas
    if failures:
        # A failure may quote the value it rejects; a secret one is never shown.
        values = secrets.values(get)
        raise ConfigError([redaction.scrub(line, values) for line in failures])
    # What is deployable but worth a look: said once the errors, the first causes, are fixed.
    for warning in _warnings(teams):
        pulumi.log.warn(warning)
    return StackConfig(project, region, environment, deployers, teams)


def _warnings(teams: dict[str, TeamConfig]) -> list[str]:
    """A machine type no table lists, by its config path (left to Google: rules/machine_types.py)."""
    found = []
    for team in teams.values():
        for job_name, job in team.jobs.items():
            pools = job.body["jobSpec"].get("workerPoolSpecs")
            for i, pool in enumerate(pools if isinstance(pools, list) else []):
                machine = pool.get("machineSpec") if isinstance(pool, dict) else None
                reason = machine_types.unlisted(machine.get("machineType") if isinstance(machine, dict) else None)
                if reason:
                    found.append(f"{NS}:teams.{team.name}.jobs.{job_name}.workerPoolSpecs[{i}].machineSpec.machineType: {reason}")
    return found


def _write(value: Any, rule: re.Pattern[str], taken: Collection[str] = ()) -> str:
    """`; write e.g. 'data-science'` for a name the rule refuses, when lowercasing it and joining its
    words with '-' gives one the rule takes and no sibling has; nothing otherwise (a suggestion is
    never one refused)."""
    suggestion = re.sub(r"[^a-z0-9]+", "-", str(value).lower()).strip("-")
    return f"; write e.g. {suggestion!r}" if rule.fullmatch(suggestion) and suggestion not in taken else ""


def _team(
    name: str, raw: Any, path: str, project: Any, region: Any, environment: Any, secrets: Secrets, failures: list[str],
    taken: Collection[str] = (),
) -> TeamConfig:
    team = TeamConfig(name)
    named = bool(_TEAM_NAME.match(name))  # the defaults derived from a bad name are not reported as well
    if not named:
        failures.append(f"{path}: team names are 1-20 lowercase letters, digits and '-', starting with a letter{_write(name, _TEAM_NAME, taken)}")
    if not isinstance(raw, dict):
        failures.append(f"{path}: must be a team (members, bucket, repository, images, packages, jobs)")
        return team
    known = ("members", "serviceAccount", "bucket", "repository", "images", "packages", "secrets", "jobs")
    failures += [f"{path}.{key}: unknown key; {hint(str(key), known, 'a team')}" for key in raw if key not in known]
    team.members = _members(raw.get("members") or [], f"{path}.members", failures)
    _service_account(team, raw.get("serviceAccount") or {}, path, environment, failures)
    team.bucket = _overrides(raw.get("bucket") or {}, BUCKET_KEYS, f"{path}.bucket", failures)
    if "name" in team.bucket and not bucket_name_ok(team.bucket["name"]):
        failures.append(
            f"{path}.bucket.name: {team.bucket['name']!r} is not a Cloud Storage bucket name: 3-63 characters of "
            "lowercase letters, digits, '-', '_' and '.', starting and ending with a letter or digit, not an IP "
            "address, not starting with 'goog' (https://cloud.google.com/storage/docs/buckets#naming)"
        )
    elif "name" not in team.bucket and named and place.project_ok(project) and not bucket_name_ok(default := f"{project}-{name}-staging"):
        failures.append(
            f"{path}.bucket.name: the default {default!r} is not a Cloud Storage bucket name ({{project}}-{{team}}-staging; "
            "https://cloud.google.com/storage/docs/buckets#naming): set bucket.name"
        )
    team.repository = _overrides(raw.get("repository") or {}, REPOSITORY_KEYS, f"{path}.repository", failures)
    repository_id = team.repository.get("repository_id")
    rule = (
        "an Artifact Registry repository id: lowercase letters, digits and '-', starting with a letter, ending with a "
        "letter or digit, at most 63 (https://cloud.google.com/artifact-registry/docs/repositories/create-repos)"
    )
    if repository_id is not None and not names.REPOSITORY_ID.match(repository_id):
        failures.append(f"{path}.repository.repositoryId: {repository_id!r} is not {rule}")
    elif repository_id is None and named and not names.REPOSITORY_ID.match(name):
        failures.append(f"{path}.repository.repositoryId: the default, the team's name {name!r}, is not {rule}: set repositoryId")
    for key, image in _mapping(raw.get("images"), f"{path}.images", failures).items():
        team.images[key] = _image(image, f"{path}.images.{key}", failures)
        failures += [f for f in [image_names.key_failure("images", key, f"{path}.images.{key}")] if f]
        failures += image_names.image_failures(key, team.images[key], f"{path}.images.{key}")
    # Defined, even if refused above: a job naming one is not told it names nothing as well.
    declared = {kind: set(_mapping(raw.get(kind), "", [])) for kind in ("images", "packages")}
    for key, package in _mapping(raw.get("packages"), f"{path}.packages", failures).items():
        source = package.get("source") if isinstance(package, dict) else None
        failures += [f for f in [image_names.key_failure("packages", key, f"{path}.packages.{key}")] if f]
        if isinstance(package, dict) and (typos := [k for k in package if k != "source"]):
            failures += [f"{path}.packages.{key}.{k}: unknown key; {hint(str(k), ('source',), 'a package')}" for k in typos]
        elif not isinstance(source, str) or set(package) != {"source"}:
            failures.append(f"{path}.packages.{key}: must be {{source: a built sdist or wheel, or a package directory}}")
        elif not _is_package(Path(source)):
            failures.append(f"{path}.packages.{key}.source: {source!r} is neither a .tar.gz/.whl file nor a directory with a pyproject.toml")
        else:
            team.packages[key] = source
    for key, secret in _mapping(raw.get("secrets"), f"{path}.secrets", failures).items():
        parsed_secret = _secret(key, secret, f"{path}.secrets.{key}", failures)
        if parsed_secret is not None:
            team.secrets[key] = parsed_secret
    jobs = _mapping(raw.get("jobs"), f"{path}.jobs", failures)
    for key, job in jobs.items():
        bad_name = job_names.failure(key, f"{path}.jobs.{key}", taken=jobs)
        if bad_name is not None:
            failures.append(bad_name)
        # A bad name's spec is still checked, under a stand-in name: its default displayName is not reported as well.
        parsed = _job(
            key if bad_name is None else "job", job, f"{path}.jobs.{key}", team, project, region, environment, secrets,
            failures, declared,
        )
        if parsed is not None and bad_name is None:
            team.jobs[key] = parsed
    return team


def _service_account(team: TeamConfig, raw: Any, path: str, environment: Any, failures: list[str]) -> None:
    """The team's service account id: set (`serviceAccount.accountId`) or derived, always one IAM takes."""
    team.service_account = _overrides(raw, SERVICE_ACCOUNT_KEYS, f"{path}.serviceAccount", failures)
    account_id = team.service_account.get("account_id")
    if account_id is None:
        team.service_account["account_id"] = names.account_id(team.name, environment if isinstance(environment, str) else "")
    elif not names.ACCOUNT_ID.match(account_id):
        failures.append(
            f"{path}.serviceAccount.accountId: {account_id!r} is not a service account id: 6-30 lowercase letters, digits "
            "and '-', starting with a letter, ending with a letter or digit (https://cloud.google.com/iam/docs/service-accounts-create)"
        )


def _image(raw: Any, path: str, failures: list[str]) -> ImageConfig:
    if isinstance(raw, dict) and (typos := [k for k in raw if k not in ("name", "tag", "build")]):
        failures += [f"{path}.{k}: unknown key; {hint(str(k), ('name', 'tag', 'build'), 'an image')}" for k in typos]
        return ImageConfig()
    if isinstance(raw, dict) and set(raw) <= {"name", "tag"} and isinstance(raw.get("name"), str) and isinstance(raw.get("tag"), str):
        return ImageConfig(name=raw["name"], tag=raw["tag"])
    build = raw.get("build") if isinstance(raw, dict) else None
    if isinstance(build, dict) and set(raw) <= {"build", "name"} and isinstance(build.get("context"), str) and set(build) <= {"context", "dockerfile"}:
        if not Path(build["context"]).is_dir():
            failures.append(f"{path}.build.context: {build['context']!r} is not a directory")
        return ImageConfig(name=raw.get("name"), context=build["context"], dockerfile=build.get("dockerfile"))
    failures.append(f"{path}: must be {{name, tag}} (an image already pushed) or {{build: {{context, dockerfile}}}}")
    return ImageConfig()


def _secret(key: str, raw: Any, path: str, failures: list[str]) -> SecretConfig | None:
    form = "{secret: projects/<project>/secrets/<name>, version: latest or a version number}"
    if not _SECRET_KEY.match(key):
        failures.append(f"{path}: secret keys are letters, digits, '_' and '-' (a job writes ${{secrets.<key>}})")
        return None
    if not isinstance(raw, dict):
        failures.append(f"{path}: must be {form}")
        return None
    failures += [f"{path}.{k}: unknown key; a secret takes secret, version" for k in raw if k not in ("secret", "version")]
    secret, version = raw.get("secret"), raw.get("version", "latest")
    ok = True
    if not isinstance(secret, str) or not _SECRET.match(secret):
        failures.append(f"{path}.secret: must be a Secret Manager secret projects/<project>/secrets/<name>, got {secret!r}")
        ok = False
    if isinstance(version, bool) or not isinstance(version, (int, str)) or not _SECRET_VERSION.match(str(version)):
        failures.append(f"{path}.version: must be latest or a version number, got {version!r}")
        ok = False
    return SecretConfig(secret, str(version)) if ok and isinstance(secret, str) else None


def _ladder_regions(raw_teams: dict[str, Any], extra_regions: list[str]) -> list[str]:
    """Every region a fallback rung moves a job to, checked as gcp:region is (a did-you-mean,
    spot-training:extraRegions for a region Google's table does not list yet)."""
    failures: list[str] = []
    for path, location in place.ladder_locations(raw_teams):
        if place.REGION_ID.match(location):  # else the job's rules say why
            place.region(location, extra_regions, failures, path)
    return failures


def _replica_regions(value: Any, path: str, home: Any, extra_regions: list[str]) -> list[str]:
    """repository.replicaRegions: regions of the custom-training table (or extraRegions), each once, not the team's own."""
    failures: list[str] = []
    for i, region in enumerate(value or []):
        if not isinstance(region, str) or not place.REGION_ID.match(region):
            failures.append(f"{path}[{i}]: {region!r} is not a region id such as us-east1")
        elif region == home:
            failures.append(f"{path}[{i}]: {region} is the team's own region (gcp:region), where its repository already is")
        elif region in value[:i]:
            failures.append(f"{path}[{i}]: {region} is listed twice")
        else:
            place.region(region, extra_regions, failures, f"{path}[{i}]")
    return failures


def _job(
    name: Any, raw: Any, path: str, team: TeamConfig, project: Any, region: Any, environment: Any, secrets: Secrets, failures: list[str],
    declared: dict[str, set[str]] | None = None,
) -> JobConfig | None:
    if not isinstance(raw, dict):
        failures.append(f"{path}: must be a job: the Vertex REST jobSpec fields, plus displayName, labels, ...")
        return None
    if _pasted_wrapper(raw, path, failures):
        return None
    # A key of no kind a job entry takes gets its did-you-mean over all of them (not
    # just jobSpec's fields: `waitfor` means waitFor), and is then left out.
    job_keys = (*schema.MESSAGES["CustomJobSpec"], *BODY_KEYS, *KNOB_KEYS, IMPORT_KEY)
    typos = {str(key): hint(str(key), job_keys, "a job") for key in raw if key not in job_keys}
    failures += [f"{path}.{key}: unknown field; {meant}" for key, meant in typos.items()]
    # The key a typo meant is not reported missing as well (`workerPoolSpec:` is the pools).
    meant_keys = {k for k in job_keys if any(f"{k!r}?" in meant for meant in typos.values())}
    job_spec = {k: copy.deepcopy(v) for k, v in raw.items() if k in schema.MESSAGES["CustomJobSpec"]}
    # gcloud's --config spelling: one worker pool as a mapping, a scalar for a
    # repeated field; gcloud submits each as a one-item list, and so does this.
    job_spec = spec.as_lists(job_spec, "CustomJobSpec")
    body = {k: raw[k] for k in BODY_KEYS if k in raw}
    for label in STACK_LABELS:
        if isinstance(body.get("labels"), dict) and label in body["labels"]:
            failures.append(f"{path}.labels.{label}: is set by the stack (the team's name and the environment); remove it")
    knobs = {k: copy.deepcopy(raw[k]) for k in KNOB_KEYS if raw.get(k) is not None}
    if isinstance(knobs.get("rerun"), (int, float)) and not isinstance(knobs["rerun"], bool):
        knobs["rerun"] = str(knobs["rerun"])  # `rerun: 2` reads as a number; any value will do
    body["jobSpec"] = job_spec
    used = resolve_secret_refs(job_spec, path, team, failures)
    # What the team will register, built by the team's own function: its images,
    # packages, account and output prefix as stand-ins, known only at deploy time.
    # A reference's own existence is checked here; a stand-in's value, never
    # the user's, is what the rules then see.
    images, packages = _references(job_spec, path, team, failures, declared or {})
    registered = job_body(
        name, body, team=team.name, environment=environment, service_account=UNKNOWN, output_uri_prefix=UNKNOWN,
        images=dict.fromkeys(images, _IMAGE_STAND_IN), packages=dict.fromkeys(packages, _PACKAGE_STAND_IN),
    )
    inputs = {"project": project, "location": region, **registered, **knobs}
    # Reported once, where they are set: gcp:project / gcp:region, and the labels and default
    # display name the stack derives from a team name or environment already refused.
    derived = {"project", "location"}
    if not _TEAM_NAME.match(str(team.name)):
        derived |= {"labels.team"} | ({"displayName"} if not body.get("displayName") else set())
    if not isinstance(environment, str) or not _ENVIRONMENT.match(environment):
        derived.add("labels.environment")
    for failure in spec.validate(inputs, unknown=UNKNOWN):
        if failure.path in derived or (failure.path.removeprefix("jobSpec.") in meant_keys and failure.reason.startswith("is required")):
            continue
        default = " (the default, {team}-{job}: set displayName or shorten the job's name)" if failure.path == "displayName" and not body.get("displayName") else ""
        failures.append(f"{path}.{failure.path.removeprefix('jobSpec.')}: {failure.reason}{default}")
    return JobConfig(
        body=body,
        knobs={KNOB_KEYS[k]: v for k, v in knobs.items()},
        secret_paths=secrets.of_job(path, raw),
        secrets=used,
        import_id=_import_id(raw.get(IMPORT_KEY), f"{path}.{IMPORT_KEY}", project, region, failures),
    )


def _import_id(value: Any, path: str, project: Any, region: Any, failures: list[str]) -> str | None:
    """The full name of the CustomJob a job entry adopts (`import:`), checked for shape and place; the job
    itself is checked against the spec when the engine imports it (components/spot_job/protocol/adoption.py)."""
    if value is None:
        return None
    try:
        name = JobName.parse(value) if isinstance(value, str) else None
    except ValueError as error:
        failures.append(f"{path}: {error}")
        return None
    if name is None:
        failures.append(f"{path}: must be a CustomJob's full name, projects/P/locations/L/customJobs/ID")
        return None
    if (name.project, name.location) != (project, region):
        failures.append(
            f"{path}: the job is in {name.project} / {name.location}, and this job entry submits in "
            f"{project} / {region} (gcp:project / gcp:region): a job cannot move, so it cannot be adopted here"
        )
        return None
    return str(name)


# Fields only a whole CustomJob body (a REST request or a `describe` output)
# has; a job here is the CustomJobSpec itself plus displayName, labels, ...
_CUSTOM_JOB_ONLY = ("name", "state", "createTime", "startTime", "endTime", "updateTime", "error", "webAccessUris")


def _pasted_wrapper(raw: dict[str, Any], path: str, failures: list[str]) -> bool:
    """A spec pasted with its `jobSpec:` wrapper, or as a whole CustomJob body,
    gets told exactly what to remove (instead of one "unknown field" per key)."""
    if "jobSpec" not in raw:
        return False
    extra = [k for k in raw if k in _CUSTOM_JOB_ONLY]
    whole = f"; remove {', '.join(extra)} too (a CustomJob's output-only fields)" if extra else ""
    failures.append(
        f"{path}.jobSpec: a job here is the CustomJobSpec itself: remove the `jobSpec:` line and move its fields "
        f"(workerPoolSpecs, scheduling, ...) up one level, beside displayName and labels{whole}"
    )
    return True


def _references(
    job_spec: dict[str, Any], path: str, team: TeamConfig, failures: list[str], declared: dict[str, set[str]]
) -> tuple[set[str], set[str]]:
    """The image and package keys the job's `${images.KEY}` / `${packages.KEY}` name; one the team lacks is a failure."""
    images: set[str] = set()
    packages: set[str] = set()
    pools = job_spec.get("workerPoolSpecs")
    for i, pool in enumerate(pools if isinstance(pools, list) else []):
        if not isinstance(pool, dict):
            continue
        found: list[tuple[str, str, re.Pattern[str], Collection[str], set[str]]] = [(f"{task}.{key}", pool[task][key], IMAGE_REF, team.images, images)
                 for task, key in spec.IMAGE_FIELDS if isinstance(pool.get(task), dict) and isinstance(pool[task].get(key), str)]
        package = pool.get("pythonPackageSpec")
        uris = package.get("packageUris") if isinstance(package, dict) else None
        found += [(f"pythonPackageSpec.packageUris[{j}]", uri, PACKAGE_REF, team.packages, packages)
                  for j, uri in enumerate(uris if isinstance(uris, list) else []) if isinstance(uri, str)]
        for where, value, pattern, known, keys in found:
            if match := pattern.match(value):
                keys.add(match.group(1))
                kind = "image" if keys is images else "package"
                if match.group(1) not in known and match.group(1) not in declared.get(f"{kind}s", ()):
                    failures.append(f"{path}.workerPoolSpecs[{i}].{where}: {value} names no {kind} of this team; it has {', '.join(known) or f'no {kind}s'}")
    return images, packages


def _is_package(path: Path) -> bool:
    if path.is_dir():
        return (path / "pyproject.toml").is_file()
    return path.is_file() and path.name.endswith((".tar.gz", ".whl"))


def _members(raw: Any, path: str, failures: list[str]) -> list[str]:
    if not isinstance(raw, list):
        failures.append(f"{path}: must be a list of members such as group:ml@acme.example")
        return []
    for i, member in enumerate(raw):
        if not isinstance(member, str) or not _MEMBER.match(member):
            shown = "null" if member is None else repr(member)
            failures.append(f"{path}[{i}]: {shown} is not an IAM member (user:, group:, serviceAccount:, domain:)")
    return [m for m in raw if isinstance(m, str)]


def _mapping(raw: Any, path: str, failures: list[str]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        failures.append(f"{path}: must be a map")
        return {}
    return raw


def _overrides(raw: Any, keys: Mapping[str, tuple[str, type]], path: str, failures: list[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        failures.append(f"{path}: must be a map of {', '.join(keys)}")
        return {}
    out = {}
    for key, value in raw.items():
        if key not in keys:
            failures.append(f"{path}.{key}: unknown key; {hint(str(key), keys, 'it')}")
            continue
        attr, kind = keys[key]
        if not isinstance(value, kind) or (kind is int and (isinstance(value, bool) or (isinstance(value, int) and value < 0))):
            shown = "null" if value is None else repr(value)
            failures.append(f"{path}.{key}: must be {_KINDS.get(kind, kind.__name__)}, got {shown}")
            continue
        out[attr] = value
    return out


