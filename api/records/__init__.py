"""An FSE's record and its maintenance log."""
