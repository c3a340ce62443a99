"""The `agent` and `environment` blocks of a run capsule, converted from the engine's config.

The capsule spec wants semantic versions and a model identity; the engine has content-hash
config versions and free-form agent metadata. This module is that one conversion; it reads the
snapshot and never changes it.
"""

from __future__ import annotations

import platform
import re
import sys
from collections.abc import Mapping
from enum import Enum
from importlib import metadata
from typing import TYPE_CHECKING, Any, TypeVar

from engine.errors import UsageError
from engine.specs.models.enums import Environment, ModelProvider, SandboxTier

if TYPE_CHECKING:
    from engine.runtime.engine import Engine

E = TypeVar("E", bound=Enum)
UNVERSIONED = "0.0.0"
UNKNOWN_MODEL = "unspecified"
DEFAULT_PROVIDER = ModelProvider.LOCAL
_SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def semver(text: str | None) -> str:
    """The leading `X.Y.Z` of a version string, or `0.0.0` when it has none."""
    found = _SEMVER.match(text or "")
    return ".".join(found.groups()) if found else UNVERSIONED


def capsule_agent(
    engine: Engine, name: str, *, provider: ModelProvider | str | None = None,
    model_id: str | None = None,
) -> dict[str, Any]:
    """The capsule's `agent` block for agent `name`: `agent_version` from its
    `metadata.version` (X.Y.Z, else `0.0.0`), the model from `metadata.model` (a string, or a
    mapping with `provider` and `deployment`/`name`/`id`) unless given; a provider outside the
    spec's enum is `local`, a missing model id `unspecified`."""
    spec = engine.snapshot.agents.get(name)
    meta: Mapping[str, Any] = spec.metadata if spec is not None else {}
    model: Any = meta.get("model")
    found_provider, found_id = None, model if isinstance(model, str) else None
    if isinstance(model, Mapping):
        found_provider = model.get("provider")
        found_id = model.get("deployment") or model.get("name") or model.get("id")
    version = meta.get("version")
    if provider is not None:
        chosen = choice(ModelProvider, provider, "model_provider")
    else:
        known = {item.value for item in ModelProvider}
        chosen = found_provider if found_provider in known else DEFAULT_PROVIDER.value
    return {
        "agent_id": name,
        "agent_name": name,
        "agent_version": semver(version if isinstance(version, str) else None),
        "model": {"provider": chosen,
                  "model_id": model_id or (found_id if isinstance(found_id, str) and found_id
                                           else UNKNOWN_MODEL)},
    }


def capsule_environment(
    engine: Engine, environment: Environment | str, sandbox_tier: SandboxTier | str,
    region: str | None,
) -> dict[str, Any]:
    """The capsule's `environment` block: engine and Python versions, OS, sandbox tier, and in
    `extra` the deployment environment, the config version and the region."""
    try:
        engine_version = metadata.version("handoff-engine")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        engine_version = UNVERSIONED
    extra = {"environment": choice(Environment, environment, "environment"),
             "config_version": engine.version}
    if region is not None:
        extra["region"] = region
    info = sys.version_info
    return {
        "aumai_runtime_version": semver(engine_version),
        "python_version": f"{info.major}.{info.minor}.{info.micro}",
        "os": f"{sys.platform}/{platform.machine() or 'unknown'}",
        "sandbox_tier": choice(SandboxTier, sandbox_tier, "sandbox_tier"),
        "extra": extra,
    }


def choice(kind: type[E], value: E | str, what: str) -> str:
    """`value` as a member value of enum `kind`, or a `UsageError` listing the choices."""
    try:
        return str(kind(value).value)
    except ValueError:
        choices = ", ".join(str(item.value) for item in kind)
        raise UsageError(f"{what} {value!r} is not one of: {choices}") from None
