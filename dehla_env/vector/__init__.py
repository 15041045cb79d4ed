"""Batched (vectorised numpy) engine and vector environment."""
