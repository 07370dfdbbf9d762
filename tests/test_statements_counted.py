"""The statement counts the guards rely on see every statement, the prebuilt ones that go
to libpq past SQLAlchemy's events included, and the rows they are answered with."""

from sqlalchemy import select

from services.filing.resolving import RESOLVE
from storage.models import Device
from tests import factories
from tests.statements import counted


def test_a_prebuilt_statement_is_counted_with_its_rows_and_an_orm_read_with_its_rows(app, session):
    permit = factories.permit(session)
    factories.device(session, permit_row=permit)
    factories.device(session, permit_row=permit, tag="GI-2")
    session.commit()  # the session's connection back in the pool: the blocks check one out
    engine = session.get_bind()
    with counted(engine) as sent:
        [resolved] = RESOLVE.all(session.connection(), {"number": permit.permit_number, "tag": "GI-1"})
    assert resolved.permit_number == permit.permit_number
    assert len(sent.statements) == 1, sent.statements
    if engine.dialect.name == "postgresql":
        assert sent.rows == 1  # off the wire: the prebuilt statement's row too
    session.commit()
    with counted(engine) as sent:
        devices = session.scalars(select(Device).where(Device.permit_id == permit.id)).all()
    assert len(devices) == 2
    assert len(sent.statements) == 1 and sent.containing("FROM devices") and sent.rows == 2
