"""Notices by mail: reminders, alerts and digests, and the links people ask for, queued in the
database and sent after the commit."""
