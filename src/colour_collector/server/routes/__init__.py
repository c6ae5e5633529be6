"""HTTP routes. Each parses, calls one service function and shapes the answer."""
