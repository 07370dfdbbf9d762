"""The demo data `make run` loads."""
