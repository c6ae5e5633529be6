"""Commands of prizes_cmd (not written yet)."""
