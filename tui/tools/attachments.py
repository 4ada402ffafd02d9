"""`@path` attachments, decided by the Read tool's rules for every source: the prompt, a command file, a skill.

A mention is resolved as Read resolves a path (`~` expanded, relative to the project) and its links are
followed before anything is decided. Deny rules and `sandbox.deny_read` refuse it; an ask rule needs a
yes; a path outside the project (the link's target counts) needs a yes too unless an allow rule names
it or the mode is bypassPermissions. A yes is asked in the app and refused in `-p`, where no one can
answer. A file from a folder the user has not trusted attaches nothing outside the project, whatever
the rules say. The result says what to send (text, or an image scaled to what the API takes) or why not.
A picture that comes with no path (the clipboard) meets the same image checks through `image_from_bytes`.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tui.config.special_files import read_regular_bytes
from tui.text.wording import plural
from tui.tools.base import SessionState, ToolContext
from tui.tools.image_scale import MAX_EDGE, MAX_FILE_BYTES, ImageRefused, too_big

if TYPE_CHECKING:
    from tui.config.memory import ImportCheck

MENTION = re.compile(r'(?:^|(?<=\s))@(?:"([^"\n]+)"|([^\s"]+))')
#: `@server:uri`: an MCP resource, not a file
_RESOURCE = re.compile(r"^[A-Za-z0-9_.-]+:(?!/)")
MAX_ATTACH_BYTES = 100_000
MAX_LISTING = 200

#: text: `text` is the block to send; image: a picture (`media_type`, `data`); refused: `reason` says why;
#: ask: `reason` is the question's reason, and `load` gives the attachment once the user said yes
AttachmentKind = Literal["text", "image", "refused", "ask"]


@dataclass(frozen=True)
class Attachment:
    """What one `@` mention comes to: something to send, a refusal, or a question to ask first."""

    kind: AttachmentKind
    #: the mention as typed (after `@`)
    shown: str
    #: the absolute path as written, and where its links lead
    path: Path
    real: Path
    reason: str = ""
    text: str = ""
    media_type: str = ""
    data: bytes = field(default=b"", repr=False)
    #: the rule a yes may save ("Read(//abs/path)"), for an `ask`
    suggested_rule: str = ""
    #: an image: its size as sent, and the original's (pixels, bytes)
    width: int = 0
    height: int = 0
    original: tuple[int, int, int] = (0, 0, 0)
    #: the path (or where its links lead) is outside the project and the rules' own folders
    outside: bool = False

    @property
    def notice(self) -> str:
        """One sentence for the user when the mention was not attached."""
        return f"@{self.shown} was not attached: {self.reason}"

    @property
    def name(self) -> str:
        """The file name shown on a chip (`shot.png`)."""
        return self.path.name or self.shown

    def image_block(self) -> dict[str, Any]:
        """The API's image block for an `image` attachment."""
        data = base64.b64encode(self.data).decode("ascii")
        return {"type": "image", "source": {"type": "base64", "media_type": self.media_type, "data": data}}

    def image_entry(self) -> dict[str, Any]:
        """What a turn carries for an image (TurnStarted.images): the block and what the chip and inspector show."""
        width, height, size = self.original
        return {
            "name": self.name,
            "media_type": self.media_type,
            "width": self.width,
            "height": self.height,
            "bytes": len(self.data),
            "original_width": width,
            "original_height": height,
            "original_bytes": size,
            "block": self.image_block(),
        }


@dataclass
class AttachmentRules:
    """Who decides: the permission policy and mode, the project, whether a yes can be asked, the mention's source."""

    project_dir: Path
    policy: Any
    #: True in the app (a question can be asked), False in -p
    interactive: bool = False
    #: why no question can be asked, for the refusal
    no_question: str = "-p cannot ask"
    #: the mention is in a file from a folder the user has not trusted: nothing outside the project
    confined: bool = False
    #: the file the mention came from (`/name (path)`), for the sentences
    source: str = ""
    #: folders that count as inside besides the project (a user command's or skill's own folder)
    own_folders: tuple[Path, ...] = ()
    state: SessionState | None = None
    #: an image's long edge is scaled down to this (the `image_max_edge` setting)
    max_edge: int = MAX_EDGE


@dataclass
class Attached:
    """A text with its mentions attached, and one sentence for each mention that was not."""

    text: str
    notices: list[str] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)

    @property
    def images(self) -> list[dict[str, Any]]:
        """The image attachments as a turn carries them (`Attachment.image_entry`), in mention order."""
        return [a.image_entry() for a in self.attachments if a.kind == "image"]


def mentioned_paths(text: str) -> list[str]:
    """The `@` mentions of `text`, in order (MCP `@server:uri` mentions left out)."""
    found = []
    for match in MENTION.finditer(text):
        raw = (match.group(1) or match.group(2)).rstrip(".,;:!?)")
        if raw and not _RESOURCE.match(raw):
            found.append(raw)
    return found


def resource_mentions(text: str) -> list[tuple[str, str]]:
    """(server, uri) of each `@server:uri` of `text` (an MCP resource), in order."""
    found = []
    for match in MENTION.finditer(text):
        raw = (match.group(1) or match.group(2)).rstrip(".,;:!?)")
        if _RESOURCE.match(raw):
            server, _, uri = raw.partition(":")
            if uri:
                found.append((server, uri))
    return found


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _roots(rules: AttachmentRules) -> list[Path]:
    roots = []
    for folder in (rules.project_dir, *rules.own_folders):
        roots += [Path(os.path.abspath(folder)), Path(os.path.realpath(folder))]
    return roots


def decide(raw: str, rules: AttachmentRules) -> Attachment | None:
    """What the mention `raw` comes to under `rules`; None when it names nothing on disk (left as typed)."""
    project = Path(os.path.abspath(rules.project_dir))
    try:
        path = Path(os.path.normpath(project / os.path.expanduser(raw)))
    except ValueError:
        return None
    decided = vet(path, rules, raw)
    if decided is None or decided.kind != "text":
        return decided
    return load(decided, rules.max_edge)


def vet(path: Path, rules: AttachmentRules, shown: str = "") -> Attachment | None:
    """The verdict on reading the absolute `path` under `rules`, nothing read yet: `text` lets it in,
    `refused` and `ask` say why not; None when it names nothing on disk."""
    from tui.sandbox import gate
    from tui.tools.read import ReadTool

    project = Path(os.path.abspath(rules.project_dir))
    try:
        real = Path(os.path.realpath(path))
        if not real.exists():
            return None
    except (OSError, ValueError):  # a NUL byte, a name too long
        return None
    outside = not (_inside(path, _roots(rules)) and _inside(real, _roots(rules)))

    def result(kind: AttachmentKind, reason: str = "", rule: str = "") -> Attachment:
        return Attachment(kind, shown or str(path), path, real, reason, suggested_rule=rule, outside=outside)

    tool, tool_input = ReadTool(), {"file_path": str(path)}
    ctx = ToolContext(project_dir=project, state=rules.state or SessionState(project_dir=project))
    verdict = rules.policy.check(tool, tool_input, ctx)
    verdict = gate.adjust(
        verdict,
        tool,
        tool_input,
        getattr(rules.policy, "mode", "default"),
        project,
        getattr(rules.policy, "trusted", True),
    )
    if verdict.decision == "deny":
        return result("refused", verdict.reason)
    where = f"{path} is outside the project" + (f" (it links to {real})" if real != path else "")
    if outside and rules.confined:
        return result(
            "refused",
            f"{where}, and {rules.source or 'the file that mentions it'} comes from a folder "
            "you have not trusted, so it attaches nothing from outside the project.",
        )
    rule = f"Read(/{real})"  # `//` starts an absolute path in a rule
    if verdict.decision == "ask":  # an ask rule: an allow rule does not override it
        advice = f"remove the rule `{verdict.rule}` ({verdict.source}) to attach it without a question"
        return _ask_or_refuse(result, rules, verdict.reason, rule, advice)
    if (
        outside
        and getattr(rules.policy, "mode", "") != "bypassPermissions"
        and not rules.policy.read_allowed_by_rule(path)
    ):
        advice = f"allow reading it with the rule `{rule}` (--allowedTools or a settings file) to attach it"
        return _ask_or_refuse(result, rules, f"{where}.", rule, advice)
    return result("text")


def _ask_or_refuse(
    result: Callable[..., Attachment], rules: AttachmentRules, reason: str, rule: str, advice: str
) -> Attachment:
    if rules.interactive:
        return result("ask", reason, rule)
    return result("refused", f"{reason.rstrip('.')}, and {rules.no_question}: {advice}.", rule)


def load(decided: Attachment, max_edge: int = MAX_EDGE) -> Attachment:
    """The attachment's content read from where its links lead: a file's text, a folder's listing, an image
    scaled to what the API takes (long edge at most `max_edge`), or a refusal."""
    from tui.tools.read import IMAGE_EXTENSIONS, image_media_type

    real, shown = decided.real, decided.shown
    named_image = real.suffix.lower() in IMAGE_EXTENSIONS
    try:
        if real.is_dir():
            entries = sorted(p.name + ("/" if p.is_dir() else "") for p in real.iterdir())
            more = f"\n… {len(entries) - MAX_LISTING} more" if len(entries) > MAX_LISTING else ""
            body = "\n".join(entries[:MAX_LISTING]) + more
            return _text(decided, f'<directory path="{shown}">\n{body}\n</directory>')
        data = read_regular_bytes(real, (MAX_FILE_BYTES if named_image else MAX_ATTACH_BYTES) + 1)
        if not named_image and image_media_type(data[:16]) and len(data) > MAX_ATTACH_BYTES:
            data = read_regular_bytes(real, MAX_FILE_BYTES + 1)  # a picture by its bytes, whatever its name
    except OSError as exc:
        return _refused(decided, f"{real} could not be read ({exc.strerror or exc}).")
    if named_image or image_media_type(data[:16]):
        if len(data) > MAX_FILE_BYTES:
            return _refused(decided, f"{too_big(real.stat().st_size)}.")
        return _image(decided, data, max_edge)
    if b"\x00" in data[:8192]:
        size = real.stat().st_size
        return _text(decided, f'<file path="{shown}">(binary file, {plural(size, "byte")}; not attached)</file>')
    text = data[:MAX_ATTACH_BYTES].decode("utf-8", "replace")
    cut = f"\n[… cut at {MAX_ATTACH_BYTES:,} bytes]" if len(data) > MAX_ATTACH_BYTES else ""
    return _text(decided, f'<file path="{shown}">\n{text.rstrip()}{cut}\n</file>')


def _image(decided: Attachment, data: bytes, max_edge: int) -> Attachment:
    from tui.tools.image_scale import prepare_image

    try:
        image = prepare_image(data, max_edge)
    except ImageRefused as exc:
        return _refused(decided, f"{exc}.")
    return Attachment(
        "image",
        decided.shown,
        decided.path,
        decided.real,
        media_type=image.media_type,
        data=image.data,
        width=image.width,
        height=image.height,
        original=(image.original_width, image.original_height, image.original_bytes),
    )


def image_from_bytes(data: bytes, name: str, max_edge: int = MAX_EDGE) -> Attachment:
    """A picture with no file behind it (the clipboard's), through the same checks and scaling as a file's."""
    where = Path(name)
    return _image(Attachment("image", name, where, where), data, max_edge)


def _text(decided: Attachment, block: str) -> Attachment:
    return Attachment("text", decided.shown, decided.path, decided.real, text=block)


def _refused(decided: Attachment, reason: str) -> Attachment:
    return Attachment("refused", decided.shown, decided.path, decided.real, reason)


#: asks the user about one `ask` attachment; True attaches it
AskAttachment = Callable[[Attachment], bool]


def attach_one(raw: str, rules: AttachmentRules, ask: AskAttachment | None = None) -> Attachment | None:
    """What the mention (or pasted path) `raw` attaches, a question the rules need asked first; None when it
    names nothing on disk."""
    decided = decide(raw, rules)
    return None if decided is None else _settled(decided, rules, ask)


def _settled(decided: Attachment, rules: AttachmentRules, ask: AskAttachment | None) -> Attachment:
    """`decided` loaded after a yes when it is a question (refused without one), else as it is."""
    if decided.kind != "ask":
        return decided
    if ask is not None and ask(decided):
        return load(decided, rules.max_edge)
    return _refused(decided, f"{decided.reason.rstrip('.')}, and you did not allow it.")


def attach_mentions(text: str, rules: AttachmentRules, ask: AskAttachment | None = None) -> Attached:
    """`text` followed by every file (or folder) it mentions with `@` that the rules let through, each once;
    images go beside it as blocks (`Attached.images`)."""
    out = Attached(text)
    seen: set[Path] = set()
    for raw in mentioned_paths(text):
        decided = decide(raw, rules)
        if decided is None or decided.path in seen:
            continue
        seen.add(decided.path)
        decided = _settled(decided, rules, ask)
        out.attachments.append(decided)
        if decided.kind == "refused":
            out.notices.append(decided.notice)
    blocks = [a.text for a in out.attachments if a.kind == "text"]
    if blocks:
        out.text = text + "\n\nFiles the user attached with @:\n\n" + "\n\n".join(blocks)
    return out


def denied_reads(project_dir: Path, policy: Any) -> Callable[[Path], str | None]:
    """Why `policy`'s deny rules or `sandbox.deny_read` refuse reading a file (links followed), else None: for the
    files a session loads on its own (commands, skills, agents; tui/config/declared_files.py)."""
    rules = AttachmentRules(project_dir=project_dir, policy=policy, interactive=True)

    def denied(path: Path) -> str | None:
        decided = vet(Path(os.path.abspath(path)), rules)
        return decided.reason if decided is not None and decided.kind == "refused" else None

    return denied


def memory_import_check(rules: AttachmentRules, external_allowed: bool) -> ImportCheck:
    """The check every memory file and `@path` import passes (tui/config/memory.py), by the rules above.

    Deny rules and `sandbox.deny_read` refuse it (links resolved); an ask rule keeps it out (a system
    prompt cannot wait for a yes). A file outside the project and outside the folder whose memory file
    started the chain needs the project's yes to outside imports (`external_allowed`), asked once in the app
    and never given in `-p` (`rules.interactive` False); from an untrusted folder (`rules.confined`) it stays
    out whatever the answer. The user's own memory files (the user config folder) import from anywhere.
    """
    from tui.config.memory import SkippedImport
    from tui.config.paths import user_config_dir

    user = Path(os.path.abspath(user_config_dir()))

    def check(path: Path, imported_from: Path | None, origin: Path) -> SkippedImport | None:
        user_level = Path(os.path.abspath(origin)) == user
        mine = replace(
            rules,
            interactive=True,
            confined=rules.confined and not user_level,
            source=str(imported_from or path),
            own_folders=(*rules.own_folders, Path(os.sep) if user_level else origin),
        )
        decided = vet(path, mine)
        if decided is None:
            return None  # nothing there: the loader skips it
        real = decided.real
        where = f"{path} is outside the project" + (f" (it links to {real})" if real != path else "")
        if decided.kind == "refused" and not (decided.outside and mine.confined):
            return SkippedImport(path, imported_from, decided.reason)
        if decided.outside and mine.confined:
            return SkippedImport(
                path,
                imported_from,
                f"{where}, and {imported_from or path} comes from a folder you have not trusted, so it imports "
                "nothing from outside the project.",
            )
        if decided.outside:
            if not rules.interactive:
                return SkippedImport(path, imported_from, f"{where}, and {rules.no_question}.")
            if not external_allowed:
                return SkippedImport(
                    path, imported_from, f"{where}, and imports from outside the project are not allowed.", True
                )
            return None
        if decided.kind == "ask":
            return SkippedImport(
                path, imported_from, f"{decided.reason.rstrip('.')}, and a memory file cannot wait for a yes."
            )
        return None

    return check
