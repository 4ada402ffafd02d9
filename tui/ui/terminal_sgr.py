"""SGR looks as Rich writes them, and the shortest step from one look to another (terminal_model.py)."""

from __future__ import annotations

_LOOKS: dict[str, tuple[frozenset[str], str, str]] = {}
#: attributes that leave a blank cell looking blank (underline, reverse, strike, overline… show on a space)
_BLANK_SAFE = frozenset({"1", "2", "3"})


def parse_look(codes: str) -> tuple[frozenset[str], str, str]:
    """SGR codes as Rich writes them: (attributes, foreground, background); "" for a default colour."""
    parsed = _LOOKS.get(codes)
    if parsed is None:
        attrs: list[str] = []
        fg = bg = ""
        parts = codes.split(";") if codes else []
        i = 0
        while i < len(parts):
            p = parts[i]
            if p in ("38", "48") and i + 1 < len(parts):
                n = 5 if parts[i + 1] == "2" else 3
                colour = ";".join(parts[i : i + n])
                i += n
                if p == "38":
                    fg = colour
                else:
                    bg = colour
                continue
            if p.isdigit() and (30 <= int(p) <= 37 or 90 <= int(p) <= 97):
                fg = p
            elif p.isdigit() and (40 <= int(p) <= 47 or 100 <= int(p) <= 107):
                bg = p
            elif p == "39":
                fg = ""
            elif p == "49":
                bg = ""
            elif p:
                attrs.append(p)
            i += 1
        parsed = _LOOKS[codes] = (frozenset(attrs), fg, bg)
    return parsed


def sgr(current: str, new: str) -> str:
    """The shortest SGR sequence that turns the look `current` into `new` ("" is the default look)."""
    full = f"\x1b[0;{new}m" if new else "\x1b[0m"
    attrs_c, fg_c, bg_c = parse_look(current)
    attrs_n, fg_n, bg_n = parse_look(new)
    if not attrs_c <= attrs_n:  # an attribute to turn off: start from the default
        return full
    parts = sorted(attrs_n - attrs_c)
    if fg_n != fg_c:
        parts.append(fg_n or "39")
    if bg_n != bg_c:
        parts.append(bg_n or "49")
    step = f"\x1b[{';'.join(parts)}m"
    return step if len(step) < len(full) else full


def blank_alike(current: str, new: str) -> bool:
    """Whether blanks drawn in the look `current` look like blanks in `new` (same background, nothing drawn)."""
    attrs_c, _, bg_c = parse_look(current)
    attrs_n, _, bg_n = parse_look(new)
    return bg_c == bg_n and attrs_c <= _BLANK_SAFE and attrs_n <= _BLANK_SAFE


_BLANK_LOOKS: dict[str, str] = {}


def blank_look(codes: str) -> str:
    """The look of a blank drawn in `codes`, as it shows: its background alone when nothing else shows on a space.

    Two renders of the same rows often pad them in different looks (a foreground, bold) that leave the same
    blank cells; keeping one look per blank lets rows that show the same be found equal (a scrolled band)."""
    blank = _BLANK_LOOKS.get(codes)
    if blank is None:
        attrs, _, bg = parse_look(codes)
        blank = _BLANK_LOOKS[codes] = bg if attrs <= _BLANK_SAFE else codes
    return blank


def erasable(codes: str) -> bool:
    """Whether blanks in `codes` may be erased (ECH) instead of written: an erased cell takes the background
    colour alone, which is all a blank shows unless an underline, reverse or the like is on."""
    return parse_look(codes)[0] <= _BLANK_SAFE
