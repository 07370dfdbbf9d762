"""Invitations and password-reset links as notices: queued in the transaction that makes the
link, sent after it; a mail server that is down delays them and fails no request."""

from auth.keys import secret_key
from services.notices import messages, outbox
from services.notices.words import INVITATION, RESET


def _body(config, text: str) -> dict:
    # Plain text alone, as these links have always been sent (a link to copy), and sealed.
    return messages.seal(secret_key(config), {"text": text})


def invitation(session, config, *, to, role, where, link, ttl_hours, jurisdiction_id=None):
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
        body=_body(config, text),
        jurisdiction_id=jurisdiction_id,
    )


def reset(session, config, *, person, link, ttl_hours):
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
        body=_body(config, text),
        person_id=person.id,
    )
