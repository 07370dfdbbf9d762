"""People's routes and pages: sign-in, OpenID Connect, accounts and memberships."""
