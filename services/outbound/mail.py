"""Mail on its way out (every notice, `services.notices`): a file per message in `MAIL_DIR`, or
through the SMTP server `SMTP_URL` names (smtp://, smtp+starttls:// or smtps://)."""

import os
import smtplib
import ssl
import uuid
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlsplit

from domain.clock import now


def transmit(config, mail: EmailMessage):
    """Hand one message on: to the SMTP server of `SMTP_URL`, else to a file in `MAIL_DIR`.
    The server's refusal is raised as smtplib raises it (its code tells a bounce from a delay)."""
    if config["SMTP_URL"]:
        _smtp(config["SMTP_URL"], mail)
    else:
        _file(Path(config["MAIL_DIR"]), mail)


def _file(folder: Path, mail: EmailMessage):
    """Written whole beside its place, then renamed: a reader of the folder never sees half."""
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{now().strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:12]}.eml"
    draft = folder / f".{name}"
    draft.write_bytes(bytes(mail))
    os.replace(draft, folder / name)


def _smtp(url: str, mail: EmailMessage):
    parts = urlsplit(url)
    secure = parts.scheme == "smtps"
    port = parts.port or (465 if secure else 587 if parts.scheme == "smtp+starttls" else 25)
    connect = smtplib.SMTP_SSL if secure else smtplib.SMTP
    with connect(parts.hostname, port, timeout=30) as server:
        if parts.scheme == "smtp+starttls":
            server.starttls(context=ssl.create_default_context())
        if parts.username:
            server.login(unquote(parts.username), unquote(parts.password or ""))
        server.send_message(mail)
