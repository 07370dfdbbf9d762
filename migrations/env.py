"""Alembic environment: runs against the engine of the app that invoked it."""

from alembic import context

import storage.corrections  # their tables are part of the models
import storage.people  # noqa: F401
from storage.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
