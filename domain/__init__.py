"""The ordinance rules as pure functions: no Flask, no SQLAlchemy, an explicit `now`."""
