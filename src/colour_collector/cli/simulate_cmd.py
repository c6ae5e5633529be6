"""Commands of simulate_cmd (not written yet)."""
