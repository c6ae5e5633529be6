"""Commands of play_cmd (not written yet)."""
