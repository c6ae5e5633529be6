"""Commands of audit_cmd (not written yet)."""
