"""Alembic environment: runs against the engine of the app that invoked it."""
from alembic import context

import storage.corrections  # noqa: F401  its table is part of the models
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
