"""Commands of verify_cmd (not written yet)."""
