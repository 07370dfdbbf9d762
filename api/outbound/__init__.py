"""Webhook subscriptions."""
