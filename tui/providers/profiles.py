"""Provider profiles: `NAME:MODEL` names a model on the endpoint of profile NAME.

The profiles of the settings (`[providers.NAME]`, checked by config/provider_settings.py) become `Profile`s
here. The default provider (anthropic, bedrock or vertex, as the environment and the `provider` setting
choose) answers plain model names; a name whose part before the first `:` is a profile's name goes to that
profile's endpoint with the part after it. Bedrock ids (`us.anthropic.…-v1:0`) and ARNs (`arn:aws:…`) keep
their colons: only a declared profile's name is split off.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from tui.config.lean_dataclass import lean_dataclass

#: what an unnamed `supports` means: the endpoint has everything the Messages API has
ALL_CAPABILITIES = frozenset({"tools", "thinking", "images", "caching"})
_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(.+)$")


@lean_dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


@lean_dataclass(frozen=True)
class Profile:
    """One `[providers.NAME]` table."""

    name: str
    kind: str = "anthropic"
    base_url: str | None = None
    api_key_env: str | None = None
    api_key_helper: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    models: tuple[str, ...] = ()
    #: None: the profile names no price (costs say so; never counted as zero)
    price: Price | None = None
    context_window: int | None = None
    max_output: int | None = None
    supports: frozenset[str] = ALL_CAPABILITIES
    #: the settings file that set it last
    source: str = ""

    def where(self) -> str:
        """`provider `local` (http://127.0.0.1:8080)`, for messages."""
        return f"provider `{self.name}` ({self.base_url or self.kind})"


def profile_from(name: str, table: Mapping[str, Any], source: str = "") -> Profile:
    """A Profile from a checked settings table (missing price keys count as 0 once a price is given)."""
    price = table.get("price")
    return Profile(
        name=name,
        kind=str(table.get("kind", "anthropic")),
        base_url=table.get("base_url"),
        api_key_env=table.get("api_key_env"),
        api_key_helper=table.get("api_key_helper"),
        headers=dict(table.get("headers") or {}),
        models=tuple(table.get("models") or ()),
        price=None if price is None else Price(*(float(price.get(k, 0.0)) for k in Price.__dataclass_fields__)),
        context_window=table.get("context_window"),
        max_output=table.get("max_output"),
        supports=ALL_CAPABILITIES if table.get("supports") is None else frozenset(table["supports"]),
        source=source,
    )


def profiles_from(
    tables: Mapping[str, Mapping[str, Any]], sources: Mapping[str, str] | None = None
) -> dict[str, Profile]:
    """Every profile of the settings, by name."""
    return {name: profile_from(name, table, (sources or {}).get(name, "")) for name, table in tables.items()}


def profile_prefix(model: str) -> str | None:
    """The NAME of `NAME:MODEL` when `model` is written that way (an ARN or a Bedrock id is not)."""
    m = _PREFIX.match(model)
    if not m or m.group(1) == "arn":
        return None
    return m.group(1)


def split_model(model: str, profiles: Mapping[str, Profile]) -> tuple[Profile | None, str]:
    """(the profile, the model name its endpoint knows) for `NAME:MODEL`; (None, model) for a plain name."""
    name = profile_prefix(model)
    if name is not None and name in profiles:
        return profiles[name], model[len(name) + 1 :]
    return None, model


class _Registry:
    """The profiles in force in this process, for the parts that see only a model name (prices, messages)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.profiles: dict[str, Profile] = {}

    def set(self, profiles: Mapping[str, Profile]) -> None:
        with self._lock:
            self.profiles = dict(profiles)

    def lookup(self, model: str) -> tuple[Profile | None, str]:
        with self._lock:
            return split_model(model, self.profiles)


REGISTRY = _Registry()


def use_profiles(profiles: Mapping[str, Profile]) -> None:
    """Make `profiles` the ones model names are looked up in (a session does this when it starts)."""
    REGISTRY.set(profiles)


def lookup(model: str) -> tuple[Profile | None, str]:
    """`split_model` against the profiles in force."""
    return REGISTRY.lookup(model)
