"""What leaves fogx after a commit: object locks, webhooks, mail."""
