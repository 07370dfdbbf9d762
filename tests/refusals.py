"""A manifest posted as raw bytes, and a refusal that stored nothing."""

from sqlalchemy import func, select

from storage.models import Document, Manifest
from tests import factories


def raw_post(world, data, content_type="application/json"):
    return world.client.post(
        "/v1/manifests", data=data, content_type=content_type, headers=factories.bearer(world.hauler_token)
    )


def assert_refused(response, session, status=None):
    assert 400 <= response.status_code < 500, response.get_data(as_text=True)[:300]
    if status:
        assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    assert session.scalar(select(func.count()).select_from(Manifest)) == 0
    assert session.scalar(select(func.count()).select_from(Document)) == 0
