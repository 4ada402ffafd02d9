"""Workspace trust: what a folder brings that runs code or widens permissions only once the user trusts it.

`inventory.py` lists it (one `TrustKind` per kind of thing, each with its own collector), `notice.py` words
it for `-p`, and `folder.py` trusts or untrusts a folder. No Textual, no engine: the app, `-p` and the
screens read the same list.
"""
