"""The routes of disposal sites: their receipts and the deliveries they confirm or dispute."""
