"""Which provider to use, from the environment and the `provider` setting, checked up front.

Every mistake is one sentence naming the variable or setting to fix (a `ProviderError`, a
ValueError, so the CLI prints it and exits 2).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path

from tui.config.lean_dataclass import lean_dataclass

PROVIDERS = ("anthropic", "bedrock", "vertex")
#: the short model names and the Anthropic ids they stand for
SHORT_NAMES = {"sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5", "haiku": "claude-haiku-5-5"}
#: Bedrock cross-region inference profiles by region prefix (as Claude Code's defaults)
_BEDROCK_GEO = {"us": "us", "eu": "eu", "ap": "apac"}


class ProviderError(ValueError):
    """A provider setting is wrong or missing; the message is one sentence naming it."""


@lean_dataclass(frozen=True)
class ProviderConfig:
    """The chosen provider and what it needs to build a client."""

    name: str = "anthropic"
    #: what chose it: an environment variable or the `provider` setting
    chosen_by: str = "default"
    base_url: str | None = None
    region: str | None = None
    project_id: str | None = None
    skip_auth: bool = False
    #: model name -> provider model id, from the `model_ids` setting
    model_ids: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    def model_id(self, model: str) -> str:
        """The id this provider knows `model` by (settings first, then the built-in mapping)."""
        full = SHORT_NAMES.get(model, model)
        names = [model, full, *(short for short, long in SHORT_NAMES.items() if long == full)]
        for name in names:
            if name in self.model_ids:
                return self.model_ids[name]
        if self.name == "bedrock" and full.startswith("claude-") and ":" not in full:
            geo = _BEDROCK_GEO.get((self.region or "us")[:2], "global")
            return f"{geo}.anthropic.{full}-v1:0"
        return full

    def region_for(self, model: str) -> str | None:
        """Vertex: the region for `model` (a `VERTEX_REGION_*` override, else CLOUD_ML_REGION)."""
        for name in vertex_region_variables(self.model_id(model)):
            if self.env.get(name):
                return self.env[name]
        return self.region


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def canonical_model(model: str) -> str:
    """`sonnet`/`opus`/`haiku` as the Anthropic ids they stand for; other names unchanged."""
    return SHORT_NAMES.get(model, model)


def vertex_region_variables(model_id: str) -> list[str]:
    """Claude Code's per-model region variables for a Vertex model id, both spellings it uses.

    `claude-sonnet-4-5@20250929` -> VERTEX_REGION_CLAUDE_SONNET_4_5 and VERTEX_REGION_CLAUDE_4_5_SONNET.
    """
    base = re.sub(r"(@.*|-\d{8})$", "", model_id).upper().replace("-", "_").replace(".", "_")
    names = [f"VERTEX_REGION_{base}"]
    m = re.match(r"CLAUDE_([A-Z]+)_([\d_]+)$", base)
    if m:
        names.append(f"VERTEX_REGION_CLAUDE_{m.group(2)}_{m.group(1)}")
    return names


def aws_profile_region(env: Mapping[str, str]) -> str | None:
    """The region of the AWS profile in use, read from the AWS config file as the AWS SDK does."""
    path = Path(env.get("AWS_CONFIG_FILE") or Path.home() / ".aws" / "config").expanduser()
    profile = env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE") or "default"
    import configparser  # for Bedrock's region only (~1.1 ms at every start otherwise)

    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return None
    for section in (profile if profile == "default" else f"profile {profile}", profile):
        if parser.has_option(section, "region"):
            return parser.get(section, "region").strip() or None
    return None


def resolve_provider(
    setting: str | None = None,
    model_ids: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
) -> ProviderConfig:
    """The provider the environment and settings choose; ProviderError when it cannot work."""
    env = dict(os.environ if env is None else env)
    use_bedrock, use_vertex = _truthy(env.get("CLAUDE_CODE_USE_BEDROCK")), _truthy(env.get("CLAUDE_CODE_USE_VERTEX"))
    if use_bedrock and use_vertex:
        raise ProviderError("CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_VERTEX are both set: unset one of them.")
    if use_bedrock or use_vertex:
        name = "bedrock" if use_bedrock else "vertex"
        chosen_by = "CLAUDE_CODE_USE_BEDROCK" if use_bedrock else "CLAUDE_CODE_USE_VERTEX"
    elif setting:
        name, chosen_by = setting.strip().lower(), "the `provider` setting"
        if name in ("firstparty", "first-party", "api"):
            name = "anthropic"
        if name not in PROVIDERS:
            raise ProviderError(
                f"Unknown provider `{setting}` in the `provider` setting: use anthropic, bedrock or vertex."
            )
    else:
        name, chosen_by = "anthropic", "default"
    ids = dict(model_ids or {})
    if name == "bedrock":
        region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or aws_profile_region(env)
        if not region:
            raise ProviderError("Bedrock needs an AWS region: set AWS_REGION (or `region` in your AWS profile).")
        return ProviderConfig(
            name,
            chosen_by,
            env.get("ANTHROPIC_BEDROCK_BASE_URL") or None,
            region,
            None,
            _truthy(env.get("CLAUDE_CODE_SKIP_BEDROCK_AUTH")),
            ids,
            env,
        )
    if name == "vertex":
        project = env.get("ANTHROPIC_VERTEX_PROJECT_ID")
        if not project:
            raise ProviderError("Vertex AI needs a Google Cloud project: set ANTHROPIC_VERTEX_PROJECT_ID.")
        region = env.get("CLOUD_ML_REGION")
        if not region:
            raise ProviderError("Vertex AI needs a region: set CLOUD_ML_REGION (for example us-east5 or global).")
        return ProviderConfig(
            name,
            chosen_by,
            env.get("ANTHROPIC_VERTEX_BASE_URL") or None,
            region,
            project,
            _truthy(env.get("CLAUDE_CODE_SKIP_VERTEX_AUTH")),
            ids,
            env,
        )
    return ProviderConfig(name, chosen_by, env.get("ANTHROPIC_BASE_URL") or None, model_ids=ids, env=env)


def provider_chosen(env: Mapping[str, str] | None = None) -> bool:
    """Whether the environment chooses a cloud provider (then the offline model is not used)."""
    env = os.environ if env is None else env
    return _truthy(env.get("CLAUDE_CODE_USE_BEDROCK")) or _truthy(env.get("CLAUDE_CODE_USE_VERTEX"))
