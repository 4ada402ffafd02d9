"""LSP: ask the project's language servers about code (Claude Code's tool, its operation names).

Read-only and safe to run in parallel; offered only when a server is configured or on PATH. Results are
`path:line:col` lines (hover: the text), capped like Grep's.
"""

from __future__ import annotations

from typing import Any

from tui.tools.base import Tool, ToolContext, ToolError, ToolResult
from tui.tools.inputs import get_int, get_str
from tui.tools.kinds import path_input, path_target

MAX_RESULTS = 100
MAX_CHARS = 30_000
#: operation -> (LSP method, needs a position)
OPERATIONS = {
    "goToDefinition": ("textDocument/definition", True),
    "findReferences": ("textDocument/references", True),
    "hover": ("textDocument/hover", True),
    "documentSymbol": ("textDocument/documentSymbol", False),
    "workspaceSymbol": ("workspace/symbol", False),
    "goToImplementation": ("textDocument/implementation", True),
}
SYMBOL_KINDS = {
    5: "class",
    6: "method",
    7: "property",
    8: "field",
    9: "constructor",
    10: "enum",
    11: "interface",
    12: "function",
    13: "variable",
    14: "constant",
}


class LspTool(Tool):
    name = "LSP"
    description = (
        "Ask the project's language server about code: goToDefinition, findReferences, hover (type and docs), "
        "goToImplementation (each at filePath, line and character, 1-based as Read shows them), documentSymbol "
        "(the symbols of filePath) or workspaceSymbol (search symbols by `query`). Prefer it to Grep for "
        "where a name is defined or used. Edits already get the server's errors in their result."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": list(OPERATIONS)},
            "filePath": {
                "type": "string",
                "description": "The file to ask about (workspaceSymbol: any file of the language)",
            },
            "line": {"type": "integer", "minimum": 1},
            "character": {"type": "integer", "minimum": 1},
            "query": {"type": "string", "description": "workspaceSymbol: the name to search"},
        },
        "required": ["operation", "filePath"],
        "additionalProperties": False,
    }
    read_only = True
    kind = "read"

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return path_target(path_input(ctx, tool_input.get("filePath")))

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        op = tool_input.get("operation", "")
        path = tool_input.get("filePath")
        where = ctx.display_path(ctx.resolve(path)) if isinstance(path, str) and path and "\x00" not in path else ""
        line = tool_input.get("line")
        return f"LSP {op} {where}{f':{line}' if line else ''}".strip()

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from lsprotocol import types

        operation = get_str(tool_input, "operation", allow_empty=False) or ""
        path = str(ctx.resolve(get_str(tool_input, "filePath", allow_empty=False) or ""))
        method, positional = OPERATIONS[operation]
        from tui.sandbox.runtime import current

        if secret := current().read_denied(path):
            raise ToolError(f"{ctx.display_path(path)} is not readable (sandbox.deny_read: {secret}).")
        line = get_int(tool_input, "line", minimum=1)
        character = get_int(tool_input, "character", minimum=1)
        if positional and (line is None or character is None):
            raise ToolError(f"{operation} needs `line` and `character` (1-based).")
        position = types.Position(line=(line or 1) - 1, character=(character or 1) - 1)

        def params(uri: str) -> Any:
            document = types.TextDocumentIdentifier(uri=uri)
            if operation == "workspaceSymbol":
                return types.WorkspaceSymbolParams(query=str(tool_input.get("query") or ""))
            if operation == "documentSymbol":
                return types.DocumentSymbolParams(text_document=document)
            if operation == "findReferences":
                return types.ReferenceParams(
                    text_document=document, position=position, context=types.ReferenceContext(include_declaration=True)
                )
            if operation == "hover":
                return types.HoverParams(text_document=document, position=position)
            return types.DefinitionParams(text_document=document, position=position)

        try:
            answer = self.manager.ask(method, path, params)
        except LookupError as exc:
            raise ToolError(str(exc)) from None
        lines = _lines(answer, ctx)
        if not lines:
            return ToolResult(f"No result for {operation}.")
        shown, cut = _cap(lines)
        more = f"\n(at least {cut} more not shown)" if cut else ""
        return ToolResult("\n".join(shown) + more)


def _where(uri: str, rng: Any, ctx: ToolContext) -> str:
    from urllib.parse import unquote, urlparse

    path = unquote(urlparse(uri).path) if uri.startswith("file:") else uri
    return f"{ctx.display_path(path)}:{rng.start.line + 1}:{rng.start.character + 1}"


def _lines(answer: Any, ctx: ToolContext) -> list[str]:
    """The answer of any operation as lines the model reads."""
    if answer is None:
        return []
    if hasattr(answer, "contents"):  # hover
        contents = answer.contents
        value = getattr(contents, "value", contents)
        if isinstance(value, list):
            value = "\n".join(str(getattr(v, "value", v)) for v in value)
        return str(value).strip().splitlines()
    items = answer if isinstance(answer, list) else [answer]
    lines: list[str] = []
    for item in items:
        if hasattr(item, "target_uri"):  # LocationLink
            lines.append(_where(item.target_uri, item.target_selection_range, ctx))
        elif hasattr(item, "uri") and hasattr(item, "range"):  # Location
            lines.append(_where(item.uri, item.range, ctx))
        elif hasattr(item, "location"):  # SymbolInformation / WorkspaceSymbol
            loc = item.location
            rng = getattr(loc, "range", None)
            where = _where(loc.uri, rng, ctx) if rng is not None else str(loc.uri)
            lines.append(f"{where} {SYMBOL_KINDS.get(int(item.kind), 'symbol')} {item.name}")
        elif hasattr(item, "selection_range"):  # DocumentSymbol, nested
            lines += _document_symbols(item, 0)
    return lines


def _document_symbols(symbol: Any, depth: int) -> list[str]:
    start = symbol.selection_range.start
    out = [
        f"{'  ' * depth}{start.line + 1}:{start.character + 1} {SYMBOL_KINDS.get(int(symbol.kind), 'symbol')} {symbol.name}"
    ]
    for child in symbol.children or ():
        out += _document_symbols(child, depth + 1)
    return out


def _cap(lines: list[str]) -> tuple[list[str], int]:
    kept: list[str] = []
    used = 0
    for line in lines[:MAX_RESULTS]:
        if used + len(line) > MAX_CHARS:
            break
        kept.append(line)
        used += len(line) + 1
    return kept, len(lines) - len(kept)
