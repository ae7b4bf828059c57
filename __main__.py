"""spot-training: per team of the stack config, its training platform and its Spot jobs."""

import json

import pulumi

from components.team import TeamTrainingEnvironment, TeamTrainingEnvironmentArgs
from components.team_config import load


def config_value(key: str):
    namespace, name = key.split(":", 1)
    raw = pulumi.Config(namespace).get(name)
    if raw is None:
        return None
    try:
        return json.loads(raw)  # objects and lists arrive as JSON
    except ValueError:
        return raw


stack = load(config_value)  # raises, naming the config path, before anything is registered
for name, team in stack.teams.items():
    environment = TeamTrainingEnvironment(
        name,
        TeamTrainingEnvironmentArgs(
            project=stack.project, region=stack.region, environment=stack.environment, deployers=stack.deployers, team=team
        ),
    )
    pulumi.export(name, environment.outputs)
