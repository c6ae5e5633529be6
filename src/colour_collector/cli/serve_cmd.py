"""Commands of serve_cmd (not written yet)."""
