"""A notice as mail: its body composed once, in plain text and HTML, when it is queued; the
message (headers, alternatives, attachments, one-click unsubscribe) built when it is sent."""

import base64
import hashlib
import html
import json
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from cryptography.fernet import Fernet
from itsdangerous import BadData, URLSafeSerializer

from domain.clock import now
from services.notices.words import language_of, word

UNSUBSCRIBE_SALT = "fogx.notices.unsubscribe"
SEALED = "sealed"


def _sealer(secret: bytes | str) -> Fernet:
    secret = secret.encode() if isinstance(secret, str) else secret
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(b"fogx.notices.sealed:" + secret).digest()))


def seal(secret, body: dict) -> dict:
    """A body that carries a secret link (an invitation, a reset), encrypted: the database never
    holds the link in the clear, as it holds the token only hashed."""
    return {SEALED: _sealer(secret).encrypt(json.dumps(body).encode()).decode("ascii")}


def opened(secret, body: dict) -> dict:
    return json.loads(_sealer(secret).decrypt(body[SEALED].encode())) if SEALED in body else body


def body(*, language, paragraphs, link=None, label=None, attachments=()) -> dict:
    """The stored body of a notice: its paragraphs as text and as HTML, a link (into the portal,
    or `label`'s: an invitation's, a reset's), and its attachments ({"filename",
    "content_type", "data" (base64)})."""
    language = language_of(language)
    label = label or word(language, "open")
    text = "\n\n".join(paragraphs)
    markup = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    if link:
        text += f"\n\n{label}: {link}"
        markup += f'<p><a href="{html.escape(link, quote=True)}">{html.escape(label)}</a></p>'
    return {
        "text": text + "\n",
        "html": f'<!doctype html><html lang="{language}"><body>{markup}</body></html>',
        "attachments": [
            {**a, "data": base64.b64encode(a["data"]).decode("ascii")} if isinstance(a["data"], bytes) else a
            for a in attachments
        ],
    }


def unsubscribe_token(secret: bytes | str, *, address: str, kind: str) -> str:
    return URLSafeSerializer(secret, salt=UNSUBSCRIBE_SALT).dumps({"a": address, "k": kind})


def unsubscribe_of(secret: bytes | str, token: str) -> tuple[str, str] | None:
    """(address, kind) a token signs, or None for one fogx did not sign."""
    try:
        signed = URLSafeSerializer(secret, salt=UNSUBSCRIBE_SALT).loads(token)
    except BadData:
        return None
    if not isinstance(signed, dict) or not isinstance(signed.get("a"), str) or not isinstance(signed.get("k"), str):
        return None
    return signed["a"], signed["k"]


def message(notice, *, sender: str, unsubscribe_url: str | None, secret=None) -> EmailMessage:
    """The notice as a MIME message: text with an HTML alternative, its attachments, and the
    RFC 8058 one-click unsubscribe headers where the kind may be refused."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, notice.recipient, notice.subject
    mail["Date"] = format_datetime(now())
    mail["Message-ID"] = make_msgid(domain="fogx")
    mail["X-Fogx-Notice"] = notice.kind
    content = opened(secret, notice.body)
    text = content["text"]
    if unsubscribe_url:
        mail["List-Unsubscribe"] = f"<{unsubscribe_url}>"
        mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        text += f"\n--\n{word(notice.language, 'unsubscribe')} {unsubscribe_url}\n"
    mail.set_content(text)
    if content.get("html"):
        mail.add_alternative(content["html"], subtype="html")
    for attachment in content.get("attachments") or ():
        maintype, subtype = attachment["content_type"].split("/", 1)
        mail.add_attachment(
            base64.b64decode(attachment["data"]),
            maintype=maintype,
            subtype=subtype,
            filename=attachment["filename"],
            params={"charset": "utf-8"} if maintype == "text" else None,
        )
    # After the parts: setting the content clears every Content-* header.
    mail["Content-Language"] = notice.language
    return mail
