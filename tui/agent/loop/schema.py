"""A small JSON Schema checker for tool input: the subset our tool schemas use.

Supports type, properties, required, additionalProperties, enum, minimum/maximum,
exclusiveMinimum, items, minItems. Returns one sentence the model can act on.
"""

from __future__ import annotations

from typing import Any

from tui.text.wording import plural

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _type_ok(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    for name in names:
        kinds = _TYPES.get(name, (object,))
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, kinds):
            return True
    return False


def validate(value: Any, schema: dict[str, Any], where: str = "input") -> str | None:
    """None when `value` fits `schema`, else a sentence naming the first problem."""
    expected = schema.get("type")
    if expected and not _type_ok(value, expected):
        return f"`{where}` must be of type {expected}, got {type(value).__name__}."
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        return f"`{where}` must be one of {allowed}, got {value!r}."
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"`{where}` must be >= {schema['minimum']}, got {value}."
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return f"`{where}` must be > {schema['exclusiveMinimum']}, got {value}."
        if "maximum" in schema and value > schema["maximum"]:
            return f"`{where}` must be <= {schema['maximum']}, got {value}."
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                return f"The required parameter `{key}` is missing."
        if schema.get("additionalProperties") is False:
            extra = [k for k in value if k not in props]
            if extra:
                return f"An unexpected parameter `{extra[0]}` was provided; allowed: {', '.join(props)}."
        for key, sub in props.items():
            if key in value:
                problem = validate(value[key], sub, key if where == "input" else f"{where}.{key}")
                if problem:
                    return problem
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"`{where}` needs at least {plural(schema['minItems'], 'item')}."
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                problem = validate(item, items, f"{where}[{i}]")
                if problem:
                    return problem
    return None


def input_problem(name: str, tool_input: Any, schema: dict[str, Any]) -> str | None:
    """Why the input of a call to tool `name` cannot be used (not an object, not JSON, off its schema), or None."""
    if not isinstance(tool_input, dict):
        return f"Invalid input for {name}: the input must be a JSON object."
    if set(tool_input) == {"INVALID_JSON"}:
        raw = str(tool_input["INVALID_JSON"])[:500]
        return f"Invalid input for {name}: the input was not valid JSON ({raw!r}). Send the call again with valid JSON."
    problem = validate(tool_input, schema)
    return f"Invalid input for {name}: {problem}" if problem else None
