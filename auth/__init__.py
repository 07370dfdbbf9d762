"""OAuth2: the authorization server, scopes, and who the caller is."""
