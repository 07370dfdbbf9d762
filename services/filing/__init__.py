"""A manifest filed, judged and corrected, with its scans."""
