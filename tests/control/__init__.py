"""The planned generator as it was before natural conditional generation (commit d0891c7).

Kept only as the *control* of the naturalness battery: the battery must reject these plays
(``tests/unit/test_naturalness.py``). Not part of the game: nothing in ``src/`` imports it.
``generator.generate`` is the old entry point, unchanged but for its imports.
"""
