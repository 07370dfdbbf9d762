"""What each problem `type` fogx answers with means: its title, what went wrong and how to fix
it. `/problems/<slug>` serves each one (api/problems.py); every slug api/errors.py can put in a
problem body is here."""

# slug: (title, what went wrong, how to fix it)
PROBLEM_TYPES = {
    "bad-request": (
        "Bad request",
        "fogx could not read the request: malformed JSON, a duplicate key, text that is not UTF-8, "
        "a NUL character in the URL, a missing part of a form, or plain HTTP to an OAuth endpoint "
        "from another machine.",
        "Read `detail`: it names the part that could not be read. Send well-formed UTF-8 JSON (or "
        "the form the operation documents), and use HTTPS.",
    ),
    "unauthorized": (
        "Authentication required",
        "The request carried no access token, or one that is unknown, expired or revoked.",
        "Get a token from `POST /oauth/token` (client credentials) or by signing in, and send it "
        "as `Authorization: Bearer <token>`. Get a new one when it expires.",
    ),
    "sign-in-refused": (
        "Sign-in refused",
        "The email address and password, or the one-time code, did not match an account.",
        "Check the address and password and try again; after repeated failures the account is "
        'locked for a while. Use "Forgot your password?" to set a new one.',
    ),
    "insufficient-scope": (
        "Insufficient scope",
        "The token is valid but was not granted the scope this operation needs.",
        "Ask for the scope named in the `WWW-Authenticate` header when you request the token; "
        "a client can only be granted the scopes its role allows.",
    ),
    "forbidden": (
        "Forbidden",
        "The caller is known, but its role or organisation may not do this.",
        "Use a client or an account of the role the operation documents (for instance a city's "
        "admin to manage its registry), or ask that organisation's admin to do it.",
    ),
    "account-locked": (
        "Account locked",
        "Too many sign-in attempts failed, so the account is locked for a while.",
        "Wait until the time given in `detail` has passed, or reset the password from the sign-in page.",
    ),
    "not-found": (
        "Not found",
        "Nothing is at this address within the caller's reach: it does not exist, or it belongs "
        "to a jurisdiction or organisation the caller cannot see (both answer the same).",
        "Check the id and the path against the API reference (`/docs/`), and that the token is "
        "the one of the organisation that owns the record.",
    ),
    "method-not-allowed": (
        "Method not allowed",
        "The path exists, but not with this HTTP method.",
        "Use one of the methods the `Allow` header lists.",
    ),
    "not-acceptable": (
        "Not acceptable",
        "The `Accept` header asks for a format this operation does not give.",
        "Ask for one of the media types the operation documents (JSON, and CSV where a list "
        "offers a sheet), or send no `Accept` header.",
    ),
    "conflict": (
        "Conflict",
        "The request clashes with what is already recorded: a duplicate number, a record changed "
        "since it was read, or a request with the same `Idempotency-Key` still running.",
        "Read `detail` for what clashed. Fetch the current record and decide again; retry a "
        "running idempotent request after it finishes.",
    ),
    "link-invalid": (
        "Link expired or used",
        "The invitation or password-reset link was used already, or is past its expiry.",
        "Ask the organisation's admin for a new invitation, or request a new reset link from the sign-in page.",
    ),
    "payload-too-large": (
        "Payload too large",
        "The body is larger than fogx accepts (a JSON body or a scan over its limit); nothing was stored.",
        "Send a smaller body: split an import, or scan at a lower resolution. `detail` gives the limit.",
    ),
    "uri-too-long": (
        "URI too long",
        "The path and query are longer than 4096 bytes.",
        "Send fewer or shorter query parameters; page through a list with its cursor instead.",
    ),
    "header-fields-too-large": (
        "Request header fields too large",
        "A header line is longer than 8190 bytes, or the request has more than 100 headers.",
        "Send fewer and shorter headers; a body carries what a header cannot.",
    ),
    "transfer-coding-unsupported": (
        "Transfer coding not supported",
        "The request's `Transfer-Encoding` names a coding the server does not know.",
        "Send the body as it is with a `Content-Length`, or chunked.",
    ),
    "expectation-failed": (
        "Expectation failed",
        "The request's `Expect` header asks for something other than `100-continue`.",
        "Send `Expect: 100-continue` or no `Expect` header.",
    ),
    "unsupported-media-type": (
        "Unsupported media type",
        "The body's `Content-Type` is not one this operation takes, or a scan is not a PDF, JPEG, PNG or TIFF.",
        "Send the media type the operation documents, and scans in one of the accepted formats.",
    ),
    "validation-failed": (
        "Validation failed",
        "The request was read but its content breaks a rule; `errors` maps each field path to "
        "what is wrong with it. Nothing was stored.",
        "Correct each field `errors` names and send the request again.",
    ),
    "too-many-requests": (
        "Too many requests",
        "The client sent more requests, or failed more authentications, than its limit allows in the current window.",
        "Wait the number of seconds the `Retry-After` header gives, then retry; spread bulk work out over time.",
    ),
    "internal-error": (
        "Internal server error",
        "fogx failed on something it should have handled; the request was not completed and "
        "nothing it would have stored was stored.",
        "Retry once. If it persists, report it to the instance's operators with the `request_id` of the problem body.",
    ),
    "stored-scan-altered": (
        "Stored scan failed its integrity check",
        "The scan in the object store no longer matches the SHA-256 recorded when it was filed, "
        "so fogx will not serve it.",
        "Report it to the instance's operators with the `request_id`; they restore the object "
        "from its stored version. The manifest's record is unchanged.",
    ),
    "service-unavailable": (
        "Service unavailable",
        "A service fogx depends on (the database, the object store or the rate-limit store) did "
        "not answer; nothing was stored.",
        "Retry after the seconds the `Retry-After` header gives.",
    ),
    "http-error": (
        "HTTP error",
        "The request was refused at the HTTP level, with the status of the response.",
        "Read `detail` and the status, and check the request against the API reference (`/docs/`).",
    ),
}

# OAuth 2.0 and OpenID Connect error codes (RFC 6749, 6750, 7009, 7662, OpenID Connect Core):
# their problem type is `oauth-` and the code with hyphens.
OAUTH_ERRORS = {
    "invalid_request": (
        "A parameter is missing, repeated, or malformed.",
        "Send the parameters the endpoint documents, each once, form-encoded.",
    ),
    "invalid_client": (
        "The client could not be authenticated: unknown client id, wrong secret, or an "
        "authentication method this endpoint does not take.",
        "Check the client id and secret and send them with HTTP Basic (or in the form).",
    ),
    "invalid_grant": (
        "The authorization code, refresh token or PKCE verifier is invalid, expired, used, or "
        "was issued to another client or redirect URI.",
        "Start the sign-in again to get a new code; use each code once, with its verifier.",
    ),
    "unauthorized_client": (
        "This client may not use this grant type.",
        "Use the grant the client was registered for (client credentials for a machine client, "
        "the authorization code for an app people sign in to).",
    ),
    "unsupported_grant_type": (
        "The grant type is not one fogx issues tokens for.",
        "Use `client_credentials`, `authorization_code` or `refresh_token`.",
    ),
    "invalid_scope": (
        "A scope asked for is unknown or beyond what the client may be granted.",
        "Ask only for scopes the client's role allows, or omit `scope` to get them all.",
    ),
    "access_denied": (
        "The person or the server declined the request.",
        "Sign in again and approve the request, or ask an admin for access.",
    ),
    "unsupported_response_type": (
        "The authorization request asked for a response type other than `code`.",
        "Use `response_type=code` with PKCE.",
    ),
    "unsupported_token_type": (
        "The token type hint names a kind of token this endpoint does not handle.",
        "Send `token_type_hint=access_token`, or leave the hint out.",
    ),
    "insecure_transport": (
        "The OAuth request came over plain HTTP from another machine.",
        "Use HTTPS (plain HTTP is accepted only from the same host).",
    ),
    "invalid_token": ("The access token is unknown, expired or revoked.", "Get a new token and retry."),
    "insufficient_scope": ("The token lacks the scope the operation needs.", "Request a token with that scope."),
    "missing_authorization": (
        "The request carried no `Authorization` header.",
        "Send the token as `Authorization: Bearer <token>`.",
    ),
    "missing_token": ("No token was given.", "Send the token the endpoint asks for."),
    "missing_token_type": ("The token response had no token type.", "Report it to the instance's operators."),
    "missing_code": ("The redirect carried no authorization code.", "Start the sign-in again."),
    "mismatching_state": (
        "The `state` returned does not match the one sent.",
        "Start the sign-in again from the app; do not reuse an old redirect.",
    ),
    "login_required": (
        "The person must sign in, and the request asked not to show a sign-in page.",
        "Send the request without `prompt=none`.",
    ),
    "consent_required": (
        "The person must approve the app, and the request asked not to show a page.",
        "Send the request without `prompt=none`.",
    ),
    "interaction_required": (
        "The person must act on a page, and the request asked not to show one.",
        "Send the request without `prompt=none`.",
    ),
    "account_selection_required": (
        "The person must choose an organisation, and the request asked not to show a page.",
        "Send the request without `prompt=none`.",
    ),
    "invalid_request_uri": (
        "The `request_uri` could not be used.",
        "fogx does not take request objects: send the parameters in the query.",
    ),
    "invalid_request_object": (
        "The request object could not be used.",
        "fogx does not take request objects: send the parameters in the query.",
    ),
    "request_not_supported": (
        "fogx does not take the `request` parameter.",
        "Send the authorization parameters in the query.",
    ),
    "request_uri_not_supported": (
        "fogx does not take the `request_uri` parameter.",
        "Send the authorization parameters in the query.",
    ),
    "registration_not_supported": (
        "fogx does not take the `registration` parameter.",
        "Have the app registered by an admin instead.",
    ),
    "authorization_pending": (
        "A device authorization is still waiting for the person to approve it.",
        "fogx does not run the device grant: sign in with the authorization code grant.",
    ),
    "slow_down": (
        "A device kept polling faster than allowed.",
        "fogx does not run the device grant: sign in with the authorization code grant.",
    ),
    "expired_token": (
        "A device code expired before it was approved.",
        "fogx does not run the device grant: sign in with the authorization code grant.",
    ),
    "invalid_redirect_uri": (
        "A redirect URI is not one registered for the app, or not an acceptable URI.",
        "Use the exact redirect URI the app was registered with (https, or http on loopback).",
    ),
    "invalid_client_metadata": (
        "The app's registration data is invalid.",
        "fogx registers apps through an admin: ask one to register it.",
    ),
    "invalid_software_statement": (
        "A software statement could not be used.",
        "fogx registers apps through an admin: ask one to register it.",
    ),
    "unapproved_software_statement": (
        "A software statement is not approved here.",
        "fogx registers apps through an admin: ask one to register it.",
    ),
    "server_error": (
        "The authorization server failed on the request.",
        "Retry once; if it persists, report it with the `request_id`.",
    ),
    "temporarily_unavailable": ("The authorization server cannot answer now.", "Retry after a short wait."),
}

for _code, (_what, _fix) in OAUTH_ERRORS.items():
    PROBLEM_TYPES[f"oauth-{_code.replace('_', '-')}"] = (
        f"OAuth error: {_code}",
        f"{_what} (OAuth error `{_code}`.)",
        _fix,
    )
