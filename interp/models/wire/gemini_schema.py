"""Tool parameters as Gemini takes them: the OpenAPI subset of JSON schema its function
declarations accept (it refuses additionalProperties, $schema, strict, $ref, type lists, ...)."""

from __future__ import annotations

from typing import Any

_SCHEMA_KEYS = {"type", "format", "title", "description", "nullable", "enum", "maxItems",
                "minItems", "properties", "required", "minProperties", "maxProperties",
                "minLength", "maxLength", "pattern", "example", "anyOf", "default", "items",
                "minimum", "maximum", "propertyOrdering"}
_FORMATS = {"string": {"enum", "date-time"}, "integer": {"int32", "int64"},
            "number": {"float", "double"}}


def declaration(tool: dict) -> dict:
    """A function declaration from an OpenAI tool, its parameters cut to Gemini's schema."""
    function = tool.get("function", tool)
    found = {"name": function.get("name", "")}
    if function.get("description"):
        found["description"] = function["description"]
    parameters = function.get("parameters")
    if isinstance(parameters, dict) and parameters:
        found["parameters"] = schema(parameters, parameters.get("$defs") or {})
    return found


def schema(node: Any, defs: dict, depth: int = 0) -> dict:
    """A JSON schema in the OpenAPI subset Gemini accepts: $refs inlined, `null` types turned
    into `nullable`, keys it does not know (additionalProperties, $schema, strict, ...) left out."""
    if not isinstance(node, dict) or depth > 24:
        return {"type": "object"}
    if isinstance(node.get("$ref"), str):
        target = defs.get(node["$ref"].rsplit("/", 1)[-1])
        node = {**(target if isinstance(target, dict) and depth < 12 else {"type": "object"}),
                **{k: v for k, v in node.items() if k != "$ref"}}
    out: dict[str, Any] = {}
    kind = node.get("type")
    if isinstance(kind, list):
        out["nullable"] = "null" in kind or None
        kinds = [k for k in kind if k != "null"] or ["string"]
        if len(kinds) > 1:
            node = {**node, "type": None, "anyOf": [{**node, "type": k} for k in kinds]}
        kind = kinds[0]
    options = node.get("anyOf") or node.get("oneOf")
    if isinstance(options, list) and options:
        kept = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(kept) < len(options):
            out["nullable"] = True
        if len(kept) != 1:
            found = [schema(o, defs, depth + 1) for o in kept] or [{"type": "string"}]
            return {k: v for k, v in {**out, "anyOf": found,
                                      "description": node.get("description")}.items() if v}
        return {**schema({**node, **kept[0], "anyOf": None, "oneOf": None}, defs, depth + 1),
                **{k: v for k, v in out.items() if v}}
    if not isinstance(kind, str):
        kind = "array" if "items" in node else "string" if "enum" in node else "object"
    out["type"] = kind
    for key, value in node.items():
        if key not in _SCHEMA_KEYS or key in out or value is None:
            continue
        if key == "properties" and isinstance(value, dict):
            if value:
                out[key] = {name: schema(v, defs, depth + 1) for name, v in value.items()}
        elif key == "items":
            out[key] = schema(value[0] if isinstance(value, list) and value else value, defs,
                              depth + 1)
        elif key == "enum":
            values = [str(v) for v in value if v not in ("", None)] if kind == "string" else []
            if values:
                out[key] = values
        elif key == "format":
            if value in _FORMATS.get(kind, ()):
                out[key] = value
        elif key == "required":
            out[key] = [n for n in value if n in (node.get("properties") or {})]
        elif key not in ("anyOf", "type"):
            out[key] = value
    if kind == "array" and "items" not in out:
        out["items"] = {"type": "object"}
    if "const" in node and kind == "string":
        out["enum"] = [str(node["const"])]
    return {k: v for k, v in out.items() if v is not None and v != []}
