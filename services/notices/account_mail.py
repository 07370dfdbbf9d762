"""Invitations and password-reset links as notices: queued in the transaction that makes the
link, sent after it; a mail server that is down delays them and fails no request."""

import html

from services.notices import outbox
from services.notices.words import INVITATION, RESET


def _body(text: str) -> dict:
    paragraphs = "".join(f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>" for p in text.strip().split("\n\n"))
    return {"text": text, "html": f'<!doctype html><html lang="en"><body>{paragraphs}</body></html>'}


def invitation(session, *, to, role, where, link, ttl_hours, jurisdiction_id=None):
    text = (
        f"Hello,\n\nYou are invited to fogx, the FOG manifest exchange, as {role} of {where}.\n"
        f"To accept, open this link within {ttl_hours} hours and choose a password "
        f"(or, if you have a fogx account, give its password):\n\n{link}\n\n"
        "If you did not expect this, ignore this message.\n"
    )
    outbox.queue(
        session,
        kind=INVITATION,
        recipient=to,
        language="en",
        subject=f"You are invited to fogx: {where}",
        body=_body(text),
        jurisdiction_id=jurisdiction_id,
    )


def reset(session, *, person, link, ttl_hours):
    text = (
        f"Hello {person.name},\n\nSomeone asked to reset the password of your fogx account. To choose a new "
        f"one, open this link within {ttl_hours} hours:\n\n{link}\n\n"
        "If it was not you, ignore this message: your password stays as it is.\n"
    )
    outbox.queue(
        session,
        kind=RESET,
        recipient=person.email,
        language="en",
        subject="Reset your fogx password",
        body=_body(text),
        person_id=person.id,
    )
