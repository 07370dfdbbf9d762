"""How a file leaves the API: its `Content-Disposition`."""

from urllib.parse import quote


def disposition(filename: str, kind: str = "attachment") -> str:
    """RFC 6266: a `filename` every client reads (printable ASCII; any other character, a
    quote or a backslash as `_`) and, where that is not the whole name, `filename*` with the
    name in UTF-8 (RFC 8187). A name is made of what users typed (an FSE's APN): a header
    that is not Latin-1 would be refused by the server, the response lost."""
    plain = "".join(c if " " <= c <= "~" and c not in '"\\' else "_" for c in filename)
    value = f'{kind}; filename="{plain}"'
    if plain != filename:
        value += f"; filename*=UTF-8''{quote(filename.encode('utf-8', 'replace'), safe='')}"
    return value
