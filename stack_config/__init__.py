"""The stack config: stacks/Pulumi.<env>.yaml read, typed and validated, every error naming its config path.

Not a component: the program (`__main__.py`) and the offline render read the
config through it and hand the components what it parsed (TeamConfig, from
components/team_definition.py). Layers point one way: program -> stack_config -> components.
"""

from .keys import NS
from .loader import ConfigError, load

__all__ = ["NS", "ConfigError", "load"]
