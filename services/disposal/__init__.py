"""What disposal sites receive, and the loads they dispute."""
