"""Every kind of error a layer below the API raises has its status, problem type and title in
api/errors.py's one table, and is rendered as problem+json with its details."""

from api.errors import PROBLEMS, TYPED, render, status_of
from auth import errors as auth_errors
from services import errors as service_errors


def _kinds(base):
    found, pending = [], [base]
    while pending:
        kind = pending.pop()
        found.append(kind)
        pending.extend(kind.__subclasses__())
    return [kind for kind in found if kind is not base]


def test_every_kind_below_the_api_has_a_row():
    kinds = _kinds(service_errors.ServiceError) + _kinds(auth_errors.AuthError)
    assert len(kinds) >= 10
    # a kind is rendered by its own row or by the row of a kind it refines
    assert [kind for kind in kinds if not issubclass(kind, TYPED)] == []
    assert all(400 <= status < 600 for status, _, _ in PROBLEMS.values())


def test_a_service_refusal_is_rendered_with_its_fields_and_its_wait(app):
    with app.test_request_context():
        invalid = render(
            service_errors.Invalid(
                "The manifest names an unknown permit.", errors={"permit_number": ["No such permit."]}
            )
        )
        busy = render(service_errors.Conflict("Still being processed.", retry_after=1))
    assert invalid.status_code == 422 and invalid.mimetype == "application/problem+json"
    assert invalid.get_json() == {
        "type": "https://fogx.test/problems/validation-failed",
        "title": "Validation failed",
        "status": 422,
        "detail": "The manifest names an unknown permit.",
        "errors": {"permit_number": ["No such permit."]},
    }
    assert busy.status_code == 409 and busy.headers["Retry-After"] == "1"
    assert busy.get_json()["type"] == "https://fogx.test/problems/conflict" and "errors" not in busy.get_json()


def test_an_auth_refusal_keeps_its_challenge_and_its_oauth_code(app):
    refused = auth_errors.InsufficientScope(
        "No scope.", error="insufficient_scope", challenge='Bearer realm="fogx", error="insufficient_scope"'
    )
    with app.test_request_context():
        response = render(refused)
    assert status_of(refused) == response.status_code == 403
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="fogx", error="insufficient_scope"'
    assert response.get_json()["error"] == "insufficient_scope"
    oauth = auth_errors.OAuthRefused(
        401,
        "invalid_client",
        "Bad secret.",
        body={"error": "invalid_client"},
        headers={"WWW-Authenticate": 'Basic realm="fogx"'},
    )
    with app.test_request_context():
        response = render(oauth)
    assert status_of(oauth) == response.status_code == 401
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["type"] == "https://fogx.test/problems/oauth-invalid-client"
