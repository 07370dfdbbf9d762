"""The HTTP layer: the app factory, configuration, errors, the CLI and the blueprints."""

from api.app import create_app

__all__ = ["create_app"]
