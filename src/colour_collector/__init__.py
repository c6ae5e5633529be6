"""Colour Collector: an interactive instant win game."""
