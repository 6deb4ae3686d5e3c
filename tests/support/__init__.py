"""Test helpers shared by every tier (databases, real servers); fixtures live in conftest.py."""
