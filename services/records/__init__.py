"""An FSE's record: its files, its maintenance log, retention, holds and their proof."""
