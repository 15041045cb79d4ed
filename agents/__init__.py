"""Bots for the Dehla Pakad family behind one interface (:class:`Agent`)."""

from .base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
