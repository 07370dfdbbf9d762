"""Settings read from the environment; the defaults make `make run` work with no services."""

import os
import secrets
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTANCE = ROOT / "instance"


class ConfigError(ValueError):
    pass


def flag(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{raw!r} is not a yes or a no (1 or 0)")


# name: (default, parser). Every name here is listed in the README.
SETTINGS = {
    "DATABASE_URL": (f"sqlite:///{INSTANCE / 'fogx.sqlite3'}", str),
    "STORAGE_BACKEND": ("local", str),
    "STORAGE_DIR": (str(INSTANCE / "objects"), str),
    "S3_BUCKET": ("fogx-documents", str),
    "S3_ENDPOINT_URL": (None, str),
    "S3_REGION": ("us-west-1", str),
    "S3_OBJECT_LOCK": ("compliance", str),
    "TOKEN_TTL_SECONDS": (3600, int),
    "MAX_UPLOAD_BYTES": (100 * 1024 * 1024, int),
    "MAX_JSON_BYTES": (1024 * 1024, int),
    # The port `make run` serves on, and the address fogx is reached at from outside (behind a
    # proxy, its https URL): every URL fogx prints starts with it. Default http://127.0.0.1:PORT.
    "PORT": (8000, int),
    "PUBLIC_BASE_URL": ("", str),
    # The OAuth/OIDC issuer; default PUBLIC_BASE_URL.
    "OAUTH_ISSUER": ("", str),
    "AUTH_FAILURE_LIMIT": (10, int),
    "AUTH_FAILURE_WINDOW_SECONDS": (300, int),
    "TRUSTED_PROXIES": (0, int),
    "SUBMISSIONS_PER_MINUTE": (600, int),
    "EXPORTS_PER_MINUTE": (30, int),
    # The export pool heavy reads are passed on to (api/exports.py); unset: served here.
    "EXPORTS_URL": ("", str),
    "EXPORTS_READ_TIMEOUT_SECONDS": (300, int),
    # The niceness of the PostgreSQL backends requests that only read are served on, where the
    # database runs on this machine (storage/db.py); 0 leaves them as they are.
    "DATABASE_READS_NICE": (0, int),
    "REDIS_URL": ("", str),
    "OUTBOX_INTERVAL_SECONDS": (5, int),
    # Notices: each city's daily pass, the events to expand and the mail to send, this often.
    "NOTICE_INTERVAL_SECONDS": (30, int),
    "WEBHOOK_INTERVAL_SECONDS": (5, int),
    "WEBHOOK_ALLOW_LOCAL": (False, flag),
    "WEBHOOK_SIGNING_KEY": ("", str),
    "WEBHOOK_SIGNING_KEY_FILE": (str(INSTANCE / "webhook-signing.key"), str),
    "SWEEP_DELAY_MINUTES": (60, int),
    "LOCK_DIR": (str(INSTANCE / "locks"), str),
    # People who sign in (auth/people.py, api/people/oidc.py, services/people/accounts.py)
    "PERSON_TOKEN_TTL_SECONDS": (900, int),
    "REFRESH_TOKEN_TTL_SECONDS": (30 * 24 * 3600, int),
    # A sign-in through the exchange's own apps (the portal) not renewed for this long is idle:
    # its refresh token is refused and the sign-in ends, as the portal's tab ends it (IDLE_MS).
    "SESSION_IDLE_SECONDS": (3600, int),
    # The driver's phone app (fogx-driver): a sign-in kept through a working day between stops.
    "DRIVER_SESSION_IDLE_SECONDS": (14 * 3600, int),
    "INVITATION_TTL_HOURS": (72, int),
    "SIGN_IN_FAILURE_LIMIT": (5, int),
    "SIGN_IN_LOCKOUT_SECONDS": (900, int),
    "SECRET_KEY": ("", str),
    "SECRET_KEY_FILE": (str(INSTANCE / "secret.key"), str),
    "OIDC_SIGNING_KEY": ("", str),
    "OIDC_SIGNING_KEY_FILE": (str(INSTANCE / "oidc-signing.pem"), str),
    "MAIL_DIR": (str(INSTANCE / "mail"), str),
    "SMTP_URL": ("", str),
    "MAIL_FROM": ("fogx <no-reply@fogx.invalid>", str),
}


def load_config(overrides=None, environ=os.environ):
    config = {}
    for name, (default, parse) in SETTINGS.items():
        raw = environ.get(name)
        config[name] = parse(raw) if raw not in (None, "") else default
    config.update(overrides or {})
    config["PUBLIC_BASE_URL"] = (config["PUBLIC_BASE_URL"] or f"http://127.0.0.1:{config['PORT']}").rstrip("/")
    config["OAUTH_ISSUER"] = (config["OAUTH_ISSUER"] or config["PUBLIC_BASE_URL"]).rstrip("/")
    _check(config)
    return config


def _check(config):
    if not config["PUBLIC_BASE_URL"].startswith(("http://", "https://")):
        raise ConfigError("PUBLIC_BASE_URL must be an http:// or https:// URL")
    if config["TOKEN_TTL_SECONDS"] <= 0:
        raise ConfigError("TOKEN_TTL_SECONDS must be positive: tokens always expire")
    if config["STORAGE_BACKEND"] not in ("local", "s3"):
        raise ConfigError("STORAGE_BACKEND must be 'local' or 's3'")
    if config["WEBHOOK_SIGNING_KEY"] and len(config["WEBHOOK_SIGNING_KEY"]) < 32:
        raise ConfigError("WEBHOOK_SIGNING_KEY must be at least 32 characters")
    for name in (
        "PERSON_TOKEN_TTL_SECONDS",
        "REFRESH_TOKEN_TTL_SECONDS",
        "SESSION_IDLE_SECONDS",
        "DRIVER_SESSION_IDLE_SECONDS",
    ):
        if config[name] <= 0:
            raise ConfigError(f"{name} must be positive")
    for name in (
        "SIGN_IN_FAILURE_LIMIT",
        "SIGN_IN_LOCKOUT_SECONDS",
        "AUTH_FAILURE_LIMIT",
        "AUTH_FAILURE_WINDOW_SECONDS",
    ):
        if config[name] <= 0:
            raise ConfigError(f"{name} must be positive: failures are counted in a window, and some are allowed")
    if config["S3_OBJECT_LOCK"] not in ("compliance", "governance", "off"):
        raise ConfigError("S3_OBJECT_LOCK must be 'compliance', 'governance' or 'off'")


def webhook_signing_key(config) -> bytes:
    """The key every webhook's secret is derived from: `WEBHOOK_SIGNING_KEY`, or the one kept in
    `WEBHOOK_SIGNING_KEY_FILE`, made there at first use (random, readable by its owner only).
    Every process signing deliveries must have the same: set the variable where several hosts
    run fogx."""
    if config["WEBHOOK_SIGNING_KEY"]:
        return config["WEBHOOK_SIGNING_KEY"].encode()
    path = Path(config["WEBHOOK_SIGNING_KEY_FILE"])
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole beside it, then linked into place: a process that finds the file
        # never reads half a key, and of two making it at once, the first one's stands.
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_hex(32))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    key = path.read_text().strip()
    if len(key) < 32:
        raise ConfigError(f"{path} holds no webhook signing key of at least 32 characters")
    return key.encode()
