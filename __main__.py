"""spot-training: per team of the stack config, its training platform and its Spot jobs."""

import gc
import json

import pulumi

from components.team import TeamTrainingEnvironment, TeamTrainingEnvironmentArgs
from stack_config import NS, load, stack_file

# A run is short and allocates SDK objects per registered key (an Output with its
# futures and tasks), most of them live to the end: the collector, scanning them
# again and again, was nearly half of a 1,000-job render. Collecting the youngest
# generation every 20,000 allocations instead of 700, and never rescanning what
# the imports made, cuts that render from ~7.3 to ~5 s for ~10 MiB more at its
# peak (BENCHMARKS.md 1.).
gc.freeze()
gc.set_threshold(20_000, 20, 20)

# The program's own keys; gcp:* belong to the Google provider, which keeps its secrets itself.
KEYS = (f"{NS}:environment", f"{NS}:deployers", f"{NS}:teams", f"{NS}:extraRegions")


def config_value(key: str):
    namespace, name = key.split(":", 1)
    raw = pulumi.Config(namespace).get(name)
    if raw is None:
        return None
    try:
        return json.loads(raw)  # objects and lists arrive as JSON
    except ValueError:
        return raw


def secret_leaves() -> tuple[list[str], bool]:
    """The config paths of the values set with `pulumi config set --secret`, and whether to take every env value as one.

    The CLI says only which keys hold a secret somewhere; the stack file says
    which leaf (`{secure: ...}`). When it cannot (no file, or the value came
    from an ESC environment), every env value of every job is kept secret:
    env is where a job's credentials would be.
    """
    on_disk = stack_file.read(pulumi.get_stack())
    leaves, every_env_value = [], False
    for key in (k for k in KEYS if pulumi.runtime.is_config_secret(k)):
        found = stack_file.secure_leaves((on_disk or {}).get(key))
        if key == f"{NS}:teams" and found in ([], [""]):
            every_env_value = True
            pulumi.log.warn(
                f"{key} is secret, but {stack_file.path(pulumi.get_stack())} does not say which of its values are: "
                "every env value of every job is kept secret (set secrets with `pulumi config set --secret --path`)"
            )
        else:
            leaves += [key + ("" if not path or path.startswith("[") else ".") + path for path in found or [""]]
    return leaves, every_env_value


def config_keys() -> set[str]:
    """Every config key the stack sets, however the language host handed them over."""
    return set(pulumi.runtime.config.get_config_env()) | set(pulumi.runtime.config.CONFIG.get())


leaves, every_env_value = secret_leaves()
stack = load(config_value, leaves, every_env_value, config_keys())  # raises, naming the config path, before anything is registered
for name, team in stack.teams.items():
    environment = TeamTrainingEnvironment(
        name,
        TeamTrainingEnvironmentArgs(
            project=stack.project, region=stack.region, environment=stack.environment, deployers=stack.deployers, team=team
        ),
    )
    pulumi.export(name, environment.outputs)
