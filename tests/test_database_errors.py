"""Which database errors are "unavailable, retry" (503) and which are bugs (500)."""

from sqlalchemy import text

from storage.db import db
from tests.conftest import https_client


def test_a_database_error_that_is_no_lost_connection_is_not_a_503(make_app):
    """A constraint broken by a statement is a fault of the code, not of the database's
    availability: a retry would fail alike, so no Retry-After is promised."""
    app = make_app()

    @app.post("/test-only/broken-constraint")
    def broken():
        db.session.execute(text("INSERT INTO jurisdictions (id) VALUES (NULL)"))
        return {}

    response = https_client(app).post("/test-only/broken-constraint")
    assert response.status_code == 500, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json" and "Retry-After" not in response.headers


def test_a_database_that_does_not_answer_is_a_503_with_retry_after(make_app, tmp_path):
    app = make_app(DATABASE_URL="postgresql://nobody@127.0.0.1:1/none")
    response = https_client(app).get("/v1/jurisdictions", headers={"Authorization": "Bearer x"})
    assert response.status_code == 503 and int(response.headers["Retry-After"]) > 0
    assert response.mimetype == "application/problem+json"
