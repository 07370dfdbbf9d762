"""Settings read from the environment; the defaults make `make run` work with no services."""
import os
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
    "OAUTH_ISSUER": ("http://127.0.0.1:8000", str),
    "AUTH_FAILURE_LIMIT": (10, int),
    "AUTH_FAILURE_WINDOW_SECONDS": (300, int),
    "TRUSTED_PROXIES": (0, int),
    "SUBMISSIONS_PER_MINUTE": (600, int),
    "EXPORTS_PER_MINUTE": (30, int),
    "OUTBOX_INTERVAL_SECONDS": (5, int),
    "WEBHOOK_INTERVAL_SECONDS": (5, int),
    "WEBHOOK_ALLOW_LOCAL": (False, flag),
    "SWEEP_DELAY_MINUTES": (60, int),
    "LOCK_DIR": (str(INSTANCE / "locks"), str),
}


def load_config(overrides=None, environ=os.environ):
    config = {}
    for name, (default, parse) in SETTINGS.items():
        raw = environ.get(name)
        config[name] = parse(raw) if raw not in (None, "") else default
    config.update(overrides or {})
    _check(config)
    return config


def _check(config):
    if config["TOKEN_TTL_SECONDS"] <= 0:
        raise ConfigError("TOKEN_TTL_SECONDS must be positive: tokens always expire")
    if config["STORAGE_BACKEND"] not in ("local", "s3"):
        raise ConfigError("STORAGE_BACKEND must be 'local' or 's3'")
    if config["S3_OBJECT_LOCK"] not in ("compliance", "governance", "off"):
        raise ConfigError("S3_OBJECT_LOCK must be 'compliance', 'governance' or 'off'")
