"""What every model shares: the declarative base and its naming of constraints, ids, and the
column that keeps instants in UTC."""

import uuid
from datetime import UTC, datetime

from sqlalchemy import DateTime, MetaData, Numeric, TypeDecorator, Uuid
from sqlalchemy.orm import DeclarativeBase, mapped_column
from ulid import ULID

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def new_id():
    """Opaque, time-ordered ids: ULIDs in UUID form, so cursors can order by id."""
    return ULID().to_uuid()


def unflushed(model, **values):
    """An instance with its attributes set as plain values, without the ORM's change events:
    for a row that a prebuilt statement writes rather than the unit of work. Its collections
    are plain lists until the session adopts it (`set_committed_value`)."""
    instance = model.__mapper__.class_manager.new_instance()
    instance.__dict__.update(values)
    return instance


def utcnow():
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator):
    """Aware datetimes in, aware UTC datetimes out, on SQLite as on PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UTCDateTime, uuid.UUID: Uuid}


# Depths in inches to the hundredth, kept exact (DECIMAL in, DECIMAL out): the rules compare
# them at their limits. SQLite keeps a REAL, read back to the hundredth it was.
INCHES = Numeric(7, 2)


def pk():
    return mapped_column(Uuid, primary_key=True, default=new_id)


def created():
    return mapped_column(UTCDateTime, default=utcnow, nullable=False)
