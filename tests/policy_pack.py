"""The policy pack (policy/), started and driven as the Pulumi CLI does: the
product's driver (operations/policy_pack.py), under the names the tests use."""

from operations.policy_pack import (  # noqa: F401
    POLICY_DIR,
    PYTHON,
    STACKS_DIR_ENV,
    UNKNOWN,
    PolicyPackHost,
    serialize,
    urn,
)
