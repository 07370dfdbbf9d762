"""Renderers: records data in; JSON-ready dicts, CSV text, PDF and ZIP bytes out."""
