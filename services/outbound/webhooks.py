"""Webhooks: a client's change feed, posted to its own URL as the entries arrive, so that
dispatch software and city systems need not even ask.

Each delivery is one POST of up to `BATCH` entries after the webhook's cursor, in the feed's
own shape, signed with the webhook's secret (`Fogx-Signature: t=<unix time>,v1=<hex
HMAC-SHA256 of "<t>." and the body>`). A 2xx answer moves the cursor past them; anything
else, or no answer, is tried again with the same entries and the same `Fogx-Delivery`, after
a wait that doubles up to an hour: delivery is at least once, in order, and the receiver
tells a repeat by its `Fogx-Delivery`. A 410 answer disables the webhook; so does its
client being revoked.

A webhook is claimed for a delivery by a lease written and committed first, so that no
transaction stays open while the receiver answers.
"""

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import time
from datetime import timedelta
from urllib.parse import urlsplit

import requests
from sqlalchemy import func, or_, select, update
from sqlalchemy.orm.attributes import set_committed_value

from auth.principal import principal_of
from domain.clock import now as clock_now
from schemas.changes import change_view
from services.audit import changes
from services.errors import Invalid
from services.registry.fses import within_reach
from storage.models import OAuthClient, Webhook, new_id
from storage.people import Membership

log = logging.getLogger("fogx.webhooks")

BATCH = 100
LEASE = timedelta(minutes=2)
FIRST_WAIT = timedelta(seconds=10)
LONGEST_WAIT = timedelta(hours=1)
TIMEOUT = (3.05, 10)  # connecting, then each read: seconds
USER_AGENT = "fogx-webhooks/1"


# Subscribing --------------------------------------------------------------------------------


def check_url(url: str, *, allow_local: bool) -> str:
    """The URL a webhook may post to, or a 422: https, no credentials in it, and a host
    whose every address is a public one. `allow_local` (development and tests) admits http
    and loopback or private addresses."""
    parts = urlsplit(url)
    problem = None
    if parts.scheme not in ("https", "http") or not parts.hostname:
        problem = "Must be an absolute https URL."
    elif parts.scheme == "http" and not allow_local:
        problem = "Must be https: the entries name restaurants and haulers."
    elif parts.username or parts.password:
        problem = "Must not carry credentials: verify the signature instead."
    elif not allow_local:
        problem = _not_public(parts.hostname, parts.port or 443)
    if problem:
        raise Invalid("The webhook URL cannot be used.", errors={"url": [problem]})
    return url


def _not_public(host, port) -> str | None:
    """Why a host may not be posted to (it resolves to no address, or to one that is not
    public: loopback, private, link-local), or None."""
    return _resolve(host, port, allow_local=False)[1]


def _resolve(host, port, *, allow_local) -> tuple[str | None, str | None]:
    """(the address to connect to, None), or (None, why the host may not be posted to)."""
    try:
        addresses = [info[4][0] for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)]
    except (socket.gaierror, UnicodeError):
        return None, f"{host} does not resolve."
    if not allow_local:
        for address in addresses:
            if not is_public(address):
                return None, f"{host} resolves to {address}, which is not a public address."
    return addresses[0], None


# Ranges `is_global` lets through that reach no public receiver, or reach one only through a
# translator that would take an IPv4 address inside to the network it stands in: NAT64 (RFC
# 6052, RFC 8215), 6to4 (RFC 3056), and IANA's IPv4 special-purpose block (192.0.0.8, RFC 7600).
_TRANSLATED_OR_SPECIAL = tuple(
    ipaddress.ip_network(n) for n in ("64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "192.0.0.0/24")
)


def is_public(address: str) -> bool:
    """An address a webhook may be posted to: global unicast, neither multicast nor reserved nor
    translated; an IPv4-mapped IPv6 address is judged by its IPv4 address."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return (
        ip.is_global
        and not ip.is_multicast
        and not ip.is_reserved
        and not any(ip in network for network in _TRANSLATED_OR_SPECIAL if network.version == ip.version)
    )


def create(
    session, principal, *, url, signing_key: bytes, description=None, cursor=None, allow_local=False
) -> tuple[Webhook, str]:
    """A webhook of the caller's client, delivering what follows `cursor` (one its feed gave
    out), or from now on; the row and its secret, given out once (`secret_of`)."""
    check_url(url, allow_local=allow_local)
    if cursor is not None:
        changes.decode_cursor(cursor)
    end = cursor or changes.end_cursor(session, principal)
    webhook = Webhook(
        id=new_id(),
        client_id=principal.client_pk,
        url=url,
        description=description,
        secret=None,
        status="active",
        cursor=end,
        failures=0,
        delivered=0,
        next_attempt_at=clock_now(),
    )
    session.add(webhook)
    session.commit()
    return webhook, secret_of(webhook, signing_key)


def listing(session, principal) -> list[Webhook]:
    return session.scalars(
        select(Webhook).where(Webhook.client_id == principal.client_pk).order_by(Webhook.created_at)
    ).all()


def get(session, principal, *, webhook_id) -> Webhook:
    return within_reach(
        session,
        Webhook,
        object_id=webhook_id,
        visible_ids=select(Webhook.id).where(Webhook.client_id == principal.client_pk),
        what="webhook",
    )


def disable(session, principal, *, webhook_id, reason="disabled by its client") -> Webhook:
    webhook = get(session, principal, webhook_id=webhook_id)
    if webhook.status == "active":
        _disable(webhook, reason)
        session.commit()
    return webhook


def disable_of_person(session, *, person_id, reason):
    """Disable the active webhooks made through any of a person's memberships (not committed):
    each membership's principal is that person's alone, so every one of them is theirs."""
    principals = select(Membership.principal_id).where(Membership.person_id == person_id)
    session.execute(
        update(Webhook)
        .where(Webhook.client_id.in_(principals), Webhook.status == "active")
        .values(status="disabled", disabled_at=clock_now(), disabled_reason=reason, leased_until=None)
    )


def _disable(webhook, reason):
    webhook.status, webhook.disabled_at, webhook.disabled_reason = "disabled", clock_now(), reason
    webhook.leased_until = None


# Delivering ---------------------------------------------------------------------------------


def secret_of(webhook, signing_key: bytes) -> str:
    """The webhook's HMAC key, derived from the service's signing key and the webhook's id: the
    database holds no secret that a copy of it would give away. (A webhook made while secrets
    were stored keeps the one it was given.)"""
    if webhook.secret:
        return webhook.secret
    return hmac.new(signing_key, f"fogx-webhook:{webhook.id}".encode(), hashlib.sha256).hexdigest()


def signature(secret: str, timestamp: int, *, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


class _Pinned(requests.adapters.HTTPAdapter):
    """Connections to an address given in the URL, on which TLS still names and verifies the
    host the address was found for."""

    def __init__(self, hostname):
        self.hostname = hostname
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, server_hostname=self.hostname, assert_hostname=self.hostname, **kwargs)


def _post(url, body, headers, address) -> int:
    """The receiver's status (`requests.RequestException` where it gave none), posted to
    `address`, the one its host was checked at: resolved again, the name could lead elsewhere
    by now (a private address behind a public name)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    pinned = parts._replace(netloc=f"[{address}]:{port}" if ":" in address else f"{address}:{port}").geturl()
    with requests.Session() as http:
        http.mount(f"{parts.scheme}://", _Pinned(parts.hostname))
        with http.post(
            pinned,
            data=body,
            headers={**headers, "Host": parts.netloc},
            timeout=TIMEOUT,
            allow_redirects=False,
            stream=True,
        ) as answer:
            return answer.status_code


def deliver(session, *, signing_key: bytes, allow_local=False, post=_post, progress=None) -> dict:
    """One delivery to each webhook that is due: counts of those `delivered`, `failed`,
    `idle` (nothing new) and `disabled`."""
    now = clock_now()
    due = session.scalars(
        select(Webhook.id)
        .where(
            Webhook.status == "active",
            Webhook.next_attempt_at <= now,
            or_(Webhook.leased_until.is_(None), Webhook.leased_until < now),
        )
        .order_by(Webhook.next_attempt_at)
    ).all()
    session.rollback()
    counts = {"delivered": 0, "failed": 0, "idle": 0, "disabled": 0}
    for webhook_id in due:
        outcome = _deliver_one(session, webhook_id, now, signing_key=signing_key, allow_local=allow_local, post=post)
        if outcome:
            counts[outcome] += 1
        if progress:
            progress(1)
    return counts


def due_count(session) -> int:
    return session.scalar(
        select(func.count())
        .select_from(Webhook)
        .where(Webhook.status == "active", Webhook.next_attempt_at <= clock_now())
    )


def _lease(session, webhook, now) -> bool:
    """The webhook is this process's to deliver, unless another has it or has delivered since
    its cursor was read."""
    taken = session.execute(
        update(Webhook)
        .where(
            Webhook.id == webhook.id,
            Webhook.status == "active",
            Webhook.cursor == webhook.cursor,
            or_(Webhook.leased_until.is_(None), Webhook.leased_until < now),
        )
        .values(leased_until=now + LEASE)
    )
    session.commit()
    if taken.rowcount != 1:
        return False
    set_committed_value(webhook, "leased_until", now + LEASE)  # so that releasing it is a change
    return True


def _deliver_one(session, webhook_id, now, *, signing_key, allow_local, post) -> str | None:
    """What became of one webhook's delivery; None where another process had it. A webhook
    with nothing new is only read: the thousands that wait each round write nothing."""
    webhook = session.get(Webhook, webhook_id)
    client = session.get(OAuthClient, webhook.client_id)
    if client.revoked_at is not None:
        _disable(webhook, "its client was revoked")
        session.commit()
        return "disabled"
    rows, next_cursor = changes.feed(session, principal_of(client), cursor=webhook.cursor, limit=BATCH)
    if not rows:
        session.rollback()
        return "idle"
    if not _lease(session, webhook, now):
        return None
    body = json.dumps(
        {
            "webhook_id": str(webhook.id),
            "next_cursor": next_cursor,
            "items": [change_view(row, changes.cursor_of(row)) for row in rows],
        }
    ).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Fogx-Webhook-Id": str(webhook.id),
        "Fogx-Delivery": next_cursor,
        "Fogx-Signature": signature(secret_of(webhook, signing_key), int(time.time()), body=body),
    }
    url = webhook.url
    session.commit()  # nothing stays open while the receiver answers
    status = None
    # Asked again at each delivery, the host's addresses may have changed since it was checked;
    # the delivery goes to the address checked now.
    parts = urlsplit(url)
    address, error = _resolve(parts.hostname, parts.port or 443, allow_local=allow_local)
    if error is None:
        try:
            status = post(url, body, headers, address)
        except requests.RequestException as failure:
            error = f"{type(failure).__name__}: {failure}"[:500]
    webhook = session.get(Webhook, webhook_id)
    webhook.last_attempt_at, webhook.leased_until = clock_now(), None
    if status is not None and 200 <= status < 300:
        webhook.cursor, webhook.failures, webhook.last_error = next_cursor, 0, None
        webhook.delivered += len(rows)
        webhook.last_success_at = webhook.next_attempt_at = webhook.last_attempt_at
        outcome = "delivered"
    elif status == 410:
        _disable(webhook, "the receiver answered 410 Gone")
        outcome = "disabled"
    else:
        webhook.failures += 1
        webhook.last_error = error or f"the receiver answered {status}"
        wait = min(FIRST_WAIT * 2 ** (webhook.failures - 1), LONGEST_WAIT)
        webhook.next_attempt_at = webhook.last_attempt_at + wait
        log.warning("webhook delivery failed", extra={"webhook_id": str(webhook_id), "error": webhook.last_error})
        outcome = "failed"
    session.commit()
    return outcome
