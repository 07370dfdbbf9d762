"""Use cases: each loads, checks, writes and commits once, or rolls everything back."""
