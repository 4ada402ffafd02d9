"""A JSON tree that builds nodes only when they are expanded, with a detail pane for full values.

A 2 MB request body must stay smooth: `Tree.add_json` would create every node up front,
so children are added on expand, at most `PAGE` at a time, and long strings are shortened
in labels (Enter or a click shows the whole value below the tree).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea, Tree
from textual.widgets.tree import TreeNode

from tui.text.sanitize import one_line, visible
from tui.text.wording import plural

from .image_blocks import abbreviated, data_text, image_hint, is_image_source, sent_bytes

#: characters of a string shown in a tree label
LABEL_CHARS = 200
#: children added per expand (the rest behind a "… more" node)
PAGE = 200
#: characters of a container's JSON shown in the detail pane (Save has the rest)
DETAIL_CHARS = 200_000


@dataclass
class JsonNode:
    """What a tree node stands for: a value at a path, or a 'load more' marker."""

    value: Any
    path: str
    loaded: bool = False
    more_from: int | None = None  # set on "… more" markers: the next child index to add


def shorten(text: str, limit: int = LABEL_CHARS) -> str:
    """One line of at most `limit` characters (newlines shown as ⏎)."""
    flat = one_line(text if len(text) <= limit else text[:limit])
    return flat if len(text) <= limit else flat + f"… ({plural(len(text), 'char')})"


def _scalar(value: Any) -> Text:
    if isinstance(value, str):
        return Text(json.dumps(shorten(value), ensure_ascii=False), style="green")
    if isinstance(value, bool) or value is None:
        return Text(json.dumps(value), style="magenta")
    if isinstance(value, (int, float)):
        return Text(repr(value), style="cyan")
    return Text(shorten(repr(value)), style="dim")


def _summary(value: Any) -> Text:
    """A one-line description of a container, with the fields a reader looks for first."""
    if isinstance(value, list):
        return Text(f"[…] {plural(len(value), 'item')}", style="dim")
    hints: list[str] = []
    if "role" in value:
        content = value.get("content")
        hints.append(shorten(str(value["role"]), 60))
        if isinstance(content, list):
            hints.append(
                f"{plural(len(content), 'block')}: "
                + ", ".join(shorten(str(b.get("type", "?")), 40) for b in content[:4] if isinstance(b, dict))
            )
        elif isinstance(content, str):
            hints.append(shorten(content, 60))
    elif "type" in value:
        hints.append(shorten(str(value["type"]), 60))
        if (picture := image_hint(value)) is not None:  # what a picture is, not its base64
            hints.append(picture)
        for key in ("name", "tool_use_id", "id"):
            if key in value:
                hints.append(shorten(str(value[key]), 60))
                break
        if isinstance(value.get("text"), str):
            hints.append(shorten(value["text"], 60))
    elif "name" in value:
        hints.append(shorten(str(value["name"]), 60))
    text = Text(" · ".join(hints) + "  " if hints else "", style="italic")
    text.append(f"{{…}} {plural(len(value), 'key')}", style="dim")
    return text


def node_label(key: str | None, value: Any) -> Text:
    label = Text()
    if key is not None:
        label.append(one_line(key), style="bold")
        label.append(": ")
    label.append(_summary(value) if isinstance(value, (dict, list)) else _scalar(value))
    return label


class JsonTree(Tree[JsonNode]):
    """A Tree over one JSON value; children are created on expand."""

    def show(self, value: Any, label: str) -> None:
        """Replace the tree with `value`, only its top level built."""
        self.clear()
        self.root.set_label(Text(one_line(label), style="bold"))
        self.root.data = JsonNode(value, "$")
        self._load_children(self.root)
        self.root.expand()

    @property
    def node_total(self) -> int:
        """Nodes created so far (tests check that big bodies stay lazy)."""
        return len(self._tree_nodes)

    def _add_json_child(self, parent: TreeNode[JsonNode], key: str, value: Any, path: str) -> None:
        container = isinstance(value, (dict, list)) and len(value) > 0
        label = node_label(key, value)
        if key == "data" and parent.data is not None and is_image_source(parent.data.value):
            label = Text.assemble((key, "bold"), ": ", (data_text(parent.data.value), "green"))
        parent.add(label, JsonNode(value, path), allow_expand=container)

    def _load_children(self, node: TreeNode[JsonNode], start: int = 0) -> None:
        data = node.data
        if data is None or (data.loaded and start == 0):
            return
        data.loaded = True
        value = data.value
        items = (
            list(value.items())
            if isinstance(value, dict)
            else list(enumerate(value))
            if isinstance(value, list)
            else []
        )
        for key, child in items[start : start + PAGE]:
            child_path = f"{data.path}.{key}" if isinstance(value, dict) else f"{data.path}[{key}]"
            self._add_json_child(node, str(key) if isinstance(value, dict) else f"[{key}]", child, child_path)
        rest = len(items) - (start + PAGE)
        if rest > 0:
            marker = JsonNode(value, data.path, loaded=True, more_from=start + PAGE)
            node.add_leaf(Text(f"… {rest:,} more (Enter to show)", style="italic"), marker)

    def _on_tree_node_expanded(self, event: Tree.NodeExpanded[JsonNode]) -> None:
        self._load_children(event.node)

    def _on_tree_node_selected(self, event: Tree.NodeSelected[JsonNode]) -> None:
        marker = event.node.data
        parent = event.node.parent
        if marker is not None and marker.more_from is not None and parent is not None:
            event.stop()
            event.node.remove()
            self._load_children(parent, marker.more_from)


class JsonView(Vertical):
    """A JsonTree plus a read-only pane showing the full value of the selected node."""

    DEFAULT_CSS = """
    JsonView { height: 1fr; }
    JsonView > JsonTree { height: 1fr; }
    JsonView > #json-detail-title { height: 1; color: $text-muted; display: none; }
    JsonView > TextArea { height: 10; display: none; }
    JsonView.-detail > #json-detail-title, JsonView.-detail > TextArea { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.value: Any = None

    def compose(self) -> ComposeResult:
        yield JsonTree(Text(""))  # Text: a str label is parsed as markup (and loads Rich's emoji table)
        yield Static("", id="json-detail-title")
        yield TextArea("", read_only=True, soft_wrap=True, show_line_numbers=False)

    @property
    def json_tree(self) -> JsonTree:
        return self.query_one(JsonTree)

    def show(self, value: Any, label: str) -> None:
        self.value = value
        self.remove_class("-detail")
        self.json_tree.show(value, label)

    def on_tree_node_selected(self, event: Tree.NodeSelected[JsonNode]) -> None:
        data = event.node.data
        if data is None or data.more_from is not None:
            return
        self.show_detail(data)

    def show_detail(self, data: JsonNode) -> None:
        """Show the whole value of one node (strings raw, containers as indented JSON)."""
        value = data.value
        if isinstance(value, str) and data.path.endswith(".source.data") and len(value) > LABEL_CHARS:
            text = f"(base64 of {sent_bytes(value):,} bytes: save the view for all of it)"
            note = plural(len(value), "char")
        elif isinstance(value, str):
            text, note = value, plural(len(value), "char")
        else:
            text = json.dumps(abbreviated(value), indent=2, ensure_ascii=False)
            note = f"{plural(len(text), 'char')} of JSON"
            if len(text) > DETAIL_CHARS:
                text = text[:DETAIL_CHARS] + "\n… (cut here: save the view for the whole JSON)"
        self.query_one("#json-detail-title", Static).update(Text(one_line(f"{data.path}  ({note})")))
        self.query_one(TextArea).load_text(visible(text))
        self.add_class("-detail")
