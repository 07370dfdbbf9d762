"""Persistence: the SQLAlchemy models and session, and the object store for scans."""
